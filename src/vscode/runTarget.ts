/**
 * What a run runs: the code, its label and the document it came from. Built from the active
 * editor (its selection, or its whole document, unsaved text included) or from a file's URI.
 */
import * as vscode from 'vscode';
import { dedent } from '../core/source/dedent';

/** The code to run and where it came from. */
export interface Target {
  readonly code: string;
  readonly label: string;
  readonly languageId: string;
  readonly fileName: string;
  /** The document's URI (`Uri.toString()`), its version when read, and whether it is untitled. */
  readonly documentUri: string;
  readonly version: number;
  readonly untitled: boolean;
  /** For a selection: its 0-based first line and column and the dedent width (core dedent.ts). */
  readonly where?: { readonly line: number; readonly column: number; readonly dedent: number };
}

/** What a Target needs from its document. */
export function fromDocument(doc: vscode.TextDocument): Pick<Target, 'languageId' | 'fileName' | 'documentUri' | 'version' | 'untitled'> {
  return { languageId: doc.languageId, fileName: doc.fileName, documentUri: doc.uri.toString(), version: doc.version, untitled: doc.isUntitled };
}

/** The document's name as labels show it: workspace-relative, or the untitled document's path. */
export function documentName(doc: vscode.TextDocument): string {
  return doc.isUntitled ? doc.uri.path : vscode.workspace.asRelativePath(doc.uri);
}

/** The selection of the active editor if non-empty (unless `wholeFile`), else its whole document (unsaved text included). */
export function editorTarget(wholeFile: boolean): Target | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const doc = editor.document;
  const sel = editor.selection;
  const base = fromDocument(doc);
  if (!wholeFile && !sel.isEmpty) {
    // Selections run as written (issue 11): whitespace before the selection on its first line is
    // its indentation, and the common indentation is removed (core dedent).
    const before = doc.lineAt(sel.start.line).text.slice(0, sel.start.character);
    const start = /^[ \t]*$/.test(before) ? sel.start.with(undefined, 0) : sel.start;
    const { text, width } = dedent(doc.getText(new vscode.Range(start, sel.end)));
    const label = vscode.l10n.t({ message: 'selection of {0} (lines {1}-{2})', args: [documentName(doc), sel.start.line + 1, sel.end.line + 1], comment: ['{0}: the document name; programOutput.ts shortLabel parses the English form'] });
    return { ...base, code: text, label, where: { line: start.line, column: start.character, dedent: width } };
  }
  return { ...base, code: doc.getText(), label: documentName(doc) };
}

/** A whole file by URI (its open, possibly unsaved, text when open). */
export async function fileTarget(uri: vscode.Uri): Promise<Target> {
  const doc = await vscode.workspace.openTextDocument(uri);
  return { ...fromDocument(doc), code: doc.getText(), label: documentName(doc) };
}
