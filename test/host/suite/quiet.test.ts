/**
 * A quiet, predictable UI (issue 12) in the real extension host: a successful run shows no
 * notification (the status-bar item is its progress), a failure still does; the output channel
 * settings; the editor's stop command.
 *
 * Notifications are observed at the VS Code API the extension calls: this suite runs in the
 * extension's own host as part of the extension under development, so `require('vscode')` gives
 * it the same API object as the extension, and the spy below wraps its `window` functions. The
 * failure test proves the spy sees the extension's calls (else "a failure still notifies" fails).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RunResult } from '../../../src/core/run/result';
import { assertRunResult, cleanUp, clearNotifications, getApi, openFixture, outputOf, settlesWithin, startCommand, waitFor } from './helpers';

type Win = Record<string, (...args: unknown[]) => unknown>;
const SPIED = ['withProgress', 'showInformationMessage', 'showWarningMessage', 'showErrorMessage'] as const;

/** Records every notification-type call of `vscode.window` until disposed (the calls still go through). */
function spyNotifications(): { calls: { fn: string; text: string }[]; dispose(): void } {
  const win = vscode.window as unknown as Win;
  const calls: { fn: string; text: string }[] = [];
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const fn of SPIED) {
    const original = win[fn]!;
    originals.set(fn, original);
    win[fn] = function (this: unknown, ...args: unknown[]) {
      const first = args[0] as { title?: string; location?: unknown } | string;
      // withProgress: only a Notification location is a notification (a status-bar progress is not).
      if (fn !== 'withProgress' || (typeof first === 'object' && first.location === vscode.ProgressLocation.Notification)) {
        calls.push({ fn, text: typeof first === 'string' ? first : String(first?.title ?? '') });
      }
      return original.apply(this, args);
    };
  }
  return { calls, dispose: () => originals.forEach((f, fn) => (win[fn] = f)) };
}

async function runFixture(name: string): Promise<RunResult> {
  await openFixture(name);
  const result = await settlesWithin(startCommand<RunResult>('sandboxRunner.run'), 45_000, `sandboxRunner.run on ${name}`);
  assertRunResult(result, 'sandboxRunner.run');
  return result;
}

async function setWorkspace(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('sandboxRunner').update(key, value, vscode.ConfigurationTarget.Workspace);
}

describe('quiet UI (host)', function () {
  this.timeout(90_000);
  afterEach(cleanUp);

  it('a successful run shows no notification (no progress toast); the status-bar item is its progress', async function () {
    const api = await getApi();
    const spy = spyNotifications();
    let status: string | undefined;
    const sub = api.onDidStartRun(() => setTimeout(() => (status = api.statusBarText()), 200));
    try {
      const result = await runFixture('hello.py');
      assert.equal(result.outcome, 'exited', result.message);
      assert.equal(result.exitCode, 0);
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(spy.calls, [], `a successful run showed notifications: ${JSON.stringify(spy.calls)}`);
      assert.ok(status && /Sandbox/.test(status), `the status-bar item did not show the run: ${String(status)}`);
    } finally {
      sub.dispose();
      spy.dispose();
    }
  });

  it('a failed run (missing image) still shows its error notification, and only that one', async function () {
    const spy = spyNotifications();
    try {
      await openFixture('snippet.noimage');
      const pending = startCommand<RunResult>('sandboxRunner.run');
      const result = await settlesWithin(pending, 30_000, 'sandboxRunner.run with a missing image');
      assertRunResult(result, 'sandboxRunner.run');
      assert.equal(result.outcome, 'failed-to-start', result.message);
      await waitFor(() => spy.calls.length > 0, 5_000, 'the error notification');
      assert.deepEqual(spy.calls.map((c) => c.fn), ['showErrorMessage'], JSON.stringify(spy.calls));
      assert.match(spy.calls[0]!.text, /Sandbox run failed/);
    } finally {
      spy.dispose();
      await clearNotifications();
    }
  });

  it('sandboxRunner.clearOutputBeforeRun clears the channel before a run; off, the channel keeps earlier runs', async function () {
    const api = await getApi();
    try {
      await runFixture('hello.py');
      await setWorkspace('clearOutputBeforeRun', true);
      await runFixture('hello.sh');
      const cleared = api.outputText();
      assert.ok(!cleared.includes('▶ hello.py'), `the earlier run is still in the channel:\n${cleared}`);
      assert.ok(cleared.includes('▶ hello.sh'), cleared);
      await setWorkspace('clearOutputBeforeRun', undefined);
      await runFixture('hello.py');
      const kept = api.outputText();
      assert.ok(kept.includes('▶ hello.sh') && kept.includes('▶ hello.py'), kept);
    } finally {
      await setWorkspace('clearOutputBeforeRun', undefined);
    }
  });

  it('"Stop Sandbox Run" on an editor cancels that document\'s run and no other', async function () {
    const api = await getApi();
    const other = await openFixture('long.sh');
    const otherRun = startCommand<RunResult>('sandboxRunner.run');
    await waitFor(() => api.activeRuns().length === 1, 20_000, 'the long.sh run to start');
    const sleepy = await openFixture('sleepy.py');
    const run = startCommand<RunResult>('sandboxRunner.run');
    await waitFor(() => api.activeRuns().length === 2, 20_000, 'the sleepy.py run to start');
    const { text } = await outputOf(api, async () => {
      assert.equal(await vscode.commands.executeCommand('sandboxRunner.stopEditorRun', sleepy.document.uri), true);
      const result = await settlesWithin(run, 30_000, 'the stopped sleepy.py run');
      assert.equal(result?.outcome, 'cancelled', result?.message);
      assert.equal(api.activeRuns().length, 1, 'the other document\'s run was cancelled too');
      assert.match(api.activeRuns()[0]!.label, /long\.sh/);
      // The keybinding's form (no argument) stops the active editor's run.
      await vscode.window.showTextDocument(other.document);
      assert.equal(await vscode.commands.executeCommand('sandboxRunner.stopEditorRun'), true);
      const otherResult = await settlesWithin(otherRun, 30_000, 'the stopped long.sh run');
      assert.equal(otherResult?.outcome, 'cancelled', otherResult?.message);
    });
    // Two runs were in progress: their lines carry their short labels.
    assert.match(text, /\[sleepy\.py#\d+\] ■ cancelled/, text);
  });
});
