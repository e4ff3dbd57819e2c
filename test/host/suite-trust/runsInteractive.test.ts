/**
 * Interactive runs in Restricted Mode (issue 11): they are refused or allowed by the same rules as
 * plain runs (one path, commands.ts `execute`), and the hostile workspace's
 * `sandboxRunner.interactive: "always"` is ignored like its other values. Runs after runs.test.ts,
 * which leaves the user python profile (USER_PYTHON) set.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RunResult } from '../../../src/core/run/result';
import type { ActiveRunInfo } from '../../../src/vscode/api';
import { IMAGES, settlesWithin, startCommand } from '../suite/helpers';
import { USER_PYTHON, assertFakeDockerNeverRan, getApi, nonWarmContainers, openFile, probeLines, runActiveEditor, runCommand, runsStartedBy, setUserProfiles } from './helpers';

/** Terminals opened while `fn` runs; they are closed afterwards. */
async function terminalsOpenedBy<T>(fn: () => Promise<T>): Promise<{ value: T; terminals: vscode.Terminal[] }> {
  const terminals: vscode.Terminal[] = [];
  const sub = vscode.window.onDidOpenTerminal((t) => terminals.push(t));
  try {
    return { value: await fn(), terminals };
  } finally {
    sub.dispose();
    for (const t of terminals) t.dispose();
  }
}

describe('interactive runs in Restricted Mode (trust host)', function () {
  this.timeout(60_000);
  before(() => setUserProfiles(USER_PYTHON));

  it('the workspace\'s sandboxRunner.interactive "always" is ignored: Run writes to the output channel, no terminal opens', async function () {
    const api = await getApi();
    await openFile('probe.py');
    const { value, terminals } = await terminalsOpenedBy(() => runActiveEditor(api));
    assert.equal(terminals.length, 0, `a terminal opened: ${terminals.map((t) => t.name).join(', ')}`);
    assert.equal(value.result.outcome, 'exited', value.result.message);
    assert.match(value.text, /PROBE done/, `the output channel does not show the program's output:\n${value.text}`);
  });

  it('Run in Sandbox (Interactive) uses the user profile with the floor, as a plain run does', async function () {
    const api = await getApi();
    await openFile('probe.py');
    let runId: string | undefined;
    let text = '';
    const sub = api.onDidStartRun((r: ActiveRunInfo) => (runId ??= r.id));
    const { value, terminals } = await terminalsOpenedBy(async () => {
      const result = await settlesWithin(startCommand<RunResult>('sandboxRunner.runInteractive'), 40_000, 'sandboxRunner.runInteractive');
      // As a user reads it: without the colour sequences, CRLF as LF.
      text = (api.terminalText(runId ?? '') ?? '').replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '').replace(/\r\n/g, '\n');
      return result;
    }).finally(() => sub.dispose());
    assert.equal(terminals.length, 1, 'no terminal opened for the interactive run');
    assert.equal(value?.outcome, 'exited', `${value?.message}\n${text}`);
    assert.match(text, new RegExp(`profile python \\(user\\) · image ${IMAGES.python.replace(/[./]/g, '\\$&')} · network off\\n`), text);
    const probe = probeLines(text);
    assert.equal(probe.get('net'), 'lo', `the container has a network besides loopback:\n${text}`);
    assert.equal(probe.get('uid'), '65534', text);
    for (const path of ['/host-etc', '/host-home', '/hostile']) assert.equal(probe.get(`mount ${path}`), 'absent', text);
    assert.deepEqual(await nonWarmContainers(), [], 'the run left its container');
    assertFakeDockerNeverRan('after an interactive run');
  });

  it('the workspace\'s defaultProfile is ignored for an interactive run too: a text file does not run and opens no terminal', async function () {
    const api = await getApi();
    await openFile('notes.txt');
    const { value: { value, terminals }, started } = await runsStartedBy(api, () => terminalsOpenedBy(() => runCommand(api, 'sandboxRunner.runInteractive')));
    assert.equal(value.value, undefined, `a text file ran: ${JSON.stringify(value.value)}`);
    assert.deepEqual(started, []);
    assert.equal(terminals.length, 0, 'a terminal opened for a refused run');
  });
});
