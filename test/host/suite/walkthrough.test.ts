/** The getting-started walkthrough (issue 12): every step's commands exist and its media ships; the sample runs. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { assertRunResult, cleanUp, EXTENSION_ID, getApi, outputOf, settlesWithin, startCommand } from './helpers';

interface Step {
  readonly id: string;
  readonly description: string;
  readonly media: { readonly markdown?: string; readonly image?: string };
  readonly completionEvents?: readonly string[];
}

/** The contributed walkthrough steps, read from the loaded extension's package.json. */
function steps(): Step[] {
  const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { walkthroughs?: { steps: Step[] }[] } };
  return (pkg.contributes.walkthroughs ?? []).flatMap((w) => w.steps);
}

/** Command ids of `command:` links in Markdown text (descriptions and step media). */
function linkedCommands(text: string): string[] {
  return [...text.matchAll(/\(command:([A-Za-z0-9_.-]+)/g)].map((m) => m[1]!);
}

describe('walkthrough (host)', function () {
  this.timeout(60_000);
  afterEach(cleanUp);

  it('every step\'s completion command and every linked command is registered, and every step\'s media ships', async function () {
    await getApi();
    const all = new Set(await vscode.commands.getCommands(true));
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    assert.deepEqual(steps().map((s) => s.id), ['checkEngine', 'pullImage', 'runSample', 'runInteractive']);
    for (const step of steps()) {
      const events = step.completionEvents ?? [];
      assert.ok(events.length > 0, `${step.id}: no completionEvents`);
      for (const e of events) {
        const command = /^onCommand:(.+)$/.exec(e)?.[1];
        assert.ok(command, `${step.id}: completion event ${e} is not onCommand`);
        assert.ok(all.has(command), `${step.id}: completion command ${command} is not registered`);
      }
      const media = step.media.markdown ?? step.media.image;
      assert.ok(media, `${step.id}: no media`);
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(ext.extensionUri, media)));
      for (const command of [...linkedCommands(step.description), ...linkedCommands(text)]) {
        assert.ok(all.has(command), `${step.id}: linked command ${command} is not registered`);
      }
      assert.ok(linkedCommands(step.description).length > 0, `${step.id}: the description has no button`);
    }
  });

  it('the sample step opens an untitled Python sample that runs in the sandbox without network or a writable file system', async function () {
    const api = await getApi();
    await settlesWithin(startCommand('sandboxRunner.checkEngine'), 20_000, 'sandboxRunner.checkEngine');
    const editor = await settlesWithin(startCommand<vscode.TextEditor>('sandboxRunner.openSample'), 10_000, 'sandboxRunner.openSample');
    assert.equal(editor.document.isUntitled, true);
    assert.equal(editor.document.languageId, 'python');
    assert.equal(vscode.window.activeTextEditor?.document, editor.document);
    const { value: result, text } = await outputOf(api, () => settlesWithin(startCommand('sandboxRunner.run'), 30_000, 'sandboxRunner.run'));
    assertRunResult(result, 'sandboxRunner.run');
    assert.equal(result.exitCode, 0, result.message);
    assert.match(text, /network: blocked as expected/);
    assert.match(text, /file system: read-only as expected/);
    const interactive = await settlesWithin(startCommand<vscode.TextEditor>('sandboxRunner.openSample', 'interactive'), 10_000, 'openSample interactive');
    assert.match(interactive.document.getText(), /input\(/);
    for (const doc of [editor.document, interactive.document]) {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });
});
