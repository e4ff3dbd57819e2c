/** The profiles tree: built-in and workspace profiles, and the invalid workspace profile's problem. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ProfileSummary } from '../../../src/vscode/api';
import { IMAGES, getApi } from './helpers';

function byName(profiles: readonly ProfileSummary[], name: string): ProfileSummary {
  const p = profiles.find((x) => x.name === name);
  assert.ok(p, `the tree has no profile "${name}" (it has: ${profiles.map((x) => x.name).join(', ')})`);
  return p;
}

describe('profiles tree (host)', function () {
  it('lists the built-in profiles', async function () {
    const profiles = (await getApi()).profiles();
    const node = byName(profiles, 'node');
    assert.equal(node.source, 'built-in');
    assert.equal(node.valid, true);
    assert.equal(node.image, 'node:20-slim');
    assert.equal(node.network, 'none');
  });

  it('lists workspace profiles, merged over the built-ins', async function () {
    const profiles = (await getApi()).profiles();
    const python = byName(profiles, 'python');
    assert.equal(python.source, 'workspace');
    assert.equal(python.valid, true, python.problems.join('\n'));
    assert.equal(python.image, IMAGES.python);
    const shell = byName(profiles, 'shell');
    assert.equal(shell.source, 'workspace');
    assert.equal(shell.image, IMAGES.busybox);
    assert.equal(byName(profiles, 'no-image').source, 'workspace');
  });

  it('shows the invalid workspace profile with its setting key and what is allowed', async function () {
    const broken = byName((await getApi()).profiles(), 'broken');
    assert.equal(broken.source, 'workspace');
    assert.equal(broken.valid, false);
    assert.ok(broken.problems.length > 0, 'the invalid profile lists no problems');
    const pids = broken.problems.find((p) => p.startsWith('sandboxRunner.profiles.broken.limits.pids'));
    assert.ok(pids, `no problem names sandboxRunner.profiles.broken.limits.pids: ${JSON.stringify(broken.problems)}`);
    assert.match(pids, /8/, `the problem does not say what is allowed: ${pids}`);
  });

  it('keeps the invalid profile from running', async function () {
    await getApi();
    const all = await vscode.commands.getCommands(true);
    assert.ok(all.includes('sandboxRunner.runWithProfile'), 'command sandboxRunner.runWithProfile is not registered');
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ language: 'shellscript', content: 'echo HOST-BROKEN-RAN\n' }));
    assert.ok(editor);
    const api = await getApi();
    const before = api.outputText();
    const result: unknown = await Promise.race([
      vscode.commands.executeCommand('sandboxRunner.runWithProfile', 'broken'),
      new Promise((r) => setTimeout(() => r('timeout'), 15_000)),
    ]);
    await vscode.commands.executeCommand('notifications.clearAll');
    assert.notEqual(result, 'timeout', 'runWithProfile("broken") did not settle within 15 s');
    assert.doesNotMatch(api.outputText().slice(before.length), /HOST-BROKEN-RAN/, 'the invalid profile ran');
    assert.ok(!result || (result as { outcome?: string }).outcome !== 'exited', `the invalid profile ran: ${JSON.stringify(result)}`);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
