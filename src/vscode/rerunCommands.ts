/**
 * Re-run, arguments and Copy as sandbox-run Command (issue 12): the commands over the window's
 * Recent Runs (runHistory.ts). Every run they start goes through the same gate and controller as
 * any other (commands.ts `execute`: profile choice, trust, consent). The work that needs the
 * `shell-quote` library (splitting typed arguments, quoting command lines) and the output
 * documents live in the re-run bundle, loaded on first use (lazy.ts `rerun()`).
 */
import * as vscode from 'vscode';
import type { Profile, RunResult } from '../core';
import { pickProfile } from '../core/profiles/profileResolution';
import { execute, type CommandDeps } from './commands';
import { editorTarget, fileTarget, type Target } from './runTarget';
import { rerun } from './lazy';
import { plainText } from './plainText';
import { channelRunProfile } from './programOutput';
import { rerunBlocker, type RecentRunEntry, type RunHistory } from './runHistory';
import { currentSettings, dockerOptions } from './settings';
import type { TreeNode } from './profileTree';
import type { RunOutputDocuments } from './rerunModule';

/** The command ids this module registers. */
export const RERUN_COMMANDS = {
  runWithArguments: 'sandboxRunner.runWithArguments',
  rerunLast: 'sandboxRunner.rerunLast',
  rerun: 'sandboxRunner.rerun',
  showRunOutput: 'sandboxRunner.showRunOutput',
  copyAsCli: 'sandboxRunner.copyAsCli',
} as const;

/** The recent run a command was given: a tree row, a run id, or (none) the newest. */
function entryOf(history: RunHistory, arg: unknown): RecentRunEntry | undefined {
  if (typeof arg === 'string') return history.get(arg);
  if (typeof arg === 'object' && arg !== null && (arg as TreeNode).kind === 'recent') return history.get((arg as Extract<TreeNode, { kind: 'recent' }>).entry.run.id);
  return history.list()[0];
}

/**
 * The code a recent run re-runs: a file from its document (open text, else the file on disk); an
 * unsaved document's current text while it is open, else the text it ran; a selection's text as
 * it ran (this window only). Undefined, after saying why, when there is none.
 */
async function rerunTarget(entry: RecentRunEntry): Promise<Target | undefined> {
  const { run, memory } = entry;
  const blocker = rerunBlocker(entry);
  if (blocker) {
    void vscode.window.showInformationMessage(blocker);
    return undefined;
  }
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === run.documentUri);
  if (run.kind === 'file' || (run.kind === 'unsaved' && open)) {
    try {
      return await fileTarget(vscode.Uri.parse(run.documentUri, true));
    } catch {
      void vscode.window.showErrorMessage(vscode.l10n.t('Not re-run: {0} could not be opened (was it moved or deleted?).', plainText(run.label)));
      return undefined;
    }
  }
  // A selection (or closed unsaved text) as it ran: no document version, so no diagnostic is placed on lines that may have changed.
  return {
    code: memory!.code, label: run.label, languageId: run.languageId, fileName: run.fileName, documentUri: run.documentUri,
    version: -1, untitled: memory!.untitled, ...(memory!.where ? { where: memory!.where } : {}),
  };
}

/** Registers the re-run commands; all disposables go into `context.subscriptions`. */
export function registerRerunCommands(context: vscode.ExtensionContext, deps: CommandDeps, history: RunHistory): void {
  const documents: { current?: RunOutputDocuments } = {};
  context.subscriptions.push({ dispose: () => documents.current?.dispose() });
  const handlers: Record<string, (...args: unknown[]) => unknown> = {
    [RERUN_COMMANDS.runWithArguments]: (arg?: unknown, text?: unknown) => runWithArguments(deps, history, arg, text),
    [RERUN_COMMANDS.rerunLast]: () => rerunEntry(deps, history, undefined),
    [RERUN_COMMANDS.rerun]: (arg?: unknown) => rerunEntry(deps, history, arg ?? null),
    [RERUN_COMMANDS.showRunOutput]: (arg?: unknown) => showRunOutput(deps, entryOf(history, arg), documents),
    [RERUN_COMMANDS.copyAsCli]: (arg?: unknown) => copyAsCli(context, deps, entryOf(history, arg)),
  };
  for (const [id, handler] of Object.entries(handlers)) {
    context.subscriptions.push(vscode.commands.registerCommand(id, handler));
  }
}

/** Re-runs the recent run `arg` names ({@link entryOf}); says so when there is none. */
async function rerunEntry(deps: CommandDeps, history: RunHistory, arg: unknown): Promise<RunResult | undefined> {
  const entry = entryOf(history, arg);
  if (!entry) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No sandbox run to re-run yet: run a file or a selection first.'));
    return undefined;
  }
  const target = await rerunTarget(entry);
  return target && execute(deps, target, entry.run.profileName, entry.run.interactive, entry.run.args);
}

/**
 * Runs the editor's code (or the file `arg`) with program arguments: asked for (prefilled with
 * this document's last ones), or `arg`/`text` when a string, used as if typed (no prompt).
 */
async function runWithArguments(deps: CommandDeps, history: RunHistory, arg: unknown, text: unknown): Promise<RunResult | undefined> {
  const target = arg instanceof vscode.Uri && arg.toString() !== vscode.window.activeTextEditor?.document.uri.toString()
    ? await fileTarget(arg)
    : editorTarget(false);
  if (!target) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Open a file or select code to run it in the sandbox.'));
    return undefined;
  }
  const code = rerun();
  const typed = typeof arg === 'string' ? arg : typeof text === 'string' ? text : await askArguments(history, target);
  if (typed === undefined) return undefined;
  const split = code.splitArgs(typed);
  if ('error' in split) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Not run: {0}', split.error));
    return undefined;
  }
  await history.rememberArgs(target.documentUri, split.args);
  return execute(deps, target, undefined, undefined, split.args);
}

/** Asks for `target`'s program arguments, prefilled with its document's last ones; undefined when dismissed. */
function askArguments(history: RunHistory, target: Target): Thenable<string | undefined> {
  const code = rerun();
  return vscode.window.showInputBox({
    title: vscode.l10n.t('Run in Sandbox with Arguments: {0}', plainText(target.label)),
    prompt: vscode.l10n.t('Program arguments, split into words as a shell would (quotes and backslashes work); no shell runs, so | > ; $ are refused unless quoted.'),
    value: code.joinArgs(history.argsFor(target.documentUri) ?? []),
    ignoreFocusOut: true,
    validateInput: (value) => {
      const split = code.splitArgs(value);
      return 'error' in split ? split.error : undefined;
    },
  });
}

/** Opens the run's output (kept in this window's memory) as a read-only document; `documents.current` is made on first use. */
async function showRunOutput(
  deps: CommandDeps, entry: RecentRunEntry | undefined, documents: { current?: RunOutputDocuments },
): Promise<string | undefined> {
  if (!entry?.memory?.output) {
    deps.output.show();
    if (entry) void vscode.window.showInformationMessage(vscode.l10n.t('The output of this run is not kept across window reloads; the Sandbox Runner output shows the runs of this window.'));
    return undefined;
  }
  documents.current ??= new (rerun().RunOutputDocuments)();
  await documents.current.show(entry.run.id, entry.run.label, entry.memory.output);
  return entry.memory.output;
}

/** Copies a command line that reproduces the run (and returns it). */
async function copyAsCli(context: vscode.ExtensionContext, deps: CommandDeps, entry: RecentRunEntry | undefined): Promise<string | undefined> {
  if (!entry) return undefined;
  const { run, memory } = entry;
  const blocker = rerunBlocker(entry, 'copy');
  if (blocker) {
    void vscode.window.showInformationMessage(blocker);
    return undefined;
  }
  const profile = memory?.profile ?? profileAfterReload(deps, entry);
  if (!profile) return undefined;
  const code = rerun();
  let text: string;
  try {
    text = code.cliCommandLine({
      cli: await code.cliInvocation(context.extensionPath),
      profileName: run.profileName,
      profile,
      ...(run.kind === 'file' ? { file: vscode.Uri.parse(run.documentUri, true).fsPath } : { code: memory!.code }),
      ...workspaceOf(run.documentUri),
      args: run.args,
      interactive: run.interactive,
      docker: memory?.docker ?? dockerOptions(),
    });
  } catch (e) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Not copied: the run {0}: {1}.', plainText(run.label), (e as Error).message));
    return undefined;
  }
  await vscode.env.clipboard.writeText(text);
  void vscode.window.setStatusBarMessage(vscode.l10n.t('Copied the sandbox-run command line for {0}.', plainText(run.label)), 4000);
  return text;
}

/**
 * After a reload (no profile kept in memory): the run's profile as the current settings resolve
 * it, and only without an unconsented loosening; undefined, after saying why, otherwise.
 */
function profileAfterReload(deps: CommandDeps, { run }: RecentRunEntry): Profile | undefined {
  const settings = currentSettings();
  const query = { name: run.profileName, languageId: run.languageId, fileName: run.fileName };
  const chosen = pickProfile(settings, query);
  const loosening = settings.looseningFor(query);
  if (!chosen || (loosening && !deps.consents.has(loosening))) {
    void vscode.window.showWarningMessage(chosen ? vscode.l10n.t('Not copied: the sandbox profile "{0}" loosens the sandbox and is not allowed in this workspace.', plainText(run.profileName)) : vscode.l10n.t('Not copied: the sandbox profile "{0}" no longer exists.', plainText(run.profileName)));
    return undefined;
  }
  return run.interactive ? chosen.profile : channelRunProfile(chosen.profile);
}

/** `{ workspace }`: the folder of the workspace the run's document belongs to (VS Code `getWorkspaceFolder`), when it is a local folder. */
function workspaceOf(documentUri: string): { workspace?: string } {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(documentUri, true));
  return folder?.uri.scheme === 'file' ? { workspace: folder.uri.fsPath } : {};
}
