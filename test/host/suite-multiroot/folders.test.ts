/**
 * Multi-root workspaces (issue 12) in the real extension host: two folders, alpha and beta, whose
 * `.vscode/settings.json` give the python profile different env and timeouts. Each file runs with
 * its own folder's profile (settings read with `getConfiguration(section, document.uri)`), and
 * consent to a loosening (their identical "netpy" profile: network bridge) is asked per folder.
 * The consent modal is answered by wrapping `vscode.window.showWarningMessage` of the API object
 * this suite shares with the extension under development (see ../suite/quiet.test.ts).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RunResult } from '../../../src/core/run/result';
import { assertRunResult, cleanUp, getApi, outputOf, settlesWithin, startCommand } from '../suite/helpers';

const ALLOW = 'Allow for This Workspace';

function folder(name: string): vscode.WorkspaceFolder {
  const f = vscode.workspace.workspaceFolders?.find((w) => w.name === name);
  assert.ok(f, `no workspace folder "${name}": the runner must open test/host/fixtures/multiroot/multi.code-workspace`);
  return f;
}

/** Opens `file` of folder `name` and runs "Run in Sandbox"; the output it added. */
async function runIn(name: string, file: string): Promise<{ value: RunResult | undefined; text: string }> {
  const api = await getApi();
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder(name).uri, file));
  await vscode.window.showTextDocument(doc, { preview: false });
  return outputOf(api, () => settlesWithin(startCommand<RunResult | undefined>('sandboxRunner.run'), 45_000, `run ${name}/${file}`));
}

/** Answers the extension's modal warnings with `answers` in turn (undefined: dismissed), recording their messages. */
function answerModals(answers: (string | undefined)[]): { asked: string[]; dispose(): void } {
  const win = vscode.window as unknown as Record<string, (...args: unknown[]) => unknown>;
  const original = win.showWarningMessage!;
  const asked: string[] = [];
  win.showWarningMessage = function (this: unknown, ...args: unknown[]) {
    const options = args[1] as { modal?: boolean } | undefined;
    if (typeof options !== 'object' || !options?.modal) return original.apply(this, args);
    asked.push(String(args[0]));
    return Promise.resolve(answers.shift());
  };
  return { asked, dispose: () => (win.showWarningMessage = original) };
}

describe('multi-root workspace (host)', function () {
  this.timeout(90_000);
  afterEach(cleanUp);

  it('opens two folders whose settings differ, in a trusted window (trust is per window)', async function () {
    assert.deepEqual(vscode.workspace.workspaceFolders?.map((f) => f.name), ['alpha', 'beta']);
    assert.equal(vscode.workspace.isTrusted, true);
    const env = (n: string) => (vscode.workspace.getConfiguration('sandboxRunner', folder(n).uri).get<Record<string, { env?: Record<string, string> }>>('profiles') ?? {}).python?.env?.FOLDER_NAME;
    assert.deepEqual([env('alpha'), env('beta')], ['alpha', 'beta']);
  });

  it('each file runs with its own folder\'s python profile', async function () {
    const a = await runIn('alpha', 'which.py');
    assertRunResult(a.value, 'alpha/which.py');
    assert.equal(a.value.outcome, 'exited', `${a.value.message}\n${a.text}`);
    assert.match(a.text, /HOST-FOLDER alpha/, a.text);
    assert.match(a.text, /limits [^\n]* 21 s,/, a.text);
    const b = await runIn('beta', 'which.py');
    assertRunResult(b.value, 'beta/which.py');
    assert.equal(b.value.outcome, 'exited', `${b.value.message}\n${b.text}`);
    assert.match(b.text, /HOST-FOLDER beta/, b.text);
    assert.match(b.text, /limits [^\n]* 22 s,/, b.text);
  });

  it('consent to the same loosening is asked per folder: allowed in alpha, asked again (and declined) in beta', async function () {
    const modals = answerModals([ALLOW, undefined]);
    try {
      const first = await runIn('alpha', 'net.netpy');
      assert.equal(modals.asked.length, 1, `alpha's loosening was not asked for: ${JSON.stringify(modals.asked)}`);
      assert.match(modals.asked[0]!, /netpy/);
      assertRunResult(first.value, 'alpha/net.netpy');
      assert.match(first.text, /HOST-NETPY-RAN/, first.text);
      const again = await runIn('alpha', 'net.netpy');
      assertRunResult(again.value, 'alpha/net.netpy again');
      assert.equal(modals.asked.length, 1, 'alpha asked again after the user allowed it');
      const beta = await runIn('beta', 'net.netpy');
      assert.equal(modals.asked.length, 2, 'beta ran with the consent given for alpha');
      assert.equal(beta.value, undefined, 'beta ran although its consent was declined');
      assert.doesNotMatch(beta.text, /HOST-NETPY-RAN/, beta.text);
    } finally {
      modals.dispose();
    }
  });
});
