/**
 * Recent Runs (issue 12): the last {@link MAX_RECENT_RUNS} finished runs of the window, newest
 * first, for the profiles view, Re-run and Copy as sandbox-run Command. Workspace state
 * (`Memento`) keeps each run's description across reloads: what ran (label, document URI, kind),
 * the profile's name, the program arguments, the outcome and the duration; never the code, the
 * resolved profile or the output. Those stay in this window's memory only, so after a reload a
 * file run re-runs from its file and a selection run is listed but cannot re-run.
 * Program arguments typed into "Run with Arguments…" are remembered per document the same way.
 */
import * as vscode from 'vscode';
import type { DockerOptions, Profile, RunResult } from '../core';
import type { FinishedRun, RecentRun, RunKind } from './api';

export type { RecentRun, RunKind } from './api';
import type { Target } from './runTarget';

/** How many finished runs the list keeps. */
export const MAX_RECENT_RUNS = 20;
/** Most documents whose last arguments are remembered (oldest forgotten first). */
export const MAX_REMEMBERED_ARGS = 200;
/** Most characters of a run's output kept in memory for "Show Output" (its tail). */
export const MAX_KEPT_OUTPUT_CHARS = 256 * 1024;

const RUNS_KEY = 'sandboxRunner.recentRuns';
const ARGS_KEY = 'sandboxRunner.programArgs';

/**
 * What only this window's memory holds of a run: the code it ran (selections and unsaved text;
 * with the selection's place, for source links), the profile as it ran, the engine options, and
 * its output.
 */
export interface RunMemory {
  readonly code: string;
  /** For a selection: its first line and column and the dedent width (commands.ts `Target.where`). */
  readonly where?: { readonly line: number; readonly column: number; readonly dedent: number };
  readonly untitled: boolean;
  readonly profile: Profile;
  readonly docker: DockerOptions;
  /** The run's output text when it finished (the tail, at most {@link MAX_KEPT_OUTPUT_CHARS}). */
  output?: string;
}

/** What the run controller reports when a run starts (commands.ts `execute`). */
export interface StartedRun extends Pick<RecentRun, 'id' | 'kind' | 'label' | 'documentUri' | 'fileName' | 'languageId' | 'profileName' | 'args' | 'interactive'> {
  readonly memory: RunMemory;
  /** The run's output so far (its output channel frame, or its terminal's text). */
  readonly outputText: () => string | undefined;
}

/**
 * The {@link StartedRun} for `target`: a selection, the text of an untitled or unsaved (dirty)
 * document, or a saved file as it is on disk.
 */
export function startedRun(
  target: Target,
  run: { id: string; profileName: string; profile: Profile; docker: DockerOptions; args: readonly string[]; interactive: boolean },
  outputText: () => string | undefined,
): StartedRun {
  const dirty = vscode.workspace.textDocuments.some((d) => d.uri.toString() === target.documentUri && d.isDirty);
  const kind: RunKind = target.where ? 'selection' : target.untitled || dirty ? 'unsaved' : 'file';
  return {
    id: run.id, kind, label: target.label, documentUri: target.documentUri, fileName: target.fileName, languageId: target.languageId,
    profileName: run.profileName, args: run.args, interactive: run.interactive,
    memory: { code: target.code, ...(target.where ? { where: target.where } : {}), untitled: target.untitled, profile: run.profile, docker: run.docker },
    outputText,
  };
}

/** A recent run with what this window still holds of it. */
export interface RecentRunEntry {
  readonly run: RecentRun;
  /** Undefined after a reload (workspace state only). */
  readonly memory?: RunMemory;
}

/**
 * Why an entry cannot re-run (`action` 'rerun') or be copied as a command line ('copy'): both need
 * its code, which a selection or unsaved run keeps in this window's memory only. Undefined when it can.
 */
export function rerunBlocker(entry: RecentRunEntry, action: 'rerun' | 'copy' = 'rerun'): string | undefined {
  if (entry.run.kind === 'file' || entry.memory) return undefined;
  const cannot = action === 'rerun' ? vscode.l10n.t('re-run') : vscode.l10n.t('be copied as a command line');
  return entry.run.kind === 'selection'
    ? vscode.l10n.t('The selected code is not kept across window reloads, so this run cannot {0}: select the code and run it again.', cannot)
    : vscode.l10n.t('The unsaved text is not kept across window reloads, so this run cannot {0}: run the document again.', cannot);
}

/** The finished runs of this workspace, newest first, and the last program arguments per document. */
export class RunHistory implements vscode.Disposable {
  private entries: RecentRunEntry[];
  private readonly pending = new Map<string, StartedRun>();
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires when the list changed. */
  readonly onDidChange = this.emitter.event;
  private readonly subscription: vscode.Disposable;

  /**
   * @param state workspace state (`ExtensionContext.workspaceState`)
   * @param onDidFinish the RunManager's finish event (fired after the output footer is written)
   */
  constructor(private readonly state: vscode.Memento, onDidFinish: vscode.Event<FinishedRun>) {
    this.entries = readRuns(state.get<unknown>(RUNS_KEY)).map((run) => ({ run }));
    this.subscription = onDidFinish((f) => this.finished(f.id, f.result));
  }

  /** Notes a run that started; it joins the list when it finishes. */
  started(run: StartedRun): void {
    this.pending.set(run.id, run);
  }

  /** The list, newest first. */
  list(): readonly RecentRunEntry[] {
    return this.entries;
  }

  /** The entry of run `id`, if still listed. */
  get(id: string): RecentRunEntry | undefined {
    return this.entries.find((e) => e.run.id === id);
  }

  /** The last program arguments given for the document `documentUri` ("Run with Arguments…"), or undefined. */
  argsFor(documentUri: string): readonly string[] | undefined {
    const all = this.state.get<Record<string, unknown>>(ARGS_KEY) ?? {};
    const v = Object.hasOwn(all, documentUri) ? all[documentUri] : undefined;
    return Array.isArray(v) && v.every((a) => typeof a === 'string') ? v : undefined;
  }

  /** Remembers the program arguments for `documentUri` (the oldest documents are forgotten past {@link MAX_REMEMBERED_ARGS}). */
  async rememberArgs(documentUri: string, args: readonly string[]): Promise<void> {
    const all = { ...(this.state.get<Record<string, unknown>>(ARGS_KEY) ?? {}) };
    delete all[documentUri];
    all[documentUri] = [...args];
    const keys = Object.keys(all);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_REMEMBERED_ARGS))) delete all[k];
    await this.state.update(ARGS_KEY, all);
  }

  private finished(id: string, result: RunResult): void {
    const started = this.pending.get(id);
    if (!started) return;
    this.pending.delete(id);
    const run: RecentRun = {
      id, kind: started.kind, label: started.label, documentUri: started.documentUri, fileName: started.fileName, languageId: started.languageId,
      profileName: started.profileName, args: [...started.args], interactive: started.interactive,
      outcome: result.outcome, exitCode: result.exitCode, durationMs: Math.round(result.durationMs), finishedAt: Date.now(),
    };
    const output = started.outputText();
    started.memory.output = output === undefined ? undefined : output.slice(-MAX_KEPT_OUTPUT_CHARS);
    this.entries = [{ run, memory: started.memory }, ...this.entries].slice(0, MAX_RECENT_RUNS);
    void this.state.update(RUNS_KEY, this.entries.map((e) => e.run));
    this.emitter.fire();
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }
}

const KINDS: readonly string[] = ['file', 'unsaved', 'selection'];
const OUTCOMES: readonly string[] = ['exited', 'timed-out', 'cancelled', 'output-limit', 'oom-killed', 'failed-to-start', 'engine-error', 'compile-failed'];

/** The stored list, keeping only well-formed entries (workspace state is ours, but may come from another version). */
function readRuns(value: unknown): RecentRun[] {
  if (!Array.isArray(value)) return [];
  return value.filter((r): r is RecentRun => {
    if (typeof r !== 'object' || r === null) return false;
    const o = r as Record<string, unknown>;
    return ['id', 'label', 'documentUri', 'fileName', 'languageId', 'profileName'].every((k) => typeof o[k] === 'string')
      && KINDS.includes(o.kind as string) && OUTCOMES.includes(o.outcome as string)
      && Array.isArray(o.args) && o.args.every((a) => typeof a === 'string')
      && typeof o.interactive === 'boolean' && typeof o.durationMs === 'number' && typeof o.finishedAt === 'number'
      && (o.exitCode === null || typeof o.exitCode === 'number');
  }).slice(0, MAX_RECENT_RUNS);
}
