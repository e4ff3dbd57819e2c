/**
 * Small services `activate` wires together: the engine check shown in the profile view, the
 * menus' context keys, and the output channel's source-link provider (forwarding to the engine
 * bundle's SourceLinks once a run made them).
 */
import * as vscode from 'vscode';
import { engine } from './lazy';
import type { ProfileTree } from './profileTree';
import type { ProgramOutput } from './programOutput';
import { dockerOptions, engineSettings, type SettingsCache } from './settings';
import type { SourceLinks } from './sourceLinks';

/**
 * The engine in use, checked and named in the tree (its identity is cached per engine in the
 * engine bundle: later runs' headers show it at once). Returns the refresh function.
 */
export function engineRefresher(tree: ProfileTree): () => Promise<void> {
  return async () => {
    const opts = dockerOptions();
    tree.setEngine(undefined, engineSettings().problems);
    const problem = await engine().checkEngine(opts);
    tree.refresh(problem);
    if (problem === undefined) {
      const id = await engine().engineIdentity(opts);
      tree.setEngine(id && engine().describeEngine(id), engineSettings().problems);
    }
  };
}

/** Publishes which languages/extensions have a valid profile, for menu when-clauses. */
export async function publishContext(settings: SettingsCache): Promise<void> {
  const { profiles } = settings.get();
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.languages', [...new Set(profiles.flatMap((p) => p.profile.languages))]);
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.extensions', [...new Set(profiles.flatMap((p) => p.profile.extensions))]);
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.activated', true);
}

/**
 * Links from the output channel's tracebacks to the run's source, and the failed runs'
 * diagnostics (issue 11): the code is in the engine bundle, made on the first run (before it
 * there is nothing to link); activation only registers this forwarding provider (into
 * `subscriptions`). Returns the getter that makes the SourceLinks on first use.
 */
export function registerSourceLinks(subscriptions: vscode.Disposable[], output: ProgramOutput): () => SourceLinks {
  let sourceLinks: SourceLinks | undefined;
  subscriptions.push(
    { dispose: () => sourceLinks?.dispose() },
    vscode.languages.registerDocumentLinkProvider({ scheme: 'output' }, {
      provideDocumentLinks: (doc, token) => sourceLinks?.provideDocumentLinks(doc, token) ?? [],
      resolveDocumentLink: (link) => sourceLinks?.resolveDocumentLink(link),
    }),
  );
  return () => (sourceLinks ??= new (engine().SourceLinks)(() => output.lineCount, () => output.clearedAt));
}
