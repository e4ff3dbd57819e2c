/**
 * Files beside the snippet (issue 12) through the real Run command: `workspace: "ro"` on the
 * python profile in user settings (no consent needed; the same image as the fixture's workspace
 * profile, so the workspace changes nothing the user granted) runs a saved file from its mirrored
 * path in the workspace mount, so a sibling import and a relative data file resolve as in a terminal.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { IMAGES, assertRunResult, cleanUp, getApi, openFixture, outputOf, ownContainers, settlesWithin, startCommand, workspaceFolder } from './helpers';

const RUN_MS = 30_000;

describe('files beside the snippet (host)', function () {
  this.timeout(60_000);
  const config = () => vscode.workspace.getConfiguration('sandboxRunner');
  afterEach(async () => {
    await config().update('profiles', undefined, vscode.ConfigurationTarget.Global);
    await cleanUp();
  });

  it('a saved file imports its sibling module and reads a relative data file (workspace: "ro")', async function () {
    await config().update('profiles', { python: { image: IMAGES.python, workspace: 'ro' } }, vscode.ConfigurationTarget.Global);
    const api = await getApi();
    await openFixture('beside/main.py');
    const { value: result, text } = await outputOf(api, () => settlesWithin(startCommand('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run'));
    assertRunResult(result, 'sandboxRunner.run');
    assert.equal(result.exitCode, 0, `${result.message}\n${text}`);
    const name = workspaceFolder().uri.fsPath.split('/').pop()!;
    assert.match(text, /HOST-WS-GREET hello host/);
    assert.match(text, /HOST-WS-DATA beside the script/);
    assert.ok(text.includes(`HOST-WS-CWD /workspace/${name}/beside`), text);
    assert.match(text, /mounted read-only at \/workspace\/[^;]+; \d+ entr(y|ies) masked/);
    assert.deepEqual(await ownContainers(), [], 'containers left behind');
  });

  it('the built-in behaviour without it: the same file fails with ModuleNotFoundError (the control)', async function () {
    const api = await getApi();
    await openFixture('beside/main.py');
    const { value: result, text } = await outputOf(api, () => settlesWithin(startCommand('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run'));
    assertRunResult(result, 'sandboxRunner.run');
    assert.equal(result.exitCode, 1, result.message);
    assert.match(text, /ModuleNotFoundError: No module named 'helper'/);
  });
});
