/**
 * Extension entry point. Activation is lazy (on a command, the profile view, or a document of a
 * built-in profile's language) and cheap: it creates the channels, the status bar item and the
 * tree, and registers commands; the engine is only checked when the profile view is shown, and a
 * warm container is prepared only after a run, or on opening a file of a language run in this
 * window (./vscode/warmStart.ts; never for a profile a workspace loosened without the user's
 * consent to exactly that loosening).
 * Every disposable goes into `context.subscriptions`.
 *
 * Engine code (runner, warm pool, sweep, engine check, execa) is in a second bundle loaded on
 * first use through `engine()` (src/vscode/lazy.ts): import only types from './core' here, plus
 * the profile resolution the menus and warm preparation need.
 */
import * as l10n from '@vscode/l10n';
import * as vscode from 'vscode';
import { settingId } from './core/layout';
import type { SandboxRunnerApi } from './vscode/api';
import { registerAgentSurfaces } from './vscode/agentToolEntry';
import { registerCommands } from './vscode/commands';
import { terminalText } from './vscode/interactiveRun';
import { ConsentStore } from './vscode/consent';
import { EditorStop } from './vscode/editorStop';
import { ENGINE_KEYS } from './vscode/engineChoice';
import { engine, engineLoaded } from './vscode/lazy';
import { OrphanSweep } from './vscode/orphanSweep';
import { registerMarkdownLenses } from './vscode/markdownLenses';
import { notebookKernels, registerNotebookKernels } from './vscode/notebookEntry';
import { ProfileTree } from './vscode/profileTree';
import { ProgramOutput } from './vscode/programOutput';
import { RunController } from './vscode/runController';
import { RunManager } from './vscode/runManager';
import { engineRefresher, publishContext, registerSourceLinks } from './vscode/services';
import { dockerOptions, SettingsCache } from './vscode/settings';
import { registerRerunCommands } from './vscode/rerunCommands';
import { RunHistory } from './vscode/runHistory';
import { RunStatusBar } from './vscode/statusBar';
import { registerModuleQuickFix } from './vscode/moduleQuickFix';
import { WarmStart } from './vscode/warmStart';
import { registerWalkthroughCommands } from './vscode/walkthrough';

/** For the lazy bundles (esbuild.config.mjs, src/vscode/sharedModules.ts): modules they take from this bundle. */
export { SHARED as __shared } from './vscode/sharedModules';

let runs: RunManager | undefined;
let warm: WarmStart | undefined;
let logChannel: vscode.LogOutputChannel | undefined;

/** Wires the extension's services together; every disposable goes into `context.subscriptions`. */
export function activate(context: vscode.ExtensionContext): SandboxRunnerApi {
  // Modules free of `vscode` (failureText.ts, programOutput.ts…) translate through @vscode/l10n: VS Code's bundle for the display language (undefined in English).
  if (typeof vscode.l10n.bundle === 'object') l10n.config({ contents: vscode.l10n.bundle });
  const channel = vscode.window.createOutputChannel('Sandbox Runner');
  const log = (logChannel = vscode.window.createOutputChannel('Sandbox Runner Log', { log: true }));
  const output = new ProgramOutput(channel);
  runs = new RunManager();
  const statusBar = new RunStatusBar(runs);
  const consents = new ConsentStore(context.workspaceState);
  const settings = new SettingsCache();
  const history = new RunHistory(context.workspaceState, runs.onDidFinish);
  const tree = new ProfileTree(() => settings.get(), runs, consents, history);
  const view = vscode.window.createTreeView('sandboxRunner.profiles', { treeDataProvider: tree, showCollapseAll: false });
  context.subscriptions.push(history, history.onDidChange(() => tree.refresh(null)));
  const protectedPaths = [context.globalStorageUri.fsPath, context.logUri.fsPath, ...(context.storageUri ? [context.storageUri.fsPath] : [])];
  warm = new WarmStart(consents, protectedPaths, log);
  const refreshEngine = engineRefresher(tree);
  const sources = registerSourceLinks(context.subscriptions, output);
  const runDeps = { runs, output, log, protectedPaths, consents, warmFor: warm.warmFor, noteRun: warm.noteRun, sources, history };
  const controller = new RunController(runDeps);
  context.subscriptions.push(channel, log, runs, statusBar, consents, settings, tree, view, warm, new OrphanSweep(log));
  const editorStop = new EditorStop(runs);
  context.subscriptions.push(editorStop);
  const commandDeps = { runs, controller, output, consents, editorStop, refreshProfiles: refreshEngine };
  registerCommands(context, commandDeps);
  registerRerunCommands(context, commandDeps, history);
  // Issue 12: "Run in Sandbox" lenses on Markdown code blocks (scanner loaded on first use) and the walkthrough's commands.
  registerMarkdownLenses(context, settings);
  registerWalkthroughCommands(context, refreshEngine);
  // Issue 22: "Add X to this script's dependencies" on a ModuleNotFoundError diagnostic.
  registerModuleQuickFix(context);
  // Issue 14: the language model tool and the MCP server definition (agentToolEntry.ts).
  const agentTool = registerAgentSurfaces(context, runDeps);
  // Issue 24: "Sandbox (PROFILE)" kernels for Jupyter notebooks (bundle loaded when one opens).
  registerNotebookKernels(context, { log, protectedPaths, consents, settings });
  context.subscriptions.push(
    consents.onDidChange(() => tree.refresh(null)),
    runs.onDidChange(() => tree.refresh(null)),
    view.onDidChangeVisibility((e) => e.visible && void refreshEngine()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (ENGINE_KEYS.some((k) => e.affectsConfiguration(settingId(k)))) void refreshEngine();
    }),
    settings.onDidChange(() => {
      void publishContext(settings);
      tree.refresh(null);
    }),
  );
  // Validating profiles for the menus' context keys is off the activation path.
  setImmediate(() => void publishContext(settings));
  if (view.visible) void refreshEngine();
  return {
    onDidStartRun: runs.onDidStart,
    onDidFinishRun: runs.onDidFinish,
    activeRuns: () => runs?.active() ?? [],
    outputText: () => output.text(),
    terminalText: (runId) => terminalText(runId),
    statusBarText: () => statusBar.text,
    profiles: () => tree.summaries(),
    treeNotes: () => tree.notes(),
    agentTool: () => agentTool,
    recentRuns: () => history.list().map((e) => e.run),
    notebookStatusText: () => notebookKernels()?.statusText,
  };
}

/**
 * Cancels every run of this window, removes the warm containers and closes every session; VS Code
 * waits for the promise, so no container of this window is left behind.
 */
export async function deactivate(): Promise<void> {
  await Promise.allSettled([runs?.cancelAll(true), warm?.shutdown(), notebookKernels()?.closeAll()]);
  // Every container of this window was created by the engine bundle: none if it never loaded.
  // The rest (agent sessions, pending removals, leftovers, the owner lease) is engineShutdown.ts's.
  if (engineLoaded()) await engine().shutdownEngine(dockerOptions(), (m) => logChannel?.warn(m));
}
