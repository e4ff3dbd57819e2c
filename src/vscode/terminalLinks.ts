/**
 * Source links in a run's terminal (issue 11, for the interactive runs' Pseudoterminal): a
 * `TerminalLinkProvider`, registered on first use, that links in-container snippet paths with a
 * line in a terminal's lines to the run's own document (or a file inside one of its local mounts,
 * checked through symlinks before it opens), for the terminals a run associated with
 * {@link linkTerminal}. Other terminals get no links from it. Program output only chooses the
 * line and column; a link never runs a command.
 */
import * as vscode from 'vscode';
import { insideMount, terminalLinkSpans, type LinkTarget, type RunSource } from './linkTargets';
import { reportLinkOutsideMount } from './failures';

/** A link this provider made: where it goes. */
interface SourceTerminalLink extends vscode.TerminalLink {
  readonly target: LinkTarget;
}

const sources = new Map<vscode.Terminal, RunSource>();
let registration: vscode.Disposable | undefined;

const provider: vscode.TerminalLinkProvider<SourceTerminalLink> = {
  provideTerminalLinks(context) {
    const source = sources.get(context.terminal);
    return source ? terminalLinkSpans(context.line, source) : [];
  },
  async handleTerminalLink(link) {
    const t = link.target;
    if (t.kind === 'mount' && !(await insideMount(t.path!, t.mountSource!))) {
      void reportLinkOutsideMount();
      return;
    }
    const uri = t.kind === 'snippet' ? vscode.Uri.parse(t.documentUri!, true) : vscode.Uri.file(t.path!);
    const at = new vscode.Position(t.line, t.column ?? 0);
    await vscode.window.showTextDocument(uri, { selection: new vscode.Range(at, at), preview: false });
  },
};

/**
 * Links `terminal`'s snippet paths to the run's source from now on (call it when the run's
 * Pseudoterminal is created; the source is `{ origin: snippetOrigin(...), documentUri }`, as
 * commands.ts builds it). The provider is registered on the first call; pass the extension's
 * `context.subscriptions` so it goes with the extension. The association ends when the terminal
 * closes or the returned disposable is disposed.
 * @param subscriptions where the provider's registration is put (first call only)
 */
export function linkTerminal(terminal: vscode.Terminal, source: RunSource, subscriptions?: vscode.Disposable[]): vscode.Disposable {
  if (!registration) {
    registration = vscode.Disposable.from(
      vscode.window.registerTerminalLinkProvider(provider),
      vscode.window.onDidCloseTerminal((closed) => sources.delete(closed)),
      new vscode.Disposable(() => {
        registration = undefined;
        sources.clear();
      }),
    );
    subscriptions?.push(registration);
  }
  sources.set(terminal, source);
  return new vscode.Disposable(() => {
    if (sources.get(terminal) === source) sources.delete(terminal);
  });
}
