/**
 * Every command of the extension, each a factory over its dependencies; `registerCommands`
 * puts every registration into `context.subscriptions`.
 */
import * as vscode from 'vscode';
import { blockingIssues, chooseProfile, dedent, type Profile, type ResolvedProfile, type RunResult, type WarmPool } from '../core';
import { ensureConsent, type ConsentStore } from './consent';
import { headerLines, openRunTerminal, terminalText, type RunTerminal } from './interactiveRun';

import { engine } from './lazy';
import type { TreeNode } from './profileTree';
import { reportNoProfile, reportRunFailure } from './failures';
import { plainText } from './plainText';
import { channelRunProfile, footer, type ProgramOutput } from './programOutput';
import type { RunManager } from './runManager';
import { startedRun, type RunHistory } from './runHistory';
import { currentSettings, dockerOptions, interactiveSetting, type SettingsSnapshot } from './settings';
import type { SourceLinks } from './sourceLinks';

/** What the extension's commands need. */
export interface CommandDeps {
  readonly runs: RunManager;
  readonly output: ProgramOutput;
  readonly log: vscode.LogOutputChannel;
  readonly refreshProfiles: () => Promise<void>;
  /** Extra host paths no mount may touch (the extension's own storage). */
  readonly protectedPaths: readonly string[];
  /** Consent for workspace profiles that loosen the sandbox. */
  readonly consents: ConsentStore;
  /**
   * The warm pool for a profile, or undefined when warm start is off for it (or a loosening of
   * it lacks consent in `settings`).
   */
  readonly warmFor: (profile: ResolvedProfile, settings: SettingsSnapshot) => WarmPool | undefined;
  /** Source links and diagnostics of runs (issue 11; made on first use, in the engine bundle); none when omitted. */
  readonly sources?: () => SourceLinks;
  /** Recent Runs (issue 12): told of every run that starts; none when omitted. */
  readonly history?: RunHistory;
}

/** The code to run and where it came from. */
export interface Target {
  readonly code: string;
  readonly label: string;
  readonly languageId: string;
  readonly fileName: string;
  /** The document's URI (`Uri.toString()`), its version when read, and whether it is untitled. */
  readonly documentUri: string;
  readonly version: number;
  readonly untitled: boolean;
  /** For a selection: its 0-based first line and column and the dedent width (core dedent.ts). */
  readonly where?: { readonly line: number; readonly column: number; readonly dedent: number };
}

/** What a Target needs from its document. */
function fromDocument(doc: vscode.TextDocument) {
  return { languageId: doc.languageId, fileName: doc.fileName, documentUri: doc.uri.toString(), version: doc.version, untitled: doc.isUntitled };
}

function documentName(doc: vscode.TextDocument): string {
  return doc.isUntitled ? doc.uri.path : vscode.workspace.asRelativePath(doc.uri);
}

/** The selection of the active editor if non-empty, else its whole document (unsaved text included). */
export function editorTarget(wholeFile: boolean): Target | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const doc = editor.document;
  const sel = editor.selection;
  const base = fromDocument(doc);
  if (!wholeFile && !sel.isEmpty) {
    // Selections run as written (issue 11): whitespace before the selection on its first line is
    // its indentation, and the common indentation is removed (core dedent).
    const before = doc.lineAt(sel.start.line).text.slice(0, sel.start.character);
    const start = /^[ \t]*$/.test(before) ? sel.start.with(undefined, 0) : sel.start;
    const { text, width } = dedent(doc.getText(new vscode.Range(start, sel.end)));
    const label = `selection of ${documentName(doc)} (lines ${sel.start.line + 1}-${sel.end.line + 1})`;
    return { ...base, code: text, label, where: { line: start.line, column: start.character, dedent: width } };
  }
  return { ...base, code: doc.getText(), label: documentName(doc) };
}

/** A whole file by URI (its open, possibly unsaved, text when open). */
export async function fileTarget(uri: vscode.Uri): Promise<Target> {
  const doc = await vscode.workspace.openTextDocument(uri);
  return { ...fromDocument(doc), code: doc.getText(), label: documentName(doc) };
}

/**
 * Source links and the diagnostic of one run (issue 11): the run's channel lines, or the lines of
 * its terminal when it is interactive, are linked to `target`'s document; its document's
 * diagnostic is cleared now, and the returned function, called after the footer, sets one at the
 * innermost snippet frame of a failed run's traceback (from the channel's stderr lines, or from
 * the terminal's text, where the TTY merged both streams). Loads the engine bundle (the origin and
 * the error site are computed there).
 */
function trackSource(deps: CommandDeps, target: Target, frame: ReturnType<ProgramOutput['begin']>, profile: Profile, term?: RunTerminal): (result: RunResult) => void {
  const links = deps.sources?.();
  if (!links) return () => undefined;
  const code = engine();
  const source = {
    documentUri: target.documentUri,
    origin: code.snippetOrigin(profile, { source: target.fileName, untitled: target.untitled, sourceFileName: target.fileName, ...target.where }),
  };
  if (term) links.linkTerminal(term.terminal, source);
  else links.track(frame, source);
  links.clear(target.documentUri);
  return (result) => {
    if (result.outcome !== 'exited' || result.exitCode === 0) return;
    const lines = term ? links.terminalLines(term.pty.text()) : links.runLines(frame.text());
    const site = code.findErrorSite(lines, source.origin);
    if (site) links.report(source, site, target.version);
  };
}

/**
 * The one gate every run passes, plain or interactive: the named profile, or the one for the
 * target's language/extension, or the default profile (workspace profiles only in a trusted
 * workspace); no malformed settings for it; consent to a workspace loosening. Says why when it
 * refuses. Resolves with the profile and the settings it was chosen from, or undefined (refused).
 */
async function admit(deps: CommandDeps, target: Target, profileName?: string): Promise<{ chosen: ResolvedProfile; settings: SettingsSnapshot } | undefined> {
  const settings = currentSettings();
  const query = { name: profileName, languageId: target.languageId, fileName: target.fileName };
  const chosen = chooseProfile(settings, query, settings.defaultProfile);
  if (!chosen) {
    for (const i of settings.issues) deps.output.line(`[sandbox-runner] ${i.key}: ${i.message}`);
    if (profileName !== undefined) {
      const untrusted = !settings.trusted ? ' Workspace profiles are ignored in an untrusted workspace.' : '';
      const invalid = settings.invalid.some((p) => p.name === profileName) ? ' It is invalid: see the output.' : '';
      deps.output.line(`[sandbox-runner] No valid profile named "${profileName}".${invalid}${untrusted}`);
      void vscode.window.showErrorMessage(`No valid sandbox profile named "${plainText(profileName)}".${invalid}${untrusted}`, 'Show Output').then(
        (c) => c && vscode.commands.executeCommand('sandboxRunner.showOutput'),
      );
    } else {
      void reportNoProfile(target.languageId, settings.issues);
    }
    return undefined;
  }
  // A malformed entry for this profile may have meant to tighten it: never fall back silently.
  const blocking = blockingIssues(settings, chosen.name, query);
  if (blocking.length > 0) {
    for (const i of blocking) deps.output.line(`[sandbox-runner] ${i.key}: ${i.message}`);
    // The setting keys and messages quote workspace values: they are in the output, not the pop-up.
    void vscode.window
      .showErrorMessage(
        `Not run: the settings for sandbox profile "${plainText(chosen.name)}", or of a profile meant for this file, are malformed (${blocking.length} problem${blocking.length === 1 ? '' : 's'}, listed in the Sandbox Runner output).`,
        'Open Settings',
        'Show Output',
      )
      .then((c) =>
        c === 'Show Output'
          ? vscode.commands.executeCommand('sandboxRunner.showOutput')
          : c && vscode.commands.executeCommand('workbench.action.openSettings', 'sandboxRunner.profiles'),
      );
    return undefined;
  }
  // A loosened profile, or a document the workspace re-routed into a looser profile (core routeLoosening).
  const loosening = settings.looseningFor(query);
  if (loosening && !(await ensureConsent(deps.consents, loosening))) {
    // The descriptions quote workspace values (mount paths, images): in the output, not the pop-up.
    deps.output.line(
      `[sandbox-runner] Not run: the workspace profile "${chosen.name}" loosens the sandbox (${loosening.loosenings.map((l) => l.description).join('; ')}) and was not allowed.`,
    );
    void vscode.window.showWarningMessage(
      `Not run: the workspace profile "${plainText(chosen.name)}" loosens the sandbox and was not allowed (the Sandbox Runner output lists what it loosens).`,
    );
    return undefined;
  }
  return { chosen, settings };
}

/**
 * Runs `target` with the named profile, or the one for its language/extension, or the default
 * profile; frames the output; reports failures. Resolves with the result, or undefined when no
 * run started. `interactive` (issue 11): the program gets a terminal of its own (a TTY, see
 * interactiveRun.ts) for input and output; the output channel keeps the run's frame. Every
 * refusal ({@link admit}) comes first, the same for both kinds. `args`: program arguments (issue 12),
 * appended to the profile's command (core `RunRequest.args`).
 */
export async function execute(deps: CommandDeps, target: Target, profileName?: string, interactive = interactiveSetting(), args: readonly string[] = []): Promise<RunResult | undefined> {
  const admitted = await admit(deps, target, profileName);
  if (!admitted) return undefined;
  const { chosen, settings } = admitted;
  // The terminal shows colours: no NO_COLOR/TERM=dumb there (see CHANNEL_ENV).
  const profile = interactive ? chosen.profile : channelRunProfile(chosen.profile);
  const term = interactive ? await openRunTerminal(target.label, chosen.name, headerLines(target.label, chosen.name, chosen.source, profile)) : undefined;
  if (interactive && !term) {
    deps.output.line(`[sandbox-runner] Not run: the terminal for ${target.label} was closed before it opened.`);
    return undefined;
  }
  const docker = dockerOptions();
  // Which engine runs it: known from the cache, else asked beside the run (never awaited). A run
  // loads the engine bundle anyway (src/vscode/lazy.ts).
  const engineCode = engine();
  const known = engineCode.knownEngineIdentity(docker);
  if (!known) void engineCode.engineIdentity(docker);
  if (!term) deps.output.show();
  const frame = deps.output.begin(target.label, chosen.name, chosen.source, profile, known && engineCode.describeEngine(known));
  if (term) frame.sink('notice', `interactive: input and output are in the terminal "${term.name}"`);
  const afterRun = trackSource(deps, target, frame, profile, term);
  const { info, done } = deps.runs.start({
    profileName: chosen.name,
    profile,
    code: target.code,
    label: target.label,
    sourceFileName: target.fileName,
    docker,
    protectedPaths: deps.protectedPaths,
    // A warm container was created without a TTY and with the channel's environment.
    warm: term ? undefined : deps.warmFor(chosen, settings),
    onOutput: term ? term.pty.sink : frame.sink,
    interactive: term?.pty.begin(),
    onArgv: (argv) => deps.log.debug(`docker ${argv.map((a) => JSON.stringify(a)).join(' ')}`),
    args,
  });
  deps.history?.started(startedRun(target, { id: info.id, profileName: chosen.name, profile, docker, args, interactive: !!term }, term ? () => terminalText(info.id) : frame.text));
  term?.attach(info.id, () => deps.runs.cancel(info.id));
  deps.log.info(`run ${info.id} started: ${target.label} with profile ${chosen.name}${term ? ' (interactive)' : ''}`);
  void vscode.window.withProgress(
    // The title renders `[label](command:…)` links: the label (a file name) goes through plainText.
    { location: vscode.ProgressLocation.Notification, title: `Sandbox: ${plainText(target.label)}`, cancellable: true },
    (_progress, token) => {
      token.onCancellationRequested(() => deps.runs.cancel(info.id));
      return done;
    },
  );
  const result = await done;
  const late = engineCode.knownEngineIdentity(docker);
  frame.end(result, late && engineCode.describeEngine(late));
  afterRun(result);
  term?.pty.finish(`■ ${footer(result)}`);
  deps.log.info(`run ${info.id} ended: ${result.outcome} (${result.message})${result.cleanupError ? ` cleanup: ${result.cleanupError}` : ''}`);
  if (result.error?.detail) deps.log.warn(`run ${info.id}: ${result.error.detail}`);
  deps.runs.announce({ ...info, result });
  void reportRunFailure(result, profile.image, docker);
  return result;
}

function isNode<K extends TreeNode['kind']>(arg: unknown, kind: K): arg is Extract<TreeNode, { kind: K }> {
  return typeof arg === 'object' && arg !== null && (arg as { kind?: unknown }).kind === kind;
}

async function noEditor(): Promise<undefined> {
  void vscode.window.showInformationMessage('Open a file or select code to run it in the sandbox.');
  return undefined;
}

/** Registers every command; all disposables go into `context.subscriptions`. */
export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const { runs } = deps;
  const handlers: Record<string, (...args: unknown[]) => unknown> = {
    'sandboxRunner.run': async (arg?: unknown) => {
      if (arg instanceof vscode.Uri && arg.toString() !== vscode.window.activeTextEditor?.document.uri.toString()) {
        return execute(deps, await fileTarget(arg));
      }
      const target = editorTarget(false);
      return target ? execute(deps, target) : noEditor();
    },
    'sandboxRunner.runInteractive': async (arg?: unknown) => {
      if (arg instanceof vscode.Uri && arg.toString() !== vscode.window.activeTextEditor?.document.uri.toString()) {
        return execute(deps, await fileTarget(arg), undefined, true);
      }
      const target = editorTarget(false);
      return target ? execute(deps, target, undefined, true) : noEditor();
    },
    'sandboxRunner.runSelection': async () => {
      const target = editorTarget(false);
      return target ? execute(deps, target) : noEditor();
    },
    'sandboxRunner.runFile': async (arg?: unknown) => {
      if (arg instanceof vscode.Uri) return execute(deps, await fileTarget(arg));
      const target = editorTarget(true);
      return target ? execute(deps, target) : noEditor();
    },
    'sandboxRunner.runWithProfile': async (arg?: unknown) => {
      let name = typeof arg === 'string' ? arg : isNode(arg, 'profile') ? arg.summary.name : undefined;
      if (name === undefined) {
        const settings = currentSettings();
        const picked = await vscode.window.showQuickPick(
          // Quick pick items render `$(icon)`: shown names are escaped, the pick carries the real one.
          settings.profiles.map((p) => ({
            name: p.name,
            label: plainText(p.name),
            description: plainText(`${p.source} · ${p.profile.image}`),
            detail: `network ${p.profile.network === 'none' ? 'off' : 'on'} · ${p.profile.limits.memoryMiB} MiB · ${p.profile.limits.timeoutSeconds} s`,
          })),
          { title: 'Run in Sandbox with Profile', placeHolder: 'Choose a sandbox profile' },
        );
        if (!picked) return undefined;
        name = picked.name;
      }
      const target = editorTarget(false);
      return target ? execute(deps, target, name) : noEditor();
    },
    'sandboxRunner.cancel': async (arg?: unknown) => {
      const id = typeof arg === 'string' ? arg : isNode(arg, 'run') ? arg.run.id : undefined;
      if (id !== undefined) return runs.cancel(id);
      const active = runs.active();
      if (active.length === 0) return false;
      if (active.length === 1) return runs.cancel(active[0]!.id);
      const all = { label: '$(debug-stop) Cancel All', id: '*' };
      const picked = await vscode.window.showQuickPick(
        [all, ...active.map((r) => ({ label: plainText(r.label), description: plainText(r.profileName), id: r.id }))],
        { title: 'Cancel Sandbox Run' },
      );
      if (!picked) return false;
      if (picked.id === '*') await runs.cancelAll();
      else runs.cancel(picked.id);
      return true;
    },
    'sandboxRunner.cancelAll': () => runs.cancelAll(),
    'sandboxRunner.showOutput': () => deps.output.show(),
    'sandboxRunner.refreshProfiles': () => deps.refreshProfiles(),
    'sandboxRunner.revokeConsents': () => deps.consents.revokeAll(),
    'sandboxRunner.openProfileSetting': async (arg?: unknown) => {
      const source = isNode(arg, 'profile') ? arg.summary.source : 'user';
      const command = source === 'workspace' ? 'workbench.action.openWorkspaceSettingsFile' : 'workbench.action.openSettingsJson';
      if (source === 'built-in') return vscode.commands.executeCommand('workbench.action.openSettings', 'sandboxRunner.profiles');
      return vscode.commands.executeCommand(command);
    },
  };
  for (const [id, handler] of Object.entries(handlers)) {
    context.subscriptions.push(vscode.commands.registerCommand(id, handler));
  }
}
