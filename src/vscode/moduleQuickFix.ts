/**
 * The ModuleNotFoundError Quick Fix (issue 22): on a Sandbox Runner diagnostic of a Python run
 * that failed with `ModuleNotFoundError: No module named 'X'`, the code action "Add D to this
 * script's dependencies" (D: the distribution that provides X, core deps/moduleFix.ts) inserts or
 * extends the document's PEP 723 block. The name comes from program output, so it is only a
 * suggestion the user applies; running again then asks to install it, as any PEP 723 block does.
 * The dependencies bundle (where the table and the edit live) is loaded only for such a diagnostic.
 */
import * as vscode from 'vscode';
import { deps } from './lazy';

/** The diagnostics' source (sourceLinks.ts). */
const SOURCE = 'Sandbox Runner';

export class ModuleQuickFix implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const diagnostic = context.diagnostics.find((d) => d.source === SOURCE && d.message.includes('ModuleNotFoundError: No module named'));
    if (!diagnostic) return [];
    const code = deps();
    const module = code.missingModule(diagnostic.message);
    const dist = module && code.distributionFor(module);
    const edit = dist && code.addDependencyEdit(doc.getText(), dist);
    if (!dist || !edit) return [];
    const eol = doc.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';
    const action = new vscode.CodeAction(vscode.l10n.t('Add {0} to this script\'s dependencies', dist), vscode.CodeActionKind.QuickFix);
    action.diagnostics = [diagnostic];
    action.edit = new vscode.WorkspaceEdit();
    action.edit.replace(doc.uri, new vscode.Range(edit.startLine, 0, edit.endLine, 0), edit.lines.map((l) => l + eol).join(''));
    return [action];
  }
}

/** Registers the Quick Fix for Python documents. */
export function registerModuleQuickFix(context: vscode.ExtensionContext): void {
  context.subscriptions.push(vscode.languages.registerCodeActionsProvider({ language: 'python' }, new ModuleQuickFix(), { providedCodeActionKinds: ModuleQuickFix.kinds }));
}
