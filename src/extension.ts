/**
 * Extension entry point. Activation is lazy (on a command, the profile view, or a document of a
 * built-in profile's language) and cheap: it creates the channels, the status bar item and the
 * tree, and registers commands; the engine is only checked when the profile view is shown, and a
 * warm container is prepared only for the language of the active editor (never for a profile a
 * workspace loosened without the user's consent to exactly that loosening).
 * Every disposable goes into `context.subscriptions`.
 *
 * Engine code (runner, warm pool, sweep, engine check, execa) is in a second bundle loaded on
 * first use through `engine()` (src/vscode/lazy.ts): import only types from './core' here, plus
 * the profile resolution the menus and warm preparation need.
 */
import * as vscode from 'vscode';
import { pickProfile, type ResolvedProfile, type WarmPool } from './core';
import type { SandboxRunnerApi } from './vscode/api';
import { registerCommands } from './vscode/commands';
import { terminalText } from './vscode/interactiveRun';
import { ConsentStore } from './vscode/consent';
import { engine, engineLoaded } from './vscode/lazy';
import { ProfileTree } from './vscode/profileTree';
import { channelRunProfile, ProgramOutput } from './vscode/programOutput';
import { RunManager } from './vscode/runManager';
import { registerRerunCommands } from './vscode/rerunCommands';
import { RunHistory } from './vscode/runHistory';
import { currentSettings, dockerOptions, engineSettings, SECTION, SettingsCache, warmStartSettings, type SettingsSnapshot } from './vscode/settings';
import type { SourceLinks } from './vscode/sourceLinks';
import { RunStatusBar } from './vscode/statusBar';

let runs: RunManager | undefined;
let pool: WarmPool | undefined;
let logChannel: vscode.LogOutputChannel | undefined;

/** How often the orphan sweep runs while the extension is active, ms. */
const REAP_INTERVAL_MS = 10 * 60_000;

/** Publishes which languages/extensions have a valid profile, for menu when-clauses. */
async function publishContext(settings: SettingsCache): Promise<void> {
  const { profiles } = settings.get();
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.languages', [...new Set(profiles.flatMap((p) => p.profile.languages))]);
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.extensions', [...new Set(profiles.flatMap((p) => p.profile.extensions))]);
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.activated', true);
}

export function activate(context: vscode.ExtensionContext): SandboxRunnerApi {
  const channel = vscode.window.createOutputChannel('Sandbox Runner');
  const log = vscode.window.createOutputChannel('Sandbox Runner Log', { log: true });
  logChannel = log;
  const output = new ProgramOutput(channel);
  runs = new RunManager();
  const statusBar = new RunStatusBar(runs);
  const consents = new ConsentStore(context.workspaceState);
  const settings = new SettingsCache();
  const history = new RunHistory(context.workspaceState, runs.onDidFinish);
  const tree = new ProfileTree(() => settings.get(), runs, consents, history);
  const view = vscode.window.createTreeView('sandboxRunner.profiles', { treeDataProvider: tree, showCollapseAll: false });
  context.subscriptions.push(channel, log, runs, statusBar, consents, settings, tree, view, consents.onDidChange(() => tree.refresh(null)));
  context.subscriptions.push(history, history.onDidChange(() => tree.refresh(null)));

  // The engine in use, checked and named in the tree (its identity is cached per engine in the
  // engine bundle: later runs' headers show it at once).
  const refreshEngine = async () => {
    const opts = dockerOptions();
    tree.setEngine(undefined, engineSettings().problems);
    const problem = await engine().checkEngine(opts);
    tree.refresh(problem);
    if (problem === undefined) {
      const id = await engine().engineIdentity(opts);
      tree.setEngine(id && engine().describeEngine(id), engineSettings().problems);
    }
  };
  const protectedPaths = [context.globalStorageUri.fsPath, context.logUri.fsPath, ...(context.storageUri ? [context.storageUri.fsPath] : [])];

  // Warm start: created on first use; replaced (old containers removed) when its settings change.
  const resetPool = () => {
    void pool?.dispose();
    pool = undefined;
  };
  // A warm container is created and started with the profile's mounts, network and limits: a
  // profile a workspace loosened gets one only once the user allowed exactly that loosening.
  const consented = (chosen: ResolvedProfile, settings: SettingsSnapshot): boolean => {
    const report = settings.loosenings.get(chosen.name);
    return report === undefined || consents.has(report);
  };
  const warmMode = (chosen: ResolvedProfile) => {
    const { mode } = warmStartSettings();
    return mode === 'all' || (mode === 'built-in' && chosen.source === 'built-in');
  };
  const warmFor = (chosen: ResolvedProfile, snapshot: SettingsSnapshot): WarmPool | undefined => {
    if (!warmMode(chosen) || !consented(chosen, snapshot)) return undefined;
    pool ??= new (engine().WarmPool)({ docker: dockerOptions(), idleMs: warmStartSettings().idleMs, protectedPaths, onLog: (m) => log.info(`warm start: ${m}`) });
    return pool;
  };
  // Runs on every editor switch: cheap checks and the cached snapshot first; fresh settings (which
  // resolve mount paths on disk) only for a profile that a workspace loosened.
  const prepareFor = (editor: vscode.TextEditor | undefined) => {
    if (!editor || editor.document.uri.scheme === 'output' || warmStartSettings().mode === 'off') return;
    const cached = settings.get();
    const query = { languageId: editor.document.languageId, fileName: editor.document.fileName };
    const chosen = pickProfile(cached, query);
    if (!chosen || !warmMode(chosen)) return;
    const snapshot = cached.loosenings.has(chosen.name) ? currentSettings() : cached;
    // A document the workspace re-routed into a looser profile (the user's own included) gets no
    // warm container before the user allowed that re-routing.
    const routed = snapshot.looseningFor(query);
    if (routed && !consents.has(routed)) return;
    warmFor(chosen, snapshot)?.prepare(chosen.name, channelRunProfile(chosen.profile));
  };
  // Links from the output channel's tracebacks to the run's source, and the failed runs'
  // diagnostics (issue 11): the code is in the engine bundle, made on the first run (before it
  // there is nothing to link); activation only registers this forwarding provider.
  let sourceLinks: SourceLinks | undefined;
  const sources = () => (sourceLinks ??= new (engine().SourceLinks)(() => output.lineCount));
  context.subscriptions.push(
    { dispose: () => sourceLinks?.dispose() },
    vscode.languages.registerDocumentLinkProvider({ scheme: 'output' }, {
      provideDocumentLinks: (doc, token) => sourceLinks?.provideDocumentLinks(doc, token) ?? [],
      resolveDocumentLink: (link) => sourceLinks?.resolveDocumentLink(link),
    }),
  );
  const commandDeps = { runs, output, log, protectedPaths, warmFor, consents, refreshProfiles: refreshEngine, sources, history };
  registerCommands(context, commandDeps);
  registerRerunCommands(context, commandDeps, history);

  context.subscriptions.push(
    // Revoked consents: warm containers of loosened profiles (prepared after a run) go too.
    consents.onDidChange(() => consents.count === 0 && resetPool()),
    runs.onDidChange(() => tree.refresh(null)),
    view.onDidChangeVisibility((e) => e.visible && void refreshEngine()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (['warmStart', 'warmIdleSeconds', 'dockerPath', 'dockerContext', 'dockerHost'].some((k) => e.affectsConfiguration(`${SECTION}.${k}`))) resetPool();
      if (['dockerPath', 'dockerContext', 'dockerHost'].some((k) => e.affectsConfiguration(`${SECTION}.${k}`))) void refreshEngine();
    }),
    settings.onDidChange(() => {
      void publishContext(settings);
      tree.refresh(null);
    }),
    vscode.window.onDidChangeActiveTextEditor(prepareFor),
    { dispose: resetPool },
  );
  // Validating profiles for the menus' context keys is off the activation path.
  setImmediate(() => void publishContext(settings));
  if (view.visible) void refreshEngine();

  // Orphans of dead windows (crashed extension hosts, killed CLIs): swept soon after activation,
  // off the activation path, then periodically. Unknown owner liveness is never "dead".
  const sweep = async () => {
    try {
      const opts = dockerOptions();
      // Which engine runs the code, for the next run's header: asked here, off the activation and run paths.
      void engine().engineIdentity(opts);
      const report = await engine().reapOrphans({ docker: opts });
      if (report.removed.length > 0) log.info(`orphan sweep removed ${report.removed.length} container(s): ${report.removed.join(', ')}`);
    } catch (e) {
      log.debug(`orphan sweep skipped: ${String(e)}`);
    }
  };
  const firstSweep = setTimeout(() => void sweep(), 2000);
  const sweeps = setInterval(() => void sweep(), REAP_INTERVAL_MS);
  context.subscriptions.push({ dispose: () => (clearTimeout(firstSweep), clearInterval(sweeps)) });

  return {
    onDidStartRun: runs.onDidStart,
    onDidFinishRun: runs.onDidFinish,
    activeRuns: () => runs?.active() ?? [],
    outputText: () => output.text(),
    terminalText: (runId) => terminalText(runId),
    statusBarText: () => statusBar.text,
    profiles: () => tree.summaries(),
    treeNotes: () => tree.notes(),
    recentRuns: () => history.list().map((e) => e.run),
  };
}

/**
 * Cancels every run of this window and removes the warm containers; VS Code waits for the
 * promise, so no container of this window is left behind.
 */
export async function deactivate(): Promise<void> {
  await Promise.allSettled([runs?.cancelAll(true), pool?.dispose()]);
  pool = undefined;
  // Every container of this window was created by the engine bundle: none if it never loaded.
  if (!engineLoaded()) return;
  // Results come before their containers' removal ends (removals.ts): wait for those too.
  for (const f of await engine().awaitRemovals()) logChannel?.warn(`could not remove container ${f.name}: ${f.error}`);
  // Anything of this window still there (e.g. a run whose cancel raced the shutdown) goes too.
  try {
    await engine().removeOwnContainers({ docker: dockerOptions() });
  } catch (e) {
    logChannel?.warn(`could not remove this window's containers: ${String(e)}`);
  }
  // This window's owner lease (ownerLease.ts) goes last: a clean exit, its containers are gone.
  engine().closeProcessLease();
}
