/**
 * The "markdown" bundle (dist/markdown.js, issue 12): finds a Markdown document's runnable fenced
 * code blocks (core fences.ts, fenceLanguages.ts) for the CodeLenses, and turns one block into
 * the run target a selection would be. Activation does not load it: src/vscode/markdownLenses.ts
 * requires it through lazy.ts `markdown()` when VS Code first asks a Markdown document for lenses.
 * Values cross the bundle seam as plain data (lenses, targets); `vscode` is external to every bundle.
 */
import * as vscode from 'vscode';
import { blockProfile } from '../core/source/fenceLanguages';
import { findFencedBlocks, type FencedBlock } from '../core/source/fences';

export { withoutFencedBlocks } from '../core/source/fences';
import type { ProfileSet } from '../core/profiles/profileResolution';

/** The command a block's lens runs: arguments `(documentUri: string, fenceLine: number)`. */
export const RUN_CODE_BLOCK = 'sandboxRunner.runCodeBlock';

/** A runnable block: the block and the profile it runs with. */
interface Runnable {
  readonly block: FencedBlock;
  readonly profileName: string;
  readonly languageId: string;
  readonly extension?: string;
}

/** The blocks of `text` that a profile of `set` runs (blocks with only blank lines are skipped). */
function runnableBlocks(text: string, set: ProfileSet): Runnable[] {
  const out: Runnable[] = [];
  for (const block of findFencedBlocks(text)) {
    if (block.lines.every((l) => l.trim() === '')) continue;
    const mapped = blockProfile(set, block.info);
    if (!mapped) continue;
    out.push({ block, profileName: mapped.chosen.name, languageId: mapped.language.languageId, ...(mapped.language.extension ? { extension: mapped.language.extension } : {}) });
  }
  return out;
}

/**
 * "Run in Sandbox" lenses above each runnable block of `doc` (on its opening fence line). The
 * title is fixed text; the tooltip names the profile (a plain string: not parsed for markup).
 */
export function codeBlockLenses(doc: vscode.TextDocument, set: ProfileSet): vscode.CodeLens[] {
  return runnableBlocks(doc.getText(), set).map(({ block, profileName }) => {
    const range = new vscode.Range(block.fenceLine, 0, block.fenceLine, 0);
    return new vscode.CodeLens(range, {
      title: vscode.l10n.t('$(play) Run in Sandbox'),
      tooltip: vscode.l10n.t('Run this block in the sandbox with the profile "{0}"', profileName),
      command: RUN_CODE_BLOCK,
      arguments: [doc.uri.toString(), block.fenceLine],
    });
  });
}

/**
 * The run target of the block whose opening fence is on `fenceLine` of `doc`, shaped as
 * commands.ts builds a selection's: the block's content lines (fence indentation and container
 * prefixes removed, joined with LF and ended with one), labelled with its language, document and
 * content lines, and `where` at its first content line with the removed width as `dedent`, so
 * tracebacks and diagnostics map back to the Markdown lines (core snippetOrigin, sourceRefs).
 * `fileName` is the document's, with the fence's extension appended when its alias names one
 * (`notes.md.mjs` for a ```` ```mjs ```` block: node picks the module type by the snippet's
 * extension, snippet.ts `snippetFileName`); links and diagnostics use `documentUri`, never it.
 * @returns undefined when no runnable block starts on that line (the document changed, or no
 *   profile lists the block's language any more)
 */
export function codeBlockTarget(doc: vscode.TextDocument, fenceLine: number, set: ProfileSet) {
  const found = runnableBlocks(doc.getText(), set).find((r) => r.block.fenceLine === fenceLine);
  if (!found) return undefined;
  const { block } = found;
  const first = block.contentStart + 1;
  const last = first + block.lines.length - 1;
  const name = doc.isUntitled ? doc.uri.path : vscode.workspace.asRelativePath(doc.uri);
  return {
    code: block.lines.join('\n') + '\n',
    label: first === last
      ? vscode.l10n.t({ message: '{0} block of {1} (line {2})', args: [found.languageId, name, first], comment: ['{0}: the fence language, {1}: the document, {2}: a line number'] })
      : vscode.l10n.t({ message: '{0} block of {1} (lines {2}-{3})', args: [found.languageId, name, first, last], comment: ['{0}: the fence language, {1}: the document, {2}-{3}: line numbers'] }),
    languageId: found.languageId,
    fileName: doc.fileName + (found.extension ?? ''),
    documentUri: doc.uri.toString(),
    version: doc.version,
    untitled: doc.isUntitled,
    where: { line: block.contentStart, column: 0, dedent: block.strip },
  };
}
