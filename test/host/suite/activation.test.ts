/** The extension loads in a real extension host, activates, and contributes its commands and view. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID, getApi, workspaceFolder } from './helpers';

const COMMANDS = [
  'sandboxRunner.run',
  'sandboxRunner.runFile',
  'sandboxRunner.runWithProfile',
  'sandboxRunner.runInteractive',
  'sandboxRunner.cancel',
  'sandboxRunner.cancelAll',
  'sandboxRunner.showOutput',
] as const;

describe('activation (host)', function () {
  it('opens the fixture workspace, trusted', function () {
    assert.match(workspaceFolder().uri.path, /test\/host\/fixtures\/workspace$/);
    assert.equal(vscode.workspace.isTrusted, true, 'the workspace is not trusted: the runner must pass --disable-workspace-trust');
  });

  it('is loaded from the repo and activates', async function () {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
    assert.equal(ext.extensionKind, vscode.ExtensionKind.Workspace);
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it('returns its API from activate()', async function () {
    const api = await getApi();
    assert.ok(Array.isArray(api.activeRuns()), 'activeRuns() does not return an array');
    assert.equal(typeof api.outputText(), 'string', 'outputText() does not return a string');
  });

  for (const command of COMMANDS) {
    it(`registers ${command}`, async function () {
      await vscode.extensions.getExtension(EXTENSION_ID)?.activate();
      const all = await vscode.commands.getCommands(true);
      assert.ok(all.includes(command), `command ${command} is not registered`);
    });
  }

  it('contributes the profiles tree view sandboxRunner.profiles', async function () {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    const views = (ext?.packageJSON as { contributes?: { views?: Record<string, { id: string }[]> } })?.contributes?.views ?? {};
    const ids = Object.values(views).flat().map((v) => v.id);
    assert.ok(ids.includes('sandboxRunner.profiles'), `package.json contributes no view sandboxRunner.profiles (views: ${JSON.stringify(ids)})`);
    // The workbench registers "<view id>.focus" for every contributed view.
    await vscode.commands.executeCommand('sandboxRunner.profiles.focus');
  });
});
