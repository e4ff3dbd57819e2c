/**
 * Helpers of the (trust) suite: the hostile workspace, warm containers, user settings, and the
 * report the runner reads after the extension host has exited. Generic helpers come from the
 * default suite's helpers.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { WARM_LABEL } from '../../../src/core/ownership/labels';
import { awaitRemovals } from '../../../src/core/container/removals';
import type { RunResult } from '../../../src/core/run/result';
import type { ActiveRunInfo, SandboxRunnerApi } from '../../../src/vscode/api';
import { pollFor, sleep } from '../../support/deadlines';
import { IMAGES, assertRunResult, clearNotifications, docker, getApi, outputOf, settlesWithin, startCommand, waitFor, workspaceFolder } from '../suite/helpers';

/** The label the warm pool puts on containers not yet taken by a run. */
export { WARM_LABEL };

/** The built-in python profile's image; not built locally, so a run with it fails with image-missing. */
export const BUILTIN_PYTHON_IMAGE = 'python:3.12-slim';

/** The file the hostile workspace's fake docker (its sandboxRunner.dockerPath) writes if it ever runs. */
export function dockerMarker(): string {
  return join(workspaceFolder().uri.fsPath, 'DOCKER-PATH-WAS-RUN');
}

/** Fails when the hostile fake docker has run, quoting what it recorded. */
export function assertFakeDockerNeverRan(when: string): void {
  const marker = dockerMarker();
  assert.ok(!existsSync(marker), `${when}: the workspace's sandboxRunner.dockerPath was executed:\n${existsSync(marker) ? readFileSync(marker, 'utf8') : ''}`);
}

/** Names of this extension host's warm containers (label sandbox-runner.warm=1) that are running. */
export async function warmContainers(profile = 'python'): Promise<string[]> {
  const out = await docker([
    'ps', '--filter', `label=${WARM_LABEL}=1`, '--filter', `label=sandbox-runner.owner-pid=${process.pid}`,
    '--filter', `label=sandbox-runner.profile=${profile}`, '--filter', 'status=running', '--format', '{{.Names}}',
  ]);
  return out.split('\n').filter(Boolean);
}

/** Containers (any state) of this extension host that are not warm ones waiting for a run. */
export async function nonWarmContainers(): Promise<string[]> {
  // A run's result comes before its container's removal ends (removals.ts; one registry per process).
  await awaitRemovals();
  const out = await docker(['ps', '-a', '--filter', `label=sandbox-runner.owner-pid=${process.pid}`, '--format', `{{.Names}}\t{{.Label "${WARM_LABEL}"}}`]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'))
    .filter(([, warm]) => warm !== '1')
    .map(([name]) => name!);
}

/** Waits (polling docker) until a running warm container for `profile` exists; returns its name. */
export async function waitForWarm(profile = 'python', ms = 20_000, not?: string): Promise<string> {
  const names = await pollFor(
    async () => {
      const found = (await warmContainers(profile)).filter((n) => n !== not);
      return found.length > 0 ? found : undefined;
    },
    ms,
    `a running warm container (label ${WARM_LABEL}=1, owner pid ${process.pid}, profile ${profile})`,
    200,
  );
  noteWarm(names);
  // The pool marks a container ready only after its own `docker inspect` of the started
  // container (a few ms after docker lists it as running): give it that moment.
  await sleep(500);
  return names[0]!;
}

/** Sets (or with `undefined` removes) the USER-level `sandboxRunner.profiles` and waits until the extension's view of it changed. */
export async function setUserProfiles(value: Record<string, unknown> | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('sandboxRunner').update('profiles', value, vscode.ConfigurationTarget.Global);
  const want = JSON.stringify(value);
  await waitFor(
    () => JSON.stringify(vscode.workspace.getConfiguration('sandboxRunner').inspect('profiles')?.globalValue) === want,
    10_000,
    `user setting sandboxRunner.profiles to become ${want}`,
  );
}

/** The user python profile the suite seeds: the built-in merged with the local test image. */
export const USER_PYTHON = { python: { image: IMAGES.python } } as const;

/**
 * Opens a workspace file in an editor (after another one, so the active editor really changes
 * and the extension prepares a warm container for it).
 */
export async function openFile(name: string): Promise<vscode.TextEditor> {
  const uri = vscode.Uri.joinPath(workspaceFolder().uri, name);
  const doc = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  editor.selection = new vscode.Selection(0, 0, 0, 0);
  assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), uri.toString(), `${name} is not the active editor`);
  return editor;
}

/** Runs `command` (dismissing notifications it may raise) and returns its value and the output it added. */
export async function runCommand(api: SandboxRunnerApi, command: string, ...args: unknown[]): Promise<{ value: RunResult | undefined; text: string }> {
  const { value, text } = await outputOf(api, () => settlesWithin(startCommand<RunResult | undefined>(command, ...args), 40_000, command));
  await clearNotifications();
  return { value, text };
}

/** Runs the active editor (`sandboxRunner.run`, as {@link runCommand}) and fails unless it returned a RunResult. */
export async function runActiveEditor(api: SandboxRunnerApi): Promise<{ result: RunResult; text: string }> {
  const { value, text } = await runCommand(api, 'sandboxRunner.run');
  assertRunResult(value, 'sandboxRunner.run');
  return { result: value, text };
}

/** The runs that started (`api.onDidStartRun`) while `fn` ran, and `fn`'s value. */
export async function runsStartedBy<T>(api: SandboxRunnerApi, fn: () => Promise<T>): Promise<{ value: T; started: ActiveRunInfo[] }> {
  const started: ActiveRunInfo[] = [];
  const sub = api.onDidStartRun((r) => started.push(r));
  try {
    return { value: await fn(), started };
  } finally {
    sub.dispose();
  }
}

/** `PROBE key value` lines of probe.py's output, as key → value. */
export function probeLines(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^PROBE (\S+(?: \/\S+| HOSTILE_\w+)?) (.*)$/gm)) out.set(m[1]!, m[2]!);
  return out;
}

const seenWarm = new Set<string>();
/** Remembers warm container names for the report. */
export function noteWarm(names: readonly string[]): void {
  for (const n of names) seenWarm.add(n);
}

/**
 * Writes the report runHostTests.ts reads after the host exits (SANDBOX_RUNNER_HOST_REPORT): this
 * extension host's pid (the owner-pid label of its containers) and the warm containers seen.
 */
export function writeReport(extra: { finished: boolean }): void {
  const file = process.env.SANDBOX_RUNNER_HOST_REPORT;
  if (!file) return;
  writeFileSync(file, `${JSON.stringify({ extensionHostPid: process.pid, warmContainersSeen: [...seenWarm], ...extra }, null, 2)}\n`);
}

export { getApi };
