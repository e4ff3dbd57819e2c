/**
 * The status bar item of notebook kernels (issue 24): shown while the active notebook editor's
 * notebook has a sandbox kernel selected, it says that the kernel is sandboxed: the profile, the
 * image, the network, rich outputs when the user turned them on (notebookRich.ts) (and, in the
 * tooltip, a read-only workspace folder). Profile names and images may come from workspace settings (trusted
 * workspaces only): they are shown as plain text, with `$(` broken so they draw no icon.
 */
import * as vscode from 'vscode';
import type { ResolvedProfile } from '../core';
import { richOutputOn } from './notebookRich';

/** Plain status bar text: `$(name)` would render an icon. */
function plain(text: string): string {
  return text.replace(/\$\(/g, '$\u200b(');
}

export class NotebookStatus implements vscode.Disposable {
  /** Notebooks with a sandbox kernel selected → its profile name (kept by notebookKernels.ts). */
  readonly selected = new Map<vscode.NotebookDocument, string>();
  private readonly item = vscode.window.createStatusBarItem('sandboxRunner.notebookKernel', vscode.StatusBarAlignment.Right, 100);
  private readonly subscription = vscode.window.onDidChangeActiveNotebookEditor(() => this.update());
  private shown: string | undefined;

  /** @param profileOf the profile of the sandbox kernel selected for a notebook, if any */
  constructor(private readonly profileOf: (nb: vscode.NotebookDocument) => ResolvedProfile | undefined) {
    this.item.name = vscode.l10n.t('Sandbox Runner: notebook kernel');
  }

  /** The item's text while shown, else undefined (host tests). */
  get text(): string | undefined {
    return this.shown;
  }

  /** Shows or hides the item for the active notebook editor. */
  update(): void {
    const nb = vscode.window.activeNotebookEditor?.notebook;
    const p = nb && this.profileOf(nb);
    if (!p) {
      this.item.hide();
      this.shown = undefined;
      return;
    }
    const network = p.profile.network === 'none' ? vscode.l10n.t('network off') : vscode.l10n.t('network ON ({0})', p.profile.network);
    const rich = richOutputOn();
    this.item.text = rich
      ? vscode.l10n.t('$(shield) Sandboxed kernel: {0} · {1} · rich output ON', plain(p.name), network)
      : vscode.l10n.t('$(shield) Sandboxed kernel: {0} · {1}', plain(p.name), network);
    const tooltip = p.profile.workspace === 'ro'
      ? vscode.l10n.t('This notebook\'s cells run in a sandboxed container: profile "{0}", image {1}, {2}. The container sees the notebook\'s workspace folder read-only, and none of your other files beyond its profile\'s mounts.', p.name, p.profile.image, network)
      : vscode.l10n.t('This notebook\'s cells run in a sandboxed container: profile "{0}", image {1}, {2}. The container cannot reach your files beyond its profile\'s mounts.', p.name, p.profile.image, network);
    this.item.tooltip = rich
      ? `${tooltip} ${vscode.l10n.t('Rich output is ON (sandboxRunner.notebooks.richOutput): HTML, SVG and Markdown outputs render, and they can load from the network and run script in the editor.')}`
      : `${tooltip} ${vscode.l10n.t('Outputs are shown as text and images only: HTML, SVG and Markdown outputs are dropped (sandboxRunner.notebooks.richOutput).')}`;
    this.item.accessibilityInformation = {
      label: rich
        ? vscode.l10n.t('Sandboxed notebook kernel: profile {0}, image {1}, {2}, rich output on', p.name, p.profile.image, network)
        : vscode.l10n.t('Sandboxed notebook kernel: profile {0}, image {1}, {2}', p.name, p.profile.image, network),
    };
    this.shown = this.item.text;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
