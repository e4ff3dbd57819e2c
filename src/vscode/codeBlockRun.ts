/**
 * The target of `sandboxRunner.runCodeBlock` (issue 12), the command a Markdown code block's
 * lens runs: its arguments are checked (a command can be executed by anyone with any
 * arguments), the document is a Markdown document, and the block is found again in the document's
 * current text by the Markdown bundle (markdownModule.ts `codeBlockTarget`). The run itself is a
 * selection's run (commands.ts `execute`).
 */
import * as vscode from 'vscode';
import { markdown } from './lazy';
import { currentSettings } from './settings';

/** What `codeBlockTarget` returns: the shape commands.ts runs. */
export type CodeBlockTarget = NonNullable<ReturnType<ReturnType<typeof markdown>['codeBlockTarget']>>;

/**
 * The block of the Markdown document `uri` (a `Uri` or its string form) whose opening fence is
 * on 0-based line `fenceLine`, as a run target; says why and resolves undefined when there is
 * none (bad arguments, not a Markdown document, no runnable block there any more).
 */
export async function codeBlockRunTarget(uri: unknown, fenceLine: unknown): Promise<CodeBlockTarget | undefined> {
  const parsed = uri instanceof vscode.Uri ? uri : typeof uri === 'string' ? tryParse(uri) : undefined;
  if (!parsed || typeof fenceLine !== 'number' || !Number.isSafeInteger(fenceLine) || fenceLine < 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Run a Markdown code block through the "Run in Sandbox" lens above it.'));
    return undefined;
  }
  const doc = await vscode.workspace.openTextDocument(parsed);
  const target = doc.languageId === 'markdown' ? markdown().codeBlockTarget(doc, fenceLine, currentSettings()) : undefined;
  if (!target) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Not run: no code block of a language with a sandbox profile starts on line {0} of this Markdown document.', fenceLine + 1));
  }
  return target;
}

function tryParse(text: string): vscode.Uri | undefined {
  try {
    return vscode.Uri.parse(text, true);
  } catch {
    return undefined;
  }
}
