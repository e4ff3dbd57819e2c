/**
 * Shared helpers of the (host) suites. They run inside the extension host, next to the extension:
 * `process.pid` is the pid the extension labels its containers with (`sandbox-runner.owner-pid`).
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { awaitRemovals } from '../../../src/core/container/removals';
import type { RunResult } from '../../../src/core/run/result';
import type { SandboxRunnerApi } from '../../../src/vscode/api';
import { settlesWithin, waitFor } from '../../support/deadlines';
import { TEST_IMAGES } from '../../support/images';

export const EXTENSION_ID = 'sandbox-runner.sandbox-runner';

/** Test images built by scripts/build-test-images.sh; the fixture's settings use them. */
export const IMAGES = TEST_IMAGES;

/** The fixture workspace folder (opened by the runner). */
export function workspaceFolder(): vscode.WorkspaceFolder {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'no workspace folder is open: the runner must open test/host/fixtures/workspace');
  return folder;
}

/** URI of a fixture file. */
export function fixture(name: string): vscode.Uri {
  return vscode.Uri.joinPath(workspaceFolder().uri, name);
}

/** Activates the extension and returns its exported API, failing clearly when it has none. */
export async function getApi(): Promise<SandboxRunnerApi> {
  const ext = vscode.extensions.getExtension<SandboxRunnerApi | undefined>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not loaded in the extension host`);
  const api = await ext.activate();
  assert.ok(api, `activate() returned ${String(api)}: the extension does not export its API (src/vscode/api.ts) yet`);
  for (const fn of ['activeRuns', 'outputText', 'statusBarText', 'profiles'] as const) {
    assert.equal(typeof api[fn], 'function', `the exported API has no ${fn}()`);
  }
  for (const ev of ['onDidStartRun', 'onDidFinishRun'] as const) {
    assert.equal(typeof api[ev], 'function', `the exported API has no ${ev} event`);
  }
  return api;
}

/** Fails when `command` is not registered (a clearer message than executeCommand's). */
export async function requireCommand(command: string): Promise<void> {
  const all = await vscode.commands.getCommands(true);
  assert.ok(all.includes(command), `command ${command} is not registered`);
}

/** Opens a fixture file in an editor; with `lines` ([first, last], 1-based, inclusive) selects them. */
export async function openFixture(name: string, lines?: readonly [number, number]): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(fixture(name));
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  if (lines) {
    const end = doc.lineAt(lines[1] - 1).range.end;
    editor.selection = new vscode.Selection(lines[0] - 1, 0, end.line, end.character);
  } else {
    editor.selection = new vscode.Selection(0, 0, 0, 0);
  }
  assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), doc.uri.toString(), `${name} is not the active editor`);
  return editor;
}

/** Runs in flight, so that `cleanUp` can end and await them after a failed test. */
const inFlight = new Set<Thenable<unknown>>();

/** Executes a command and tracks its promise until it settles. */
export function startCommand<T>(command: string, ...args: unknown[]): Promise<T> {
  const p = Promise.resolve(vscode.commands.executeCommand<T>(command, ...args));
  inFlight.add(p);
  void p.then(
    () => inFlight.delete(p),
    () => inFlight.delete(p),
  );
  return p;
}

/** Deadlines (test/support/deadlines.ts): `settlesWithin` for a command's promise, `waitFor` for a condition. */
export { settlesWithin, waitFor };

/** Asserts a value looks like a RunResult (src/core/run/result.ts). */
export function assertRunResult(value: unknown, what: string): asserts value is RunResult {
  assert.ok(value && typeof value === 'object', `${what} returned ${JSON.stringify(value)}, not a RunResult`);
  const r = value as Partial<RunResult>;
  assert.equal(typeof r.outcome, 'string', `${what}: the result has no outcome: ${JSON.stringify(value)}`);
  assert.equal(typeof r.containerName, 'string', `${what}: the result has no containerName`);
}

/** Runs a docker CLI command (10 s limit) and returns its stdout. */
export function docker(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('docker', args, { timeout: 10_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`docker ${args.join(' ')} failed: ${String(stderr).trim() || err.message}`));
      else resolve(String(stdout));
    });
  });
}

/** Names of containers (any state) matching a `docker ps` filter. */
export async function containers(filter: string): Promise<string[]> {
  // A run's result comes before its container's removal ends (removals.ts; one registry per process).
  await awaitRemovals();
  return (await docker(['ps', '-a', '--filter', filter, '--format', '{{.Names}}'])).split('\n').filter(Boolean);
}

/** Containers (any state) created by the extension in this extension host. */
export function ownContainers(): Promise<string[]> {
  return containers(`label=sandbox-runner.owner-pid=${process.pid}`);
}

/** Running containers created by the extension in this extension host. */
export async function runningOwnContainers(): Promise<string[]> {
  const out = await docker(['ps', '--filter', `label=sandbox-runner.owner-pid=${process.pid}`, '--filter', 'status=running', '--format', '{{.Names}}']);
  return out.split('\n').filter(Boolean);
}

/** True while a container of exactly this name exists. */
export async function containerExists(name: string): Promise<boolean> {
  return (await containers(`name=^/?${name}$`)).length > 0;
}

/** Text appended to the output channel by `fn` (via the API). */
export async function outputOf<T>(api: SandboxRunnerApi, fn: () => Promise<T>): Promise<{ value: T; text: string }> {
  const before = api.outputText();
  const value = await fn();
  // outputText() keeps the last 1 MiB; these suites write far less.
  const now = api.outputText();
  return { value, text: now.startsWith(before) ? now.slice(before.length) : now };
}

/**
 * After each test: ends whatever a failed test left running (cancel-all if it exists, else removes
 * the containers), dismisses notifications that a command may be waiting on, and waits for runs.
 */
export async function cleanUp(): Promise<void> {
  const leftover = await ownContainers();
  if (inFlight.size === 0 && leftover.length === 0) return;
  const all = await vscode.commands.getCommands(true);
  if (all.includes('sandboxRunner.cancelAll')) {
    await settlesWithin(Promise.resolve(vscode.commands.executeCommand('sandboxRunner.cancelAll')), 20_000, 'sandboxRunner.cancelAll').catch(() => {});
  }
  const still = await ownContainers();
  if (still.length) await docker(['rm', '-f', '-v', ...still]).catch(() => {});
  const end = Date.now() + 20_000;
  while (inFlight.size > 0 && Date.now() < end) {
    await vscode.commands.executeCommand('notifications.clearAll');
    await Promise.race([Promise.allSettled([...inFlight]), new Promise((r) => setTimeout(r, 500))]);
  }
  inFlight.clear();
}

/** Dismisses all notifications (a command may await an error notification's answer). */
export async function clearNotifications(): Promise<void> {
  await vscode.commands.executeCommand('notifications.clearAll');
}

/** Path of a fixture as the extension sees it. */
export function fixturePath(name: string): string {
  return join(workspaceFolder().uri.fsPath, name);
}
