/**
 * Re-run, program arguments, Recent Runs and Copy as sandbox-run Command (issue 12), through the
 * real commands in the real VS Code host against the real engine.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { RunResult } from '../../../src/core/run/result';
import { cleanUp, getApi, openFixture, outputOf, ownContainers, settlesWithin, startCommand } from './helpers';

const RUN_MS = 30_000;
const ARGS_TEXT = `-n 'two words' '$(id)' '' "it's" ~ *.txt`;
const ARGS = ['-n', 'two words', '$(id)', '', "it's", '~', '*.txt'];
const ARGV_LINE = `RERUN-ARGV ${JSON.stringify(ARGS)}`.replace(/","/g, '", "');

function bash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // `node` as the user's shell finds it: this extension host's own, first on PATH.
    const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    execFile('bash', ['-c', script], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

describe('re-run, arguments and recent runs (host)', function () {
  this.timeout(90_000);
  afterEach(cleanUp);

  it('re-run with arguments: the program sees the same arguments on Re-run Last, and Run with Arguments… offers them again', async () => {
    const api = await getApi();
    await openFixture('rerun_argv.py');
    const first = await outputOf(api, () => settlesWithin(startCommand<RunResult>('sandboxRunner.runWithArguments', undefined, ARGS_TEXT), RUN_MS, 'runWithArguments'));
    assert.equal(first.value.outcome, 'exited', first.value.message);
    assert.equal(first.value.exitCode, 3);
    assert.ok(first.text.includes(ARGV_LINE), `the first run's output lacks ${ARGV_LINE}:\n${first.text}`);

    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    const again = await outputOf(api, () => settlesWithin(startCommand<RunResult>('sandboxRunner.rerunLast'), RUN_MS, 'rerunLast'));
    assert.equal(again.value?.exitCode, 3, again.value?.message);
    assert.ok(again.text.includes(ARGV_LINE), `the re-run's output lacks ${ARGV_LINE}:\n${again.text}`);
    const [newest, previous] = api.recentRuns();
    assert.deepEqual(newest?.args, ARGS);
    assert.deepEqual(previous?.args, ARGS);
    assert.equal(newest?.label, 'rerun_argv.py');

    // The input box is prefilled with this file's last arguments: accepting it as offered runs with them.
    await openFixture('rerun_argv.py');
    const prompted = startCommand<RunResult>('sandboxRunner.runWithArguments');
    await new Promise((r) => setTimeout(r, 1500));
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const third = await outputOf(api, () => settlesWithin(prompted, RUN_MS, 'runWithArguments (prompted)'));
    assert.ok(third.text.includes(ARGV_LINE), `the prefilled arguments were not ${ARGS_TEXT}:\n${third.text}`);
    assert.deepEqual(await ownContainers(), []);
  });

  it('an interactive run re-runs interactively: Re-run Last opens a terminal again and the program runs there', async () => {
    const api = await getApi();
    await openFixture('rerun_argv.py');
    const first = await settlesWithin(startCommand<RunResult>('sandboxRunner.runInteractive'), RUN_MS, 'runInteractive');
    assert.equal(first.exitCode, 3, first.message);
    const again = await settlesWithin(startCommand<RunResult>('sandboxRunner.rerunLast'), RUN_MS, 'rerunLast');
    assert.equal(again?.exitCode, 3, again?.message);
    const [newest, previous] = api.recentRuns();
    assert.equal(newest?.interactive, true);
    assert.notEqual(newest?.id, previous?.id);
    assert.match(api.terminalText(newest!.id) ?? '', /RERUN-ARGV \[\]/, 'the re-run did not print in its own terminal');
    for (const t of vscode.window.terminals) if (t.name.includes('rerun_argv.py')) t.dispose();
  });

  it('Run with Arguments… refuses shell operators and expansions, saying so, and runs nothing', async () => {
    const api = await getApi();
    await openFixture('rerun_argv.py');
    const before = api.recentRuns().length;
    for (const text of ['a | b', 'a > out', '$(id)']) {
      const r = await settlesWithin(startCommand<RunResult | undefined>('sandboxRunner.runWithArguments', undefined, text), RUN_MS, text);
      assert.equal(r, undefined, `${text} ran`);
    }
    await vscode.commands.executeCommand('notifications.clearAll');
    assert.equal(api.recentRuns().length, before);
  });

  it('Recent Runs lists a run with its file, profile, outcome and duration, newest first', async () => {
    const api = await getApi();
    await openFixture('hello.py', [2, 3]);
    const r = await settlesWithin(startCommand<RunResult>('sandboxRunner.run'), RUN_MS, 'run');
    const newest = api.recentRuns()[0];
    assert.ok(newest, 'no recent run listed');
    assert.equal(newest.label, 'selection of hello.py (lines 2-3)');
    assert.equal(newest.kind, 'selection');
    assert.equal(newest.profileName, 'python');
    assert.equal(newest.outcome, r.outcome);
    assert.equal(newest.exitCode, 0);
    assert.ok(newest.durationMs > 0 && Math.abs(newest.durationMs - r.durationMs) < 2, `duration ${newest.durationMs} vs ${r.durationMs}`);
    assert.ok(!('code' in newest) && !JSON.stringify(newest).includes('HOST-PY-SELECTED'), 'the kept entry holds code');
    const shown = await settlesWithin(startCommand<string>('sandboxRunner.showRunOutput', newest.id), 10_000, 'showRunOutput');
    assert.match(shown, /HOST-PY-SELECTED-B 42/);
    assert.match(vscode.window.activeTextEditor?.document.getText() ?? '', /HOST-PY-SELECTED-A/, 'the output document is not shown');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('Copy as sandbox-run Command: the copied text, run by bash -c, runs the same selection with the same arguments and result', async () => {
    const api = await getApi();
    await openFixture('rerun_argv.py', [1, 4]);
    const run = await outputOf(api, () => settlesWithin(startCommand<RunResult>('sandboxRunner.runWithArguments', undefined, ARGS_TEXT), RUN_MS, 'runWithArguments'));
    assert.equal(run.value.exitCode, 3, run.value.message);
    assert.equal(api.recentRuns()[0]?.kind, 'selection');
    const text = await settlesWithin(startCommand<string>('sandboxRunner.copyAsCli'), 10_000, 'copyAsCli');
    assert.equal(await vscode.env.clipboard.readText(), text, 'the command line is not on the clipboard');
    assert.match(text, /^node '?\/\S+\/dist\/cli\.js'? /, `the command does not call the packaged CLI by its path:\n${text}`);
    assert.match(text, / --profile-json '\{.*\}' - -- .* <<'SANDBOX_RUN_EOF'\n/);
    const pasted = await bash(text);
    assert.equal(pasted.code, 3, pasted.stderr);
    assert.equal(pasted.stdout, `${ARGV_LINE}\n`);
    assert.match(pasted.stderr, /^RERUN-STDERR$/m);
    assert.ok(run.text.includes(ARGV_LINE) && run.text.includes('RERUN-STDERR'), run.text);
    assert.deepEqual(await ownContainers(), []);
  });
});
