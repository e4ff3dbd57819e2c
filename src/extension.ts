/**
 * Extension entry point. Activation is lazy (on a command, the profile view, or a document of a
 * built-in profile's language) and cheap: it creates the channels, the status bar item and the
 * tree, and registers commands; the engine is only checked when the profile view is shown.
 * Every disposable goes into `context.subscriptions`.
 */
import * as vscode from 'vscode';
import type { SandboxRunnerApi } from './vscode/api';
import { registerCommands } from './vscode/commands';
import { checkEngine } from './vscode/engineStatus';
import { ProfileTree } from './vscode/profileTree';
import { ProgramOutput } from './vscode/programOutput';
import { RunManager } from './vscode/runManager';
import { currentSettings, dockerPath, SECTION } from './vscode/settings';
import { RunStatusBar } from './vscode/statusBar';

let runs: RunManager | undefined;

/** Publishes which languages/extensions have a valid profile, for menu when-clauses. */
async function publishContext(): Promise<void> {
  const { profiles } = currentSettings();
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.languages', [...new Set(profiles.flatMap((p) => p.profile.languages))]);
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.extensions', [...new Set(profiles.flatMap((p) => p.profile.extensions))]);
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.activated', true);
}

export function activate(context: vscode.ExtensionContext): SandboxRunnerApi {
  const channel = vscode.window.createOutputChannel('Sandbox Runner');
  const log = vscode.window.createOutputChannel('Sandbox Runner Log', { log: true });
  const output = new ProgramOutput(channel);
  runs = new RunManager();
  const statusBar = new RunStatusBar(runs);
  const tree = new ProfileTree(currentSettings, runs);
  const view = vscode.window.createTreeView('sandboxRunner.profiles', { treeDataProvider: tree, showCollapseAll: false });
  context.subscriptions.push(channel, log, runs, statusBar, tree, view);

  const refreshEngine = async () => tree.refresh(await checkEngine({ dockerPath: dockerPath() }));
  const protectedPaths = [context.globalStorageUri.fsPath, context.logUri.fsPath, ...(context.storageUri ? [context.storageUri.fsPath] : [])];
  registerCommands(context, { runs, output, log, protectedPaths, refreshProfiles: refreshEngine });

  context.subscriptions.push(
    runs.onDidChange(() => tree.refresh(null)),
    view.onDidChangeVisibility((e) => e.visible && void refreshEngine()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SECTION)) return;
      void publishContext();
      tree.refresh(null);
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void publishContext();
      tree.refresh(null);
    }),
  );
  void publishContext();
  if (view.visible) void refreshEngine();

  return {
    onDidStartRun: runs.onDidStart,
    onDidFinishRun: runs.onDidFinish,
    activeRuns: () => runs?.active() ?? [],
    outputText: () => output.text(),
    statusBarText: () => statusBar.text,
    profiles: () => tree.summaries(),
  };
}

/** Cancels every run of this window; VS Code waits for the promise, so containers are removed. */
export function deactivate(): Promise<void> | undefined {
  return runs?.cancelAll();
}
