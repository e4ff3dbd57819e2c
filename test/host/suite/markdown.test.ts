/** Markdown code blocks (issue 12): a block runs through its CodeLens, and its errors point at the Markdown lines. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RunResult } from '../../../src/core/run/result';
import { assertRunResult, cleanUp, fixture, getApi, outputOf, settlesWithin, startCommand, waitFor } from './helpers';

const RUN_MS = 30_000;

/** The CodeLenses VS Code gets from every provider for `uri`, resolved. */
async function lensesOf(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
  return (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100)) ?? [];
}

/** Our lenses of `uri` ("Run in Sandbox"), by opening fence line (0-based). */
async function ourLenses(uri: vscode.Uri): Promise<Map<number, vscode.CodeLens>> {
  const ours = (await lensesOf(uri)).filter((l) => l.command?.command === 'sandboxRunner.runCodeBlock');
  return new Map(ours.map((l) => [l.range.start.line, l]));
}

/** Opens notes.md, waits for our lens on `line` (0-based fence line) and runs its command; the result and the output it added. */
async function runLens(line: number, what: string): Promise<{ doc: vscode.TextDocument; result: RunResult; text: string }> {
  const api = await getApi();
  const doc = await vscode.workspace.openTextDocument(fixture('notes.md'));
  await vscode.window.showTextDocument(doc, { preview: false });
  let lens: vscode.CodeLens | undefined;
  await waitFor(async () => (lens = (await ourLenses(doc.uri)).get(line)) !== undefined, 10_000, what);
  const { command, arguments: args = [] } = lens!.command!;
  const { value: result, text } = await outputOf(api, () => settlesWithin(startCommand(command, ...args), RUN_MS, command));
  assertRunResult(result, command);
  return { doc, result, text };
}

describe('Markdown code blocks (host)', function () {
  this.timeout(60_000);
  afterEach(cleanUp);

  it('shows "Run in Sandbox" above blocks whose language has a profile, and only those', async function () {
    await getApi();
    const doc = await vscode.workspace.openTextDocument(fixture('notes.md'));
    await vscode.window.showTextDocument(doc, { preview: false });
    let lenses = new Map<number, vscode.CodeLens>();
    await waitFor(async () => (lenses = await ourLenses(doc.uri)).size > 0, 10_000, 'the Markdown lenses');
    // ```python on line 5 and the quoted ```sh on line 19 (1-based); ```text, ```haskell and the
    // ```python inside <details> on line 29 (an HTML block: the preview shows no code block) get none.
    assert.deepEqual([...lenses.keys()], [4, 18]);
    assert.equal(lenses.get(4)!.command!.title, '$(play) Run in Sandbox');
    assert.match(lenses.get(4)!.command!.tooltip ?? '', /"python"/);
    assert.match(lenses.get(18)!.command!.tooltip ?? '', /"shell"/);
  });

  it('runs a Python block through its CodeLens: output framed with the block, error link and diagnostic at the Markdown line', async function () {
    const { doc, result, text } = await runLens(4, 'the python block\'s lens');
    assert.equal(result.exitCode, 1, result.message);
    assert.match(text, /python block of notes\.md \(lines 6-8\)/);
    assert.match(text, /MD-BLOCK-OUT/);
    // The traceback names line 3 of the snippet: Markdown line 8.
    assert.match(text, /\/sandbox\/main\.py", line 3/);

    const ours = () => vscode.languages.getDiagnostics(doc.uri).filter((d) => d.source === 'Sandbox Runner');
    await waitFor(() => ours().length > 0, 5_000, 'a Sandbox Runner diagnostic on notes.md');
    const [diagnostic, ...more] = ours();
    assert.equal(more.length, 0);
    assert.equal(diagnostic!.range.start.line, 7);
    assert.equal(diagnostic!.message, 'IndexError: list index out of range');

    // The output channel's link from the traceback opens notes.md at line 8.
    let out: vscode.TextDocument | undefined;
    await waitFor(() => (out = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'output' && d.getText().includes('MD-BLOCK-OUT'))) !== undefined, 10_000, 'the output document');
    const links = (await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', out!.uri, 1000)) ?? [];
    const toNotes = links.filter((l) => l.target?.path === doc.uri.path);
    assert.ok(toNotes.length >= 1, `links: ${JSON.stringify(links.map((l) => [out!.getText(l.range), l.target?.toString()]))}`);
    assert.equal(toNotes.at(-1)!.target!.fragment, 'L8');
  });

  it('runs a shell block inside a block quote without its "> " prefixes', async function () {
    const { result, text } = await runLens(18, 'the sh block\'s lens');
    assert.equal(result.exitCode, 0, result.message);
    assert.match(text, /shellscript block of notes\.md \(line 20\)/);
    assert.match(text, /MD-QUOTED-SH/);
  });

  it('sandboxRunner.markdownCodeLens: false removes the lenses; a stale or forged block argument runs nothing', async function () {
    await getApi();
    const doc = await vscode.workspace.openTextDocument(fixture('notes.md'));
    await vscode.window.showTextDocument(doc, { preview: false });
    await waitFor(async () => (await ourLenses(doc.uri)).size === 2, 10_000, 'the Markdown lenses');
    const config = vscode.workspace.getConfiguration('sandboxRunner');
    await config.update('markdownCodeLens', false, vscode.ConfigurationTarget.Global);
    try {
      await waitFor(async () => (await ourLenses(doc.uri)).size === 0, 10_000, 'the lenses to go');
    } finally {
      await config.update('markdownCodeLens', undefined, vscode.ConfigurationTarget.Global);
    }
    await waitFor(async () => (await ourLenses(doc.uri)).size === 2, 10_000, 'the lenses to come back');
    // The ```text block's line, a line inside a block, and a non-Markdown document: nothing runs.
    for (const args of [[doc.uri.toString(), 12], [doc.uri.toString(), 5], [fixture('hello.py').toString(), 0], ['not a uri', 4], [doc.uri.toString(), -1]]) {
      const r = await settlesWithin(startCommand('sandboxRunner.runCodeBlock', ...args), 10_000, `runCodeBlock ${JSON.stringify(args)}`);
      assert.equal(r, undefined, JSON.stringify(args));
    }
    await vscode.commands.executeCommand('notifications.clearAll');
  });
});
