/**
 * The editor's stop button (issue 12): while a run of a document is in progress, that document's
 * editor title shows "Stop Sandbox Run". The context key `sandboxRunner.runningPaths` lists the
 * `fsPath` of every document with a run in progress; package.json's `editor/title` menu shows the
 * button `when` `resourcePath in sandboxRunner.runningPaths` (VS Code evaluates it per editor, so a
 * split editor of another file shows none). The command cancels the runs of the editor's document.
 */
import * as vscode from 'vscode';
import type { RunManager } from './runManager';

/** The context key the editor title's stop button is shown by. */
export const RUNNING_PATHS_KEY = 'sandboxRunner.runningPaths';

/** `Uri.fsPath` of a stored `Uri.toString()` (as the `resourcePath` context key shows it), or undefined when it does not parse. */
function fsPathOf(documentUri: string): string | undefined {
  try {
    return vscode.Uri.parse(documentUri, true).fsPath;
  } catch {
    return undefined;
  }
}

/** Keeps {@link RUNNING_PATHS_KEY} in step with the active runs. */
export class EditorStop implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  private published = '';

  constructor(private readonly runs: RunManager) {
    this.subscription = runs.onDidChange(() => this.publish());
  }

  private publish(): void {
    const paths = this.runs.documents().flatMap((u) => fsPathOf(u) ?? []);
    const key = JSON.stringify(paths);
    if (key === this.published) return;
    this.published = key;
    void vscode.commands.executeCommand('setContext', RUNNING_PATHS_KEY, paths);
  }

  /**
   * Cancels the runs of `uri`'s document (the editor title passes the editor's resource; a
   * keybinding passes nothing: the active editor's document). With no run of that document, the
   * `sandboxRunner.cancel` command decides (the only run, or a pick). Resolves true when a run was cancelled.
   */
  async stop(uri?: unknown): Promise<boolean> {
    const doc = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
    const ids = doc ? this.runs.runsOf(doc.toString()) : [];
    if (ids.length === 0) return (await vscode.commands.executeCommand<boolean>('sandboxRunner.cancel')) === true;
    for (const id of ids) this.runs.cancel(id);
    return true;
  }

  dispose(): void {
    this.subscription.dispose();
    void vscode.commands.executeCommand('setContext', RUNNING_PATHS_KEY, []);
  }
}
