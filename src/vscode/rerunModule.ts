/**
 * The re-run bundle (dist/rerun.js, loaded on first use through lazy.ts `rerun()`): splitting
 * typed program arguments (argsInput.ts), copied command lines (cliCommandLine.ts) and how to call
 * the CLI from them, and the read-only documents that show a recent run's output. It carries the
 * `shell-quote` library, so activation never loads it.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { quote } from 'shell-quote';
import stripAnsi from 'strip-ansi';
import * as vscode from 'vscode';

export { splitArgs } from './argsInput';
export { cliCommandLine } from './cliCommandLine';

/** `args` as the input box shows them again: shell words (shell-quote `quote`), which {@link splitArgs} splits back into `args`. */
export function joinArgs(args: readonly string[]): string {
  return quote([...args]);
}

/**
 * How a copied command line calls the CLI: `sandbox-run` when an executable of that name is on
 * this process's PATH (POSIX; on Windows the packaged one is always used), else `node` with the
 * extension's own copy (`<extensionPath>/dist/cli.js`, which the .vsix ships).
 */
export async function cliInvocation(extensionPath: string, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  if (process.platform !== 'win32') {
    for (const dir of (env.PATH ?? '').split(delimiter).filter((d) => d.startsWith('/'))) {
      if (await access(join(dir, 'sandbox-run'), constants.X_OK).then(() => true, () => false)) return ['sandbox-run'];
    }
  }
  return ['node', join(extensionPath, 'dist', 'cli.js')];
}

/** URI scheme of the read-only documents that show a recent run's output. */
export const RUN_OUTPUT_SCHEME = 'sandbox-runner-output';

/**
 * Read-only documents holding runs' output as plain text (terminal escape sequences removed),
 * one per run; the text lives only as long as this window does.
 */
export class RunOutputDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(RUN_OUTPUT_SCHEME, this);

  /**
   * Opens `text` as run `id`'s output document, titled after `label` (untrusted: characters a
   * path would read as structure become `_`).
   */
  async show(id: string, label: string, text: string): Promise<vscode.TextEditor> {
    this.texts.set(id, stripAnsi(text));
    const title = label.replace(/[\x00-\x1f\x7f/\\?#%]+/g, '_').slice(0, 120);
    const uri = vscode.Uri.from({ scheme: RUN_OUTPUT_SCHEME, path: `/${title} (output).log`, query: id });
    const doc = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(doc, { preview: true });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? vscode.l10n.t('The output of this run is no longer kept.');
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
