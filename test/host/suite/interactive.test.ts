/**
 * Interactive runs (issue 11) in the real host: the run's pseudoterminal gives the program what
 * is typed into it (`Terminal.sendText` reaches `Pseudoterminal.handleInput`), Ctrl+C reaches the
 * program's TTY, closing the terminal cancels the run and removes its container, and
 * `onDidFinishRun` fires. What the terminal shows is read through the API's `terminalText`.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RunResult } from '../../../src/core/run/result';
import type { FinishedRun, SandboxRunnerApi } from '../../../src/vscode/api';
import { assertRunResult, cleanUp, containers, getApi, openFixture, ownContainers, requireCommand, settlesWithin, startCommand, waitFor } from './helpers';

const RUN_MS = 30_000;
const TERMINAL_NAME = 'Sandbox: ask.py (python)';

/** An interactive run of ask.py in progress: its command promise, terminal and run id. */
interface Started {
  readonly pending: Promise<RunResult>;
  readonly terminal: vscode.Terminal;
  readonly runId: string;
}

/** Runs "Run in Sandbox (Interactive)" on ask.py; resolves once the program asks its first question. */
async function startAsk(api: SandboxRunnerApi): Promise<Started> {
  await requireCommand('sandboxRunner.runInteractive');
  await openFixture('ask.py');
  let terminal: vscode.Terminal | undefined;
  const sub = vscode.window.onDidOpenTerminal((t) => t.name === TERMINAL_NAME && (terminal ??= t));
  const pending = startCommand<RunResult>('sandboxRunner.runInteractive');
  try {
    await waitFor(() => terminal !== undefined, 15_000, `a terminal named "${TERMINAL_NAME}"`);
    await waitFor(() => api.activeRuns().length === 1, 15_000, 'the interactive run to start');
  } finally {
    sub.dispose();
  }
  const runId = api.activeRuns()[0]!.id;
  await waitFor(() => /first\? $/.test(shown(api, runId)), RUN_MS, 'the first prompt').catch((err: Error) => {
    throw new Error(`${err.message}; the terminal shows ${JSON.stringify(shown(api, runId))}; the output channel ends ${JSON.stringify(api.outputText().slice(-600))}`);
  });
  return { pending, terminal: terminal!, runId };
}

/** The terminal's text as a user reads it: escape sequences removed, CRLF as LF. */
function shown(api: SandboxRunnerApi, runId: string): string {
  return (api.terminalText(runId) ?? '').replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '').replace(/\r\n/g, '\n');
}

describe('interactive runs (host)', function () {
  this.timeout(90_000);
  const opened: vscode.Terminal[] = [];
  afterEach(async () => {
    for (const t of opened.splice(0)) t.dispose();
    await cleanUp();
  });

  it('an interactive Python run reads two lines typed into its terminal and prints them; onDidFinishRun fires with the outcome', async function () {
    const api = await getApi();
    const finished: FinishedRun[] = [];
    const sub = api.onDidFinishRun((r) => finished.push(r));
    try {
      const run = await startAsk(api);
      opened.push(run.terminal);
      assert.equal(api.statusBarText()?.includes('Sandbox 1'), true, `status bar: ${String(api.statusBarText())}`);
      run.terminal.sendText('Ada');
      await waitFor(() => /second\? $/.test(shown(api, run.runId)), RUN_MS, `the second prompt; the terminal shows ${JSON.stringify(shown(api, run.runId))}`);
      run.terminal.sendText('Lovelace');
      const result = await settlesWithin(run.pending, RUN_MS, 'sandboxRunner.runInteractive');
      assertRunResult(result, 'sandboxRunner.runInteractive');
      const text = shown(api, run.runId);
      assert.equal(result.outcome, 'exited', `${result.message}\n${text}`);
      assert.equal(result.exitCode, 0, `${result.message}\n${text}`);
      assert.match(text, /HOST-ASK isatty True size [1-9]\d*x[1-9]\d*/, text);
      assert.match(text, /HOST-ASK got 'Ada' and 'Lovelace'/, text);
      assert.match(text, /stdout and stderr are merged/, 'the header does not say the streams are merged');
      assert.match(text, /■ exited with code 0 · \d+ ms\n$/, `the result line is not the last line:\n${text}`);
      await waitFor(() => finished.length > 0, 5_000, 'onDidFinishRun');
      assert.equal(finished[0]!.id, run.runId);
      assert.equal(finished[0]!.result.outcome, 'exited');
      assert.ok(finished[0]!.result.durationMs > 0, 'the finished run has no duration');
      // A finished run's terminal stays, and ignores input.
      assert.ok(vscode.window.terminals.includes(run.terminal), 'the terminal of the finished run was closed');
      run.terminal.sendText('ignored');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(shown(api, run.runId), text, 'input after the run changed the terminal');
    } finally {
      sub.dispose();
    }
  });

  it('Ctrl+C typed into the terminal interrupts the program (KeyboardInterrupt)', async function () {
    const api = await getApi();
    const run = await startAsk(api);
    opened.push(run.terminal);
    run.terminal.sendText('\x03', false);
    const result = await settlesWithin(run.pending, RUN_MS, 'sandboxRunner.runInteractive after Ctrl+C');
    assertRunResult(result, 'sandboxRunner.runInteractive');
    const text = shown(api, run.runId);
    assert.match(text, /KeyboardInterrupt/, text);
    assert.equal(result.outcome, 'exited', `Ctrl+C is the program's own SIGINT, not a cancel: ${result.message}`);
  });

  it('Ctrl+D typed at the start of a line ends the program\'s input (EOF on its TTY)', async function () {
    const api = await getApi();
    await openFixture('readall.py');
    let runId: string | undefined;
    let terminal: vscode.Terminal | undefined;
    const sub = api.onDidStartRun((r) => (runId ??= r.id));
    const subTerm = vscode.window.onDidOpenTerminal((t) => (terminal ??= t));
    try {
      const pending = startCommand<RunResult>('sandboxRunner.runInteractive');
      await waitFor(() => runId !== undefined && /HOST-READALL ready/.test(shown(api, runId)) && terminal !== undefined, RUN_MS, 'readall.py to be ready');
      opened.push(terminal!);
      terminal!.sendText('one');
      await waitFor(() => /ready\r?\none\r?\n/.test(shown(api, runId!)), 10_000, 'the echo of "one"');
      terminal!.sendText('\x04', false);
      const result = await settlesWithin(pending, RUN_MS, 'sandboxRunner.runInteractive after Ctrl+D');
      assertRunResult(result, 'sandboxRunner.runInteractive');
      const text = shown(api, runId!);
      assert.equal(result.outcome, 'exited', `${result.message}\n${text}`);
      assert.match(text, /HOST-READALL got 'one\\n'/, text);
    } finally {
      sub.dispose();
      subTerm.dispose();
    }
  });

  it('the terminal keeps colours but drops titles, OSC 52, OSC 8 command links and shell-integration sequences', async function () {
    const api = await getApi();
    await openFixture('ttyhostile.py');
    let runId: string | undefined;
    const sub = api.onDidStartRun((r) => (runId ??= r.id));
    let terminal: vscode.Terminal | undefined;
    const subTerm = vscode.window.onDidOpenTerminal((t) => (terminal ??= t));
    try {
      const result = await settlesWithin(startCommand<RunResult>('sandboxRunner.runInteractive'), RUN_MS, 'sandboxRunner.runInteractive');
      assertRunResult(result, 'sandboxRunner.runInteractive');
      if (terminal) opened.push(terminal);
      assert.equal(result.outcome, 'exited', result.message);
      const raw = api.terminalText(runId!) ?? '';
      assert.match(raw, /HOST-TTY-DONE/, JSON.stringify(raw));
      assert.ok(raw.includes('\x1b[31mHOST-TTY-RED\x1b[0m'), `the colour was not kept: ${JSON.stringify(raw)}`);
      assert.match(raw, /HOST-TTY-CLICK/, 'the link text is shown as text');
      for (const gone of ['\x1b]', '\x9d', 'HOST-EVIL-TITLE', 'SE9TVC1DTElQQk9BUkQ', 'command:', 'HOST-FAKE-COMMAND', 'file:///etc', '\x1b[21t', 'HOST-C1-TITLE']) {
        assert.ok(!raw.includes(gone), `the terminal was sent ${JSON.stringify(gone)}: ${JSON.stringify(raw)}`);
      }
      assert.equal(terminal?.name, 'Sandbox: ttyhostile.py (python)');
    } finally {
      sub.dispose();
      subTerm.dispose();
    }
  });

  it('with sandboxRunner.interactive "always", the plain Run command opens a terminal', async function () {
    const api = await getApi();
    const config = vscode.workspace.getConfiguration('sandboxRunner');
    await config.update('interactive', 'always', vscode.ConfigurationTarget.Global);
    let terminal: vscode.Terminal | undefined;
    const subTerm = vscode.window.onDidOpenTerminal((t) => (terminal ??= t));
    try {
      await openFixture('hello.py');
      const result = await settlesWithin(startCommand<RunResult>('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run');
      assertRunResult(result, 'sandboxRunner.run');
      assert.equal(result.outcome, 'exited', result.message);
      assert.equal(terminal?.name, 'Sandbox: hello.py (python)', 'no terminal opened for the run');
      opened.push(terminal!);
      assert.match(api.outputText(), /interactive: input and output are in the terminal "Sandbox: hello\.py \(python\)"\n■ exited with code 0/);
    } finally {
      subTerm.dispose();
      await config.update('interactive', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('closing the terminal of a running interactive run cancels it and leaves no container', async function () {
    const api = await getApi();
    const run = await startAsk(api);
    const names = await containers('label=sandbox-runner=1');
    run.terminal.dispose();
    const result = await settlesWithin(run.pending, RUN_MS, 'sandboxRunner.runInteractive after closing its terminal');
    assertRunResult(result, 'sandboxRunner.runInteractive');
    assert.equal(result.outcome, 'cancelled', result.message);
    assert.ok(names.includes(result.containerName), `the run's container ${result.containerName} was not among ${names.join(', ')}`);
    assert.deepEqual(await containers(`name=^/?${result.containerName}$`), [], `container ${result.containerName} is still there`);
    assert.deepEqual(await ownContainers(), [], 'containers of this window are left');
    assert.equal(api.terminalText(run.runId), undefined, 'the closed terminal is still kept');
  });
});
