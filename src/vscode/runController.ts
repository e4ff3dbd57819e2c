/**
 * The run controller: owns one run from request to result, plain or interactive. In order:
 * admission (profile choice, malformed settings, consent to a workspace loosening), the
 * interactive terminal when asked, the output header, source tracking, the engine call (through
 * {@link RunManager}, which fires the start and finish events), the footer, the diagnostic of a
 * failed run, and the failure UI (./failures.ts). Commands (./commands.ts) only build a
 * {@link Target} and call {@link RunController.run}.
 */
import * as vscode from 'vscode';
import type { Profile, ResolvedProfile, RunResult, WarmPool } from '../core';
import { mayDeclareDependencies } from '../core/admission/mayDeclare';
import { decideRunStart } from '../core/admission/runStart';
import { shebangInterpreter } from '../core/profiles/shebang';
import { consentScope, ensureConsent, type ConsentStore } from './consent';
import type { DependencyAdmission } from './dependencyRun';
import { reportMalformedSettings, reportNoProfile, reportNotAllowed, reportRunFailure, reportUnknownProfile } from './failures';
import { headerLines, openRunTerminal, terminalText, type RunTerminal } from './interactiveRun';
import { deps as depsBundle, engine, markdown } from './lazy';
import { channelRunProfile, footer, type ProgramOutput } from './programOutput';
import { startedRun, type RunHistory } from './runHistory';
import type { RunManager } from './runManager';
import type { Target } from './runTarget';
import type { InstallStep } from './startRequest';
import { currentSettings, dockerOptions, interactiveSetting, outputSettings, preferRuntime, type OutputSettings, type SettingsSnapshot } from './settings';
import type { SourceLinks } from './sourceLinks';
import { workspaceRunFor, type WorkspaceRunFields } from './workspaceRun';

/** What the run controller needs. */
export interface RunControllerDeps {
  readonly runs: RunManager;
  readonly output: ProgramOutput;
  readonly log: vscode.LogOutputChannel;
  /** Extra host paths no mount may touch (the extension's own storage). */
  readonly protectedPaths: readonly string[];
  /** Consent for workspace profiles that loosen the sandbox. */
  readonly consents: ConsentStore;
  /**
   * The warm pool for a profile, or undefined when warm start is off for it (or a loosening of
   * it lacks consent in `settings`).
   */
  readonly warmFor: (profile: ResolvedProfile, settings: SettingsSnapshot, scope?: vscode.Uri) => WarmPool | undefined;
  /** Source links and diagnostics of runs (issue 11; made on first use, in the engine bundle); none when omitted. */
  readonly sources?: () => SourceLinks;
  /** Recent Runs (issue 12): told of every run that starts; none when omitted. */
  readonly history?: RunHistory;
  /** Told the language of every run that starts (warm start prepares for files of languages run in this window). */
  readonly noteRun?: (languageId: string) => void;
}

/** How to run a target. */
export interface RunOptions {
  /** The profile by name; default: the one for the target's language/extension, else the default profile. */
  readonly profileName?: string;
  /** Interactive (issue 11): the program gets a terminal of its own; default `sandboxRunner.interactive`. */
  readonly interactive?: boolean;
  /** Cancelling it cancels the run (as the cancel command does). */
  readonly token?: vscode.CancellationToken;
  /** Program arguments (issue 12): appended to the profile's command (core `RunRequest.args`). */
  readonly args?: readonly string[];
}

/** A profile admitted for a target, with the settings it was chosen from. */
interface Admitted {
  readonly chosen: ResolvedProfile;
  readonly settings: SettingsSnapshot;
  /** The document's workspace folder, file folder and masks (workspaceRun.ts). */
  readonly where?: WorkspaceRunFields;
}

/** The URI settings and consent are read for: the target's document (its own workspace folder in a multi-root window). */
function scopeOf(target: Target): vscode.Uri | undefined {
  try {
    return vscode.Uri.parse(target.documentUri, true);
  } catch {
    return undefined;
  }
}

/** True when `result` should bring the channel forward under `revealOutput: onError`: anything but exit code 0. */
function isError(result: RunResult): boolean {
  return !(result.outcome === 'exited' && result.exitCode === 0);
}

/** One run's output frame in the channel (ProgramOutput `begin`). */
type Frame = ReturnType<ProgramOutput['begin']>;

export class RunController {
  constructor(private readonly deps: RunControllerDeps) {}

  /**
   * Runs `target` (see {@link RunOptions}); frames the output; reports failures. Resolves with the
   * result, or undefined when no run started (refused, or its terminal closed before it opened).
   * Every refusal ({@link admit}) comes first, the same for both kinds of run.
   */
  async run(target: Target, options: RunOptions = {}): Promise<RunResult | undefined> {
    // The document's folder, file folder and masks (issue 12), read before any await: a file with
    // unsaved edits later still ran as the text read now.
    const where = workspaceRunFor(target);
    const admitted = await this.admit(target, options.profileName, where);
    if (!admitted) return undefined;
    const { chosen } = admitted;
    // Issue 22: what the run declares, and consent to install it, before any terminal or header.
    // A whole Markdown document's "# /// script" blocks inside fences belong to those blocks (their lenses), not to this run.
    const declaring = target.languageId === 'markdown' ? markdown().withoutFencedBlocks(target.code) : target.code;
    // Most runs declare nothing: they never load the dependencies bundle (issue 26).
    const deps: DependencyAdmission = mayDeclareDependencies(chosen.profile, declaring)
      ? await depsBundle().admitDependencies({ profileName: chosen.name, profile: chosen.profile, code: declaring, scope: scopeOf(target), trusted: admitted.settings.trusted, consents: this.deps.consents })
      : { kind: 'none' };
    if (deps.kind === 'declined') {
      this.deps.output.line(`[sandbox-runner] Not run: installing ${depsBundle().shownSpecs(deps.declared.untrustedSpecs)} for ${target.label.replace(/\n/g, ' ')} was not allowed.`);
      return undefined;
    }
    const install = deps.kind === 'install' ? deps.install : undefined;
    const interactive = options.interactive ?? interactiveSetting(scopeOf(target));
    // The terminal shows colours: no NO_COLOR/TERM=dumb there (see CHANNEL_ENV).
    const shown = interactive ? chosen.profile : channelRunProfile(chosen.profile);
    // sandboxRunner.preferRuntime (issue 25, machine-scoped): asked of the engine only when set.
    const prefer = preferRuntime();
    const profile = prefer && !shown.runtime ? engine().withPreferredRuntime(shown, prefer, await engine().engineRuntimes(dockerOptions())) : shown;
    const term = interactive ? await openRunTerminal(target.label, chosen.name, headerLines(target.label, chosen.name, chosen.source, profile)) : undefined;
    if (interactive && !term) {
      this.deps.output.line(`[sandbox-runner] Not run: the terminal for ${target.label} was closed before it opened.`);
      return undefined;
    }
    this.deps.noteRun?.(target.languageId);
    return this.start(target, { ...admitted, where }, profile, term, options, install);
  }

  /**
   * The one gate every run passes, plain or interactive: the named profile, or the one for the
   * target's language/extension, or the default profile (workspace profiles only in a trusted
   * workspace); no malformed settings for it; consent to a workspace loosening. Settings and
   * consent are those of the target's own workspace folder (multi-root). The rules are core
   * runStart.ts `decideRunStart`'s; this renders its refusal (output lines and a notification) and
   * asks for consent modally (consent.ts). Resolves with the profile and the settings it was chosen from, or undefined (refused).
   */
  private async admit(target: Target, profileName?: string, where: WorkspaceRunFields = {}): Promise<Admitted | undefined> {
    const { output, consents } = this.deps;
    const scope = scopeOf(target);
    const settings = currentSettings(scope);
    const query = { name: profileName, languageId: target.languageId, fileName: target.fileName, shebang: shebangInterpreter(target.code), paths: where.paths };
    const decision = decideRunStart({
      set: settings, settings: settings.route, query, caller: 'person', trusted: settings.trusted, consented: (r) => consents.has(r, consentScope(scope)),
    });
    switch (decision.kind) {
      case 'go':
        break;
      case 'no-profile':
      case 'restricted':
        this.refuseNoProfile(settings, target, profileName);
        return undefined;
      case 'malformed':
        // A malformed entry for this profile may have meant to tighten it: never fall back silently.
        for (const i of decision.issues) output.line(`[sandbox-runner] ${i.key}: ${i.message}`);
        void reportMalformedSettings(decision.chosen.name, decision.issues.length);
        return undefined;
      case 'needs-consent':
      case 'agent-loosening':
        // A loosened profile, or a document the workspace re-routed into a looser profile: asked once, modally.
        if (await ensureConsent(consents, decision.report, consentScope(scope))) break;
        // The descriptions quote workspace values (mount paths, images): in the output, not the pop-up.
        output.line(
          `[sandbox-runner] Not run: the workspace profile "${decision.chosen.name}" loosens the sandbox (${decision.report.loosenings.map((l) => l.description).join('; ')}) and was not allowed.`,
        );
        void reportNotAllowed(decision.chosen.name);
        return undefined;
    }
    return { chosen: decision.chosen, settings };
  }

  /** Says why no profile was found: the settings' problems in the output, and a notification. */
  private refuseNoProfile(settings: SettingsSnapshot, target: Target, profileName: string | undefined): void {
    for (const i of settings.issues) this.deps.output.line(`[sandbox-runner] ${i.key}: ${i.message}`);
    if (profileName === undefined) {
      void reportNoProfile(target.languageId, settings.issues);
      return;
    }
    const untrusted = !settings.trusted ? ' Workspace profiles are ignored in an untrusted workspace.' : '';
    const invalid = settings.invalid.some((p) => p.name === profileName) ? ' It is invalid: see the output.' : '';
    this.deps.output.line(`[sandbox-runner] No valid profile named "${profileName}".${invalid}${untrusted}`);
    void reportUnknownProfile(profileName, invalid, untrusted);
  }

  /** Starts the admitted run, with its frame in the channel, and follows it to its result. */
  private async start(target: Target, admitted: Admitted, profile: Profile, term: RunTerminal | undefined, options: RunOptions, install?: InstallStep): Promise<RunResult> {
    const { token, args = [] } = options;
    const { deps } = this;
    const { chosen, settings } = admitted;
    const docker = dockerOptions();
    // Which engine runs it: known from the cache, else asked beside the run (never awaited). A run
    // loads the engine bundle anyway (src/vscode/lazy.ts).
    const engineCode = engine();
    const known = engineCode.knownEngineIdentity(docker);
    if (!known) void engineCode.engineIdentity(docker);
    const shown = outputSettings(scopeOf(target));
    if (!term) this.prepareChannel(shown);
    const frame = deps.output.begin(target.label, chosen.name, chosen.source, profile, known && engineCode.describeEngine(known, profile.runtime));
    if (term) frame.sink('notice', vscode.l10n.t('interactive: input and output are in the terminal "{0}"', term.name));
    const afterRun = this.trackSource(target, frame, profile, term, admitted.where?.paths);
    const settle = (result: RunResult) => {
      const late = engineCode.knownEngineIdentity(docker);
      frame.end(result, late && engineCode.describeEngine(late, result.runtime ?? profile.runtime));
      if (!term && shown.reveal === 'onError' && isError(result)) deps.output.show();
      afterRun(result);
      term?.pty.finish(`■ ${footer(result)}`);
    };
    const { info, done } = deps.runs.start(
      {
        profileName: chosen.name,
        profile,
        code: target.code,
        label: target.label,
        documentUri: target.documentUri,
        sourceFileName: target.fileName,
        docker,
        protectedPaths: deps.protectedPaths,
        // A warm container was created without a TTY and with the channel's environment.
        // A preferred runtime changes the container: the pool's were made without it.
        warm: term || profile.runtime !== chosen.profile.runtime ? undefined : deps.warmFor(chosen, settings, scopeOf(target)),
        onOutput: term ? term.pty.sink : frame.sink,
        interactive: term?.pty.begin(),
        onArgv: (argv) => deps.log.debug(`docker ${argv.map((a) => JSON.stringify(a)).join(' ')}`),
        ...admitted.where,
        args,
        ...(install ? { install } : {}),
      },
      { token, settle },
    );
    deps.history?.started(startedRun(target, { id: info.id, profileName: chosen.name, profile, docker, args, interactive: !!term }, term ? () => terminalText(info.id) : frame.text));
    term?.attach(info.id, () => deps.runs.cancel(info.id));
    deps.log.info(`run ${info.id} started: ${target.label} with profile ${chosen.name}${term ? ' (interactive)' : ''}`);
    const result = await done;
    deps.log.info(`run ${info.id} ended: ${result.outcome} (${result.message})${result.cleanupError ? ` cleanup: ${result.cleanupError}` : ''}`);
    if (result.error?.detail) deps.log.warn(`run ${info.id}: ${result.error.detail}`);
    void reportRunFailure(result, profile.image, docker);
    return result;
  }

  /**
   * Before a channel run's header: clears the channel when `sandboxRunner.clearOutputBeforeRun`
   * is on and no other run is writing to it, and brings it forward under `revealOutput: always`
   * (VS Code `OutputChannel.show(preserveFocus: true)`: the editor keeps the keyboard focus, as
   * before issue 12).
   */
  private prepareChannel(shown: OutputSettings): void {
    if (shown.clear && this.deps.runs.active().length === 0) this.deps.output.clear();
    if (shown.reveal === 'always') this.deps.output.show();
  }

  /**
   * Source links and the diagnostic of one run (issue 11): the run's channel lines, or the lines of
   * its terminal when it is interactive, are linked to `target`'s document; its document's
   * diagnostic is cleared now, and the returned function, called after the footer, sets one at the
   * innermost snippet frame of a failed run's traceback (from the channel's stderr lines, or from
   * the terminal's text, where the TTY merged both streams). Loads the engine bundle (the origin and
   * the error site are computed there).
   */
  private trackSource(target: Target, frame: Frame, profile: Profile, term?: RunTerminal, paths?: WorkspaceRunFields['paths']): (result: RunResult) => void {
    const links = this.deps.sources?.();
    if (!links) return () => undefined;
    const code = engine();
    const source = {
      documentUri: target.documentUri,
      origin: code.snippetOrigin(profile, { source: target.fileName, untitled: target.untitled, sourceFileName: target.fileName, ...target.where }, paths),
    };
    if (term) links.linkTerminal(term.terminal, source);
    else links.track(frame, source);
    links.clear(target.documentUri);
    return (result) => {
      if (result.outcome !== 'compile-failed' && (result.outcome !== 'exited' || result.exitCode === 0)) return;
      const lines = term ? links.terminalLines(term.pty.text()) : links.runLines(frame.text());
      const site = code.findErrorSite(lines, source.origin);
      if (site) links.report(source, site, target.version);
    };
  }
}
