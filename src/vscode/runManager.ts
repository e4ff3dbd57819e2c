/**
 * The window's runs: starts them through the core, gives each its own AbortController, tracks
 * the active ones (for the status bar, the tree and cancel commands) and fires both the start and
 * the finish event of every run. Runs are independent and concurrent; `cancelAll` (used by
 * deactivate) resolves once every container is removed.
 */
import * as vscode from 'vscode';
import type { RunRequest, RunResult } from '../core';
import { isSandboxError } from '../core/errors';
import type { ActiveRunInfo, FinishedRun } from './api';
import { abortOnCancel } from './cancellation';
import { engine } from './lazy';
import type { InstallStep, StartOptions, StartRequest } from './startRequest';

export type { StartOptions, StartRequest } from './startRequest';

interface Entry {
  readonly info: ActiveRunInfo;
  /** The document the run's code came from (`Uri.toString()`), when known. */
  readonly documentUri?: string;
  /** First cancel: interrupt (SIGINT), removal after the profile's grace period. */
  readonly controller: AbortController;
  /** Second cancel, or the window closing: removal at once. */
  readonly force: AbortController;
  readonly done: Promise<RunResult>;
}

export class RunManager implements vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  /** Runs whose dependencies are being installed (issue 22): the status bar says "installing". */
  private readonly installingIds = new Set<string>();
  private readonly startEmitter = new vscode.EventEmitter<ActiveRunInfo>();
  private readonly finishEmitter = new vscode.EventEmitter<FinishedRun>();
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  /** Fires when a run starts. */
  readonly onDidStart = this.startEmitter.event;
  /** Fires when a run ends, whatever the outcome. */
  readonly onDidFinish = this.finishEmitter.event;
  /** Fires whenever the set of active runs changes. */
  readonly onDidChange = this.changeEmitter.event;

  /**
   * Starts a run; resolves with its result (never rejects for run failures), after
   * `options.settle` ran and `onDidFinish` fired.
   */
  start(request: StartRequest, options: StartOptions = {}): { info: ActiveRunInfo; done: Promise<RunResult> } {
    const { documentUri, install, ...runRequest } = request;
    // The Web Crypto global (Node 19+, Electron): node:crypto itself is not loaded at activation.
    const info: ActiveRunInfo = { id: crypto.randomUUID(), profileName: request.profileName, label: request.label, startedAt: Date.now() };
    const controller = new AbortController();
    const force = new AbortController();
    const bridge = abortOnCancel(options.token, controller);
    const done = install
      ? this.installThenRun(info.id, install, runRequest, controller, force)
      : engine().runInSandbox({ ...runRequest, signal: controller.signal, forceSignal: force.signal });
    this.entries.set(info.id, { info, documentUri, controller, force, done });
    void vscode.commands.executeCommand('setContext', 'sandboxRunner.runActive', true);
    this.startEmitter.fire(info);
    this.changeEmitter.fire();
    const finished = done.then((result) => {
      bridge.dispose();
      this.entries.delete(info.id);
      void vscode.commands.executeCommand('setContext', 'sandboxRunner.runActive', this.entries.size > 0);
      this.changeEmitter.fire();
      options.settle?.(result);
      this.finishEmitter.fire({ ...info, result });
      return result;
    });
    return { info, done: finished };
  }

  /**
   * Issue 22: runs `install` (the run shows as installing meanwhile; its output goes to the run's
   * sink as notice lines), then the program with the set mounted. A refusal or failed install is
   * the run's `failed-to-start` result, a cancel during it `cancelled`; the program never starts then.
   */
  private async installThenRun(id: string, install: InstallStep, request: Omit<RunRequest, 'signal' | 'forceSignal'>, controller: AbortController, force: AbortController): Promise<RunResult> {
    const t0 = performance.now();
    const lines = new NoticeLines((line) => request.onOutput?.('notice', line));
    this.installingIds.add(id);
    this.changeEmitter.fire();
    let dependencySet;
    try {
      // Either cancel stops an install at once (it has no program to interrupt gracefully).
      dependencySet = await install(AbortSignal.any([controller.signal, force.signal]), (text) => lines.push(text));
    } catch (e) {
      lines.end();
      const info = isSandboxError(e) ? e.toInfo() : { code: 'engine-error' as const, message: `The dependency install failed: ${String(e)}`, fix: 'Run again.', detail: '' };
      const refused = engine().refusedResult(info, t0);
      return controller.signal.aborted || force.signal.aborted ? { ...refused, outcome: 'cancelled', message: info.message } : refused;
    } finally {
      this.installingIds.delete(id);
      this.changeEmitter.fire();
    }
    lines.end();
    return engine().runInSandbox({ ...request, ...(dependencySet ? { dependencySet } : {}), signal: controller.signal, forceSignal: force.signal });
  }

  /** True while some run is installing its dependencies (issue 22). */
  installing(): boolean {
    return this.installingIds.size > 0;
  }

  /** Ids of the active runs of the document `documentUri` (`Uri.toString()`), oldest first. */
  runsOf(documentUri: string): string[] {
    return [...this.entries.values()].filter((e) => e.documentUri === documentUri).sort((a, b) => a.info.startedAt - b.info.startedAt).map((e) => e.info.id);
  }

  /** The documents (`Uri.toString()`) that have an active run. */
  documents(): string[] {
    return [...new Set([...this.entries.values()].flatMap((e) => (e.documentUri ? [e.documentUri] : [])))];
  }

  /** Active runs, oldest first. */
  active(): ActiveRunInfo[] {
    return [...this.entries.values()].map((e) => e.info).sort((a, b) => a.startedAt - b.startedAt);
  }

  /**
   * Cancels one run: the first call interrupts the program (SIGINT) and removes its container
   * after the profile's `limits.interruptGraceSeconds`; a second call removes it at once.
   * @returns false when no run has this id
   */
  cancel(id: string): boolean {
    const entry = this.entries.get(id);
    if (entry) (entry.controller.signal.aborted ? entry.force : entry.controller).abort();
    return !!entry;
  }

  /**
   * Cancels every run (as {@link cancel}; `force` removes at once, as on window close) and
   * resolves once their containers are removed.
   */
  async cancelAll(force = false): Promise<void> {
    const entries = [...this.entries.values()];
    for (const e of entries) (force || e.controller.signal.aborted ? e.force : e.controller).abort();
    await Promise.allSettled(entries.map((e) => e.done));
  }

  dispose(): void {
    for (const e of this.entries.values()) e.force.abort();
    this.startEmitter.dispose();
    this.finishEmitter.dispose();
    this.changeEmitter.dispose();
  }
}

/** The installer's output as whole lines (a notice each; the last partial line at `end`). */
class NoticeLines {
  private rest = '';

  constructor(private readonly emit: (line: string) => void) {}

  push(text: string): void {
    const parts = (this.rest + text).split('\n');
    this.rest = parts.pop()!;
    for (const line of parts) if (line.trim()) this.emit(line);
  }

  end(): void {
    if (this.rest.trim()) this.emit(this.rest);
    this.rest = '';
  }
}
