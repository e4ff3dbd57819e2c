/** Errors that lead back to the source (issue 11): output-channel links and a diagnostic, in the real host. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { assertRunResult, cleanUp, fixture, getApi, openFixture, settlesWithin, startCommand, waitFor } from './helpers';

const RUN_MS = 30_000;

/** The output channel's document holding `marker` (VS Code syncs it to the extension host once shown). */
async function outputDocument(marker: string): Promise<vscode.TextDocument> {
  let found: vscode.TextDocument | undefined;
  await waitFor(() => {
    found = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'output' && d.getText().includes(marker));
    return found !== undefined;
  }, 10_000, `an output document containing ${marker}`);
  return found!;
}

/** Links VS Code gets from every provider for `doc`, resolved (our mount links resolve lazily). */
async function links(doc: vscode.TextDocument): Promise<vscode.DocumentLink[]> {
  return (await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', doc.uri, 1000)) ?? [];
}

/** The Sandbox Runner diagnostics of `uri`, once there are any. */
async function diagnosticsOf(uri: vscode.Uri): Promise<vscode.Diagnostic[]> {
  const ours = () => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Sandbox Runner');
  await waitFor(() => ours().length > 0, 5_000, `a Sandbox Runner diagnostic on ${uri.toString()}`);
  return ours();
}

describe('source links (host)', function () {
  this.timeout(60_000);
  afterEach(cleanUp);

  it('a selection run of lines 10–14 that raises on its third line yields a link and a diagnostic at line 12 of the file', async function () {
    await getApi();
    const editor = await openFixture('raises.py', [10, 14]);
    const result = await settlesWithin(startCommand('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run');
    assertRunResult(result, 'sandboxRunner.run');
    // The selection is inside an `if` block: it only reaches line 12 when it was dedented.
    assert.equal(result.exitCode, 1, result.message);

    const doc = await outputDocument('SRCMAP-SELECTION-START');
    const found = await links(doc);
    const ours = found.filter((l) => l.target?.scheme === 'file' && l.target.path === fixture('raises.py').path);
    assert.equal(ours.length, 1, `links: ${JSON.stringify(found.map((l) => [doc.getText(l.range), l.target?.toString()]))}`);
    const link = ours[0]!;
    assert.equal(doc.getText(link.range), '/sandbox/main.py", line 3');
    assert.equal(link.target!.fragment, 'L12');
    // No link the program's text could steer to a command.
    assert.ok(found.every((l) => l.target?.scheme !== 'command'), 'a command: link in the output');

    // Opening the link (the workbench opener reads the #L fragment) shows line 12 of the file.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('vscode.open', link.target);
    // `vscode.open` hands a file: URI to the workbench opener, as a click on a link does; its
    // EditorOpener strips the `#L12` fragment into the selection (no "raises.py#L12" editor).
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.toString() === fixture('raises.py').toString(), 5_000, 'raises.py opened by the link');
    assert.equal(vscode.window.activeTextEditor!.selection.active.line, 11, 'the link did not open line 12');

    const [diagnostic, ...more] = await diagnosticsOf(editor.document.uri);
    assert.equal(more.length, 0);
    assert.equal(diagnostic!.range.start.line, 11);
    assert.equal(diagnostic!.message, 'IndexError: list index out of range');
    assert.equal(diagnostic!.severity, vscode.DiagnosticSeverity.Error);

    // Cleared by the next run of the document (lines 10-11 run without an error).
    await openFixture('raises.py', [10, 11]);
    const ok = await settlesWithin(startCommand('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run');
    assertRunResult(ok, 'sandboxRunner.run');
    assert.equal(ok.exitCode, 0, ok.message);
    assert.deepEqual(vscode.languages.getDiagnostics(editor.document.uri).filter((d) => d.source === 'Sandbox Runner'), []);

    // Cleared when the document changes.
    await openFixture('raises.py', [10, 14]);
    await settlesWithin(startCommand('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run');
    await diagnosticsOf(editor.document.uri);
    const shown = await vscode.window.showTextDocument(editor.document);
    try {
      await shown.edit((e) => e.insert(new vscode.Position(0, 0), '#\n'));
      await waitFor(() => vscode.languages.getDiagnostics(editor.document.uri).every((d) => d.source !== 'Sandbox Runner'), 5_000, 'the diagnostic to clear');
    } finally {
      // Revert this document whatever happened above (the fixture is shared by later tests and runs).
      await vscode.window.showTextDocument(editor.document);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  });

  it('a C file and a Go selection that do not compile end as "compilation failed", with the compiler error in the Problems view at its line', async function () {
    await getApi();
    const compileMs = 120_000; // a cold go build in a fresh container on a busy machine
    this.timeout(2 * compileMs + 30_000);
    const c = await openFixture('compile_error.c');
    const cr = await settlesWithin(startCommand('sandboxRunner.run'), compileMs, 'sandboxRunner.run');
    assertRunResult(cr, 'sandboxRunner.run');
    assert.equal(cr.outcome, 'compile-failed', cr.message);
    const [cd, ...cmore] = await diagnosticsOf(c.document.uri);
    assert.equal(cmore.length, 0);
    assert.deepEqual([cd!.range.start.line, cd!.range.start.character], [4, 21]);
    assert.match(cd!.message, /^error: .y. undeclared/);

    // Lines 7-11: the program in the comment, its error on its 4th line, line 10 of the file.
    const go = await openFixture('selection.go', [7, 11]);
    const gr = await settlesWithin(startCommand('sandboxRunner.run'), compileMs, 'sandboxRunner.run');
    assertRunResult(gr, 'sandboxRunner.run');
    assert.equal(gr.outcome, 'compile-failed', gr.message);
    const [gd, ...gmore] = await diagnosticsOf(go.document.uri);
    assert.equal(gmore.length, 0);
    assert.equal(gd!.range.start.line, 9);
    assert.match(gd!.message, /undefined: y/);
  });

  it('an interactive selection run of lines 10–14 puts the diagnostic at line 12, read from its terminal', async function () {
    await getApi();
    const editor = await openFixture('raises.py', [10, 14]);
    const terminals: vscode.Terminal[] = [];
    const sub = vscode.window.onDidOpenTerminal((t) => terminals.push(t));
    try {
      const result = await settlesWithin(startCommand('sandboxRunner.runInteractive'), RUN_MS, 'sandboxRunner.runInteractive');
      assertRunResult(result, 'sandboxRunner.runInteractive');
      assert.equal(result.exitCode, 1, result.message);
      // The TTY merged stderr into the terminal: the traceback is only there, not in the channel.
      const [diagnostic, ...more] = await diagnosticsOf(editor.document.uri);
      assert.equal(more.length, 0);
      assert.equal(diagnostic!.range.start.line, 11);
      assert.equal(diagnostic!.message, 'IndexError: list index out of range');
    } finally {
      sub.dispose();
      for (const t of terminals) t.dispose();
    }
  });

  it('an untitled document run maps its link and diagnostic to the untitled document', async function () {
    await getApi();
    const doc = await vscode.workspace.openTextDocument({ language: 'python', content: 'print("SRCMAP-UNTITLED")\n\nraise ValueError("untitled three")\n' });
    await vscode.window.showTextDocument(doc);
    const result = await settlesWithin(startCommand('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run');
    assertRunResult(result, 'sandboxRunner.run');
    assert.equal(result.exitCode, 1, result.message);

    const out = await outputDocument('SRCMAP-UNTITLED');
    const ours = (await links(out)).filter((l) => l.target?.scheme === 'untitled');
    assert.equal(ours.length, 1);
    assert.equal(ours[0]!.target!.with({ fragment: '' }).toString(), doc.uri.toString());
    assert.equal(ours[0]!.target!.fragment, 'L3');

    const [diagnostic] = await diagnosticsOf(doc.uri);
    assert.equal(diagnostic!.range.start.line, 2);
    assert.equal(diagnostic!.message, 'ValueError: untitled three');

    // `vscode.open` opens an untitled: URI directly, fragment and all (a new "Untitled-1#L3"
    // document), while a click goes through the workbench opener, which reads `#L3` as the
    // selection for every scheme (EditorOpener `extractSelection`, checked above for file:). So
    // here the fragment is read as the opener reads it, and the document opened without it.
    await openFixture('hello.py');
    const m = /^L(\d+)(?:,(\d+))?$/.exec(ours[0]!.target!.fragment);
    assert.ok(m, ours[0]!.target!.fragment);
    const at = new vscode.Position(Number(m[1]) - 1, Number(m[2] ?? 1) - 1);
    await vscode.window.showTextDocument(ours[0]!.target!.with({ fragment: '' }), { selection: new vscode.Range(at, at) });
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), doc.uri.toString());
    assert.equal(vscode.window.activeTextEditor!.selection.active.line, 2);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
