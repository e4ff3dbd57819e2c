/**
 * The commands behind the "Get Started with Sandbox Runner" walkthrough (package.json
 * `contributes.walkthroughs`, issue 12): check the engine, pull a profile's image, open a sample.
 * Registered at activation (each is a few lines; nothing is loaded until one runs).
 *
 * Pulling is always the user's explicit choice here: runs themselves never pull (`--pull never`,
 * core defaults.ts). The pull runs `docker pull IMAGE` as a visible task (argv, no shell;
 * failures.ts `pullImage`), whose terminal shows docker's own progress, on the engine runs use.
 */
import * as vscode from 'vscode';
import { pullImage } from './failures';
import { plainText } from './plainText';
import { currentSettings, dockerOptions } from './settings';

/** The samples the walkthrough opens (files under media/walkthrough/), by the command's argument. */
const SAMPLES = {
  run: { file: 'sample.py', language: 'python' },
  interactive: { file: 'ask.py', language: 'python' },
} as const;

/** Registers the walkthrough's commands; disposables go into `context.subscriptions`. */
export function registerWalkthroughCommands(context: vscode.ExtensionContext, refreshEngine: () => Promise<void>): void {
  const handlers: Record<string, (...args: unknown[]) => unknown> = {
    // Shows the profiles view (which names the engine, or says what is wrong) and checks again.
    'sandboxRunner.checkEngine': async () => {
      await vscode.commands.executeCommand('sandboxRunner.profiles.focus');
      await refreshEngine();
    },
    'sandboxRunner.pullImage': async (arg?: unknown) => {
      const images = [...new Set(currentSettings().profiles.map((p) => p.profile.image))];
      const image = typeof arg === 'string' && images.includes(arg)
        ? arg
        : (await vscode.window.showQuickPick(
          // Quick picks render `$(icon)`: the shown name is escaped, the pick carries the real one.
          currentSettings().profiles.map((p) => ({ label: plainText(p.profile.image), description: plainText(`${p.name} · ${p.source}`), image: p.profile.image })),
          { title: vscode.l10n.t('Pull Sandbox Image'), placeHolder: vscode.l10n.t('The image of which profile? Runs never pull it themselves.') },
        ))?.image;
      if (image) pullImage(dockerOptions(), image);
      return image;
    },
    // An untitled copy of a sample: the user may edit it, and nothing in the extension's folder changes.
    'sandboxRunner.openSample': async (arg?: unknown) => {
      const sample = arg === 'interactive' ? SAMPLES.interactive : SAMPLES.run;
      const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(context.extensionUri, 'media', 'walkthrough', sample.file));
      const doc = await vscode.workspace.openTextDocument({ language: sample.language, content: new TextDecoder().decode(bytes) });
      return vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside });
    },
  };
  for (const [id, handler] of Object.entries(handlers)) context.subscriptions.push(vscode.commands.registerCommand(id, handler));
}
