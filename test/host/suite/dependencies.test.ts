/**
 * Dependencies from the editor (issue 22): a PEP 723 file asks in a modal before its first install
 * (declined: nothing runs; allowed: the install shows "installing", its output lands under the
 * run's header, and the program runs with the set), the answer is remembered for the set, and a
 * Markdown block's PEP 723 header asks the same way. The index is the suite's own (test/support/pipIndex.ts)
 * on an `--internal` network it creates and removes; the install settings point at it as a user's would.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { dependencySetKey } from '../../../src/core/deps/cacheKey';
import { installEnvironment } from '../../../src/core/deps/declared';
import type { RunResult } from '../../../src/core/run/result';
import { LANGUAGE_IMAGES } from '../../support/images';
import { PIP_INDEX_SCRIPT, PIP_INDEX_URL } from '../../support/pipIndex';
import { assertRunResult, cleanUp, docker, fixture, getApi, IMAGES, outputOf, ownContainers, settlesWithin, startCommand, waitFor } from './helpers';

const suffix = `${process.pid}-${Date.now().toString(36)}`;
const NET = `sandbox-runner-test-hostdeps-${suffix}`;
const REGISTRY = `sandbox-runner-test-hostreg-${suffix}`;
const INSTALL = 'Install and Run';

/** Answers the extension's modal warnings with `answers` in turn (button titles; undefined: dismissed), recording their message and detail. */
function answerModals(answers: (string | undefined)[]): { asked: { message: string; detail: string }[]; dispose(): void } {
  const win = vscode.window as unknown as Record<string, (...args: unknown[]) => unknown>;
  const original = win.showWarningMessage!;
  const asked: { message: string; detail: string }[] = [];
  win.showWarningMessage = function (this: unknown, ...args: unknown[]) {
    const options = args[1] as { modal?: boolean; detail?: string } | undefined;
    if (typeof options !== 'object' || !options?.modal) return original.apply(this, args);
    asked.push({ message: String(args[0]), detail: String(options.detail) });
    // The answer is a button's title: the button itself is returned (a string or a MessageItem).
    const answer = answers.shift();
    const items = args.slice(2);
    return Promise.resolve(items.find((i) => (typeof i === 'string' ? i : (i as { title?: string })?.title) === answer) ?? answer);
  };
  return { asked, dispose: () => (win.showWarningMessage = original) };
}

/** Runs deps.py with the user profile `pydeps`; the result, the output and every status-bar text seen meanwhile. */
async function runDepsFile(): Promise<{ value: RunResult | undefined; text: string; status: string[] }> {
  const api = await getApi();
  const doc = await vscode.workspace.openTextDocument(fixture('deps.py'));
  await vscode.window.showTextDocument(doc, { preview: false });
  const status: string[] = [];
  const timer = setInterval(() => status.push(api.statusBarText() ?? ''), 50);
  try {
    const r = await outputOf(api, () => settlesWithin(startCommand<RunResult | undefined>('sandboxRunner.runWithProfile', 'pydeps'), 180_000, 'run deps.py'));
    return { ...r, status };
  } finally {
    clearInterval(timer);
  }
}

describe('dependencies from the editor (host)', function () {
  this.timeout(300_000);
  const config = () => vscode.workspace.getConfiguration('sandboxRunner');
  let savedProfiles: unknown;

  before(async function () {
    await docker(['image', 'inspect', '--format', '{{.Id}}', LANGUAGE_IMAGES.pythonPip]).catch((e: Error) => {
      throw new Error(`${e.message}: build it with bash scripts/build-test-images.sh (the dependency suites need ${LANGUAGE_IMAGES.pythonPip})`);
    });
    await docker(['network', 'create', '--internal', NET]);
    await docker(['run', '-d', '--rm', '--name', REGISTRY, '--network', NET, '--network-alias', 'registry', '--pull', 'never', IMAGES.python, 'python3', '-c', PIP_INDEX_SCRIPT]);
    await waitFor(async () => (await docker(['logs', REGISTRY])).includes('ready'), 20_000, 'the test index');
    savedProfiles = config().inspect('profiles')?.globalValue;
    await config().update('profiles', { ...(savedProfiles as object), pydeps: { image: LANGUAGE_IMAGES.pythonPip, command: ['python3', '${file}'] } }, vscode.ConfigurationTarget.Global);
    await config().update('dependencies.network', NET, vscode.ConfigurationTarget.Global);
    await config().update('dependencies.pipIndexUrl', PIP_INDEX_URL, vscode.ConfigurationTarget.Global);
    // pip refuses a plain-http index unless its host is trusted; the extension host's environment reaches the install container only.
    process.env.PIP_TRUSTED_HOST = 'registry';
  });

  after(async () => {
    delete process.env.PIP_TRUSTED_HOST;
    await config().update('profiles', savedProfiles, vscode.ConfigurationTarget.Global);
    await config().update('dependencies.network', undefined, vscode.ConfigurationTarget.Global);
    await config().update('dependencies.pipIndexUrl', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('sandboxRunner.revokeInstallConsents');
    await docker(['rm', '-f', REGISTRY]).catch(() => undefined);
    // Only this suite's sets: their keys hash the pip image and this suite's specs and index.
    const imageId = (await docker(['image', 'inspect', '--format', '{{.Id}}', LANGUAGE_IMAGES.pythonPip])).trim();
    for (const specs of [['tinyhello>=1'], ['tinyhello']]) {
      const key = dependencySetKey({ imageId, manager: 'pip', specs, installEnv: installEnvironment({ pipIndexUrl: '', npmRegistry: '' }, { ...process.env, PIP_INDEX_URL, PIP_TRUSTED_HOST: 'registry' }) });
      const volumes = (await docker(['volume', 'ls', '-q', '--filter', `label=sandbox-runner.deps-key=${key}`])).split('\n').filter(Boolean);
      if (volumes.length) await docker(['volume', 'rm', '-f', ...volumes]).catch(() => undefined);
    }
    await docker(['network', 'rm', NET]).catch(() => undefined);
  });
  afterEach(cleanUp);

  it('a PEP 723 file: declined runs nothing; allowed installs ("installing", output under the header) and runs; again from the cache without asking; "Revoke Dependency Install Consents" (not the loosening one) asks again', async function () {
    const modals = answerModals([undefined, INSTALL, undefined]);
    try {
      const declined = await runDepsFile();
      assert.equal(declined.value, undefined, 'a declined install started a run');
      assert.equal(modals.asked.length, 1, 'no modal for the PEP 723 block');
      assert.equal(modals.asked[0]!.message, 'Install 1 packages for this script?');
      const detail = modals.asked[0]!.detail;
      assert.match(detail, /• "tinyhello>=1"/);
      assert.ok(detail.includes(`Index: ${PIP_INDEX_URL}`), detail);
      assert.match(detail, /Network only while installing; the program runs without network\./);
      assert.match(declined.text, /Not run: installing "tinyhello>=1" for .*deps\.py.* was not allowed/);
      assert.deepEqual(await ownContainers(), [], 'a declined run left a container');

      const allowed = await runDepsFile();
      assertRunResult(allowed.value, 'the allowed run');
      assert.equal(modals.asked.length, 2, 'the allowed run was not asked');
      assert.deepEqual([allowed.value.outcome, allowed.value.exitCode], ['exited', 0], `${allowed.value.message}\n${allowed.text}`);
      assert.match(allowed.text, /hello from tinyhello DEPS-OK/);
      // The installer's output comes after the header and before the program's.
      const header = allowed.text.indexOf('▶');
      const installed = allowed.text.indexOf(`dependencies installed on network ${NET}: "tinyhello>=1"`);
      assert.ok(header >= 0 && installed > header && installed < allowed.text.indexOf('DEPS-OK'), allowed.text);
      assert.match(allowed.text, /Successfully installed tinyhello-1\.0/);
      assert.ok(allowed.status.some((s) => /Sandbox installing/.test(s)), `the status bar never said installing: ${JSON.stringify([...new Set(allowed.status)])}`);

      const again = await runDepsFile();
      assertRunResult(again.value, 'the second run');
      assert.equal(modals.asked.length, 2, 'the remembered answer asked again');
      assert.equal(again.value.exitCode, 0, again.text);
      assert.match(again.text, /dependencies from the cache: "tinyhello>=1"/);

      // Install consents have their own revoke: revoking loosening consents keeps them; revoking install consents asks again.
      await vscode.commands.executeCommand('sandboxRunner.revokeConsents');
      const kept = await runDepsFile();
      assertRunResult(kept.value, 'the run after revoking loosening consents');
      assert.equal(modals.asked.length, 2, 'revoking loosening consents forgot the install consent');
      await vscode.commands.executeCommand('sandboxRunner.revokeInstallConsents');
      const revoked = await runDepsFile();
      assert.equal(revoked.value, undefined, 'a declined install started a run');
      assert.equal(modals.asked.length, 3, 'revoking install consents did not ask again');
    } finally {
      modals.dispose();
    }
  });

  it('a Markdown block with a PEP 723 header asks before installing; declined, nothing runs', async function () {
    const api = await getApi();
    const doc = await vscode.workspace.openTextDocument(fixture('deps.md'));
    await vscode.window.showTextDocument(doc, { preview: false });
    let lens: vscode.CodeLens | undefined;
    await waitFor(async () => {
      const all = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 100)) ?? [];
      lens = all.find((l) => l.command?.command === 'sandboxRunner.runCodeBlock');
      return lens !== undefined;
    }, 10_000, 'the python block\'s lens');
    const modals = answerModals([undefined]);
    try {
      const { command, arguments: args = [] } = lens!.command!;
      const { value, text } = await outputOf(api, () => settlesWithin(startCommand<RunResult | undefined>(command, ...args), 30_000, command));
      assert.equal(value, undefined, 'a declined install started a run');
      assert.equal(modals.asked.length, 1, 'no modal for the block\'s PEP 723 header');
      assert.match(modals.asked[0]!.detail, /• "tinyhello"/);
      assert.match(text, /Not run: installing "tinyhello"/);
    } finally {
      modals.dispose();
    }
  });

  it('the ModuleNotFoundError Quick Fix adds the module to a new PEP 723 block, which then installs and runs', async function () {
    const api = await getApi();
    const doc = await vscode.workspace.openTextDocument(fixture('needsmod.py'));
    const original = doc.getText();
    assert.ok(!original.includes('# /// script'), `the fixture has a block already: ${JSON.stringify(original)}`);
    await vscode.window.showTextDocument(doc, { preview: false });
    const run = async () => {
      // "Run with Profile" runs the active editor: make sure it is this file (not the Markdown file of the case before).
      await waitFor(() => vscode.window.activeTextEditor?.document.uri.toString() === doc.uri.toString(), 5_000, 'needsmod.py as the active editor');
      return outputOf(api, () => settlesWithin(startCommand<RunResult | undefined>('sandboxRunner.runWithProfile', 'pydeps'), 180_000, 'run needsmod.py'));
    };
    const modals = answerModals([INSTALL]);
    try {
      const failed = await run();
      assert.equal(modals.asked.length, 0, `a file without a block asked to install: ${JSON.stringify(modals.asked)} ${JSON.stringify(doc.getText())}`);
      assertRunResult(failed.value, 'the first run');
      assert.equal(failed.value.exitCode, 1, failed.text);
      const ours = () => vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source === 'Sandbox Runner');
      await waitFor(() => ours().length > 0, 5_000, 'the ModuleNotFoundError diagnostic');
      assert.match(ours()[0]!.message, /ModuleNotFoundError: No module named 'tinyhello'/);
      const actions = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, ours()[0]!.range)) ?? [];
      const fix = actions.find((a) => a.title === 'Add tinyhello to this script\'s dependencies');
      assert.ok(fix?.edit, `no Quick Fix among ${JSON.stringify(actions.map((a) => a.title))}`);
      assert.ok(await vscode.workspace.applyEdit(fix.edit));
      assert.ok(doc.getText().startsWith('# /// script\n# dependencies = ["tinyhello"]\n# ///\n'), doc.getText());
      const fixed = await run();
      assertRunResult(fixed.value, 'the run after the Quick Fix');
      assert.equal(modals.asked.length, 1, 'the new block did not ask before installing');
      assert.equal(fixed.value.exitCode, 0, fixed.text);
      assert.match(fixed.text, /hello from tinyhello QUICKFIX-OK/);
    } finally {
      modals.dispose();
      // Running a file saves it: put the fixture back as it was.
      await vscode.workspace.fs.writeFile(doc.uri, new TextEncoder().encode(original));
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  });
});
