/**
 * The language model tool `sandboxRunner_run` ("Run in Sandbox", issue 14): chat agents call it
 * with `{ code, language?, profile?, stdin?, timeoutSeconds?, dependencies?, session?, files? }`
 * (core agentRun.ts, agentSession.ts). Lives in the engine bundle (loaded on the first call,
 * src/vscode/agentToolEntry.ts registers a forwarder).
 * - `prepareInvocation` shows what will run before the user confirms (VS Code's confirmation for
 *   tools with side effects): the profile, image, network and limits, and the whole code in a
 *   fenced block (issue 34: visibleText escapes, settings values too; too long to show whole is refused). All of it is untrusted text (the agent's code, workspace settings):
 *   a MarkdownString that is not trusted (no command links), without HTML or theme icons, the
 *   settings values escaped with `appendText`, the code in a fence longer than any backtick run in it.
 * - `invoke` admits the run by the person's rules (currentSettings: Restricted Mode keeps only
 *   built-in and user profiles; a malformed entry blocks; a workspace loosening runs only after
 *   the user granted consent in the normal UI, consent.ts: the tool never asks or grants it),
 *   caps the time limit (`sandboxRunner.agentTool.maxTimeoutSeconds`), and runs like any other
 *   run (RunManager: status bar, tree, Cancel; the output channel frame, whose header says it came
 *   from an agent tool). The chat's cancellation token cancels the run. The model gets core
 *   agentRun.ts's text: outcome, the sandbox rule, stdout and stderr bounded and fenced as
 *   untrusted program output.
 * - `dependencies` (issue 22): the packages the input and a PEP 723 block in the code declare are
 *   listed in the confirmation, with the index and what has network; confirming is the consent.
 *   They install before the run (RunManager `StartRequest.install`) with the user's
 *   `sandboxRunner.dependencies.*` settings. In Restricted Mode an agent's run that declares
 *   packages is refused: there, only the person's own modal installs.
 * - `session` and `files` (issue 24, the MCP server's semantics, core agentSession.ts and
 *   agentSessions.ts): `"new"` starts a Python session (admitted like a run: Restricted Mode,
 *   consent, a profile that can host one, a free slot of at most 2) and returns its id; an id runs
 *   the code as that session's next cell under the rules it started with. The confirmation names
 *   the session (new, or its id and age), lists the files passed in with their sizes and shows
 *   each source file whole (core sessionFiles.ts; compiled code is refused there). Results,
 *   images and out files: agentSessionTool.ts; `sandboxRunner_closeSession` closes one.
 * - `sandboxRunner.agentTool.enabled` false: every call is refused with a message (package.json's
 *   `when` also hides the tool from agents then).
 */
import * as vscode from 'vscode';
import type { Profile, ResolvedProfile, WarmPool } from '../core';
import { decideRunStart, type RunRefusal } from '../core/admission/runStart';
import {
  agentGrantLines, agentNoProfileText, AgentOutput, agentProfile, agentQuery, agentResult, agentResultText, agentStdin, DEFAULT_AGENT_MAX_TIMEOUT_SECONDS, type AgentRunInput,
} from '../core/agent/agentRun';
import { agentFiles, agentSessionConfirmLines, agentSessionInputRefusal, parseAgentSessionInput, type AgentSessionInput } from '../core/agent/agentSession';
import type { AgentSessionInfo, AgentSessions } from '../core/agent/agentSessions';
import { isRelativeFileName } from '../core/session/frames';
import { shownCode, visibleText } from '../core/agent/visibleText';
import { confirmTooLong, shownSources, type ShownSource } from '../core/agent/sessionFiles';
import { checkSessionProfile } from '../core/session/start';
import { abortOnCancel } from './cancellation';
import { AgentCloseTool, agentToolSessions, sessionToolResult } from './agentSessionTool';
import { declaredDependencies, installDeclared, installEnvironment, installSource, shownSpecs, type DeclaredDependencies } from '../core/deps/declared';
import { requiresPythonCheck } from '../core/deps/imagePython';
import { isSandboxError, SandboxError } from '../core/errors';
import type { ConsentStore } from './consent';
import type { InstallStep, RunStarter } from './startRequest';
import { channelRunProfile, type ProgramOutput } from './programOutput';
import { currentSettings, dockerOptions, installSettings, SECTION, type SettingsSnapshot } from './settings';

/** The tool's name (package.json `contributes.languageModelTools`). */
export const AGENT_TOOL_NAME = 'sandboxRunner_run';

/** The tool's user settings (application scope: workspace values are never read). */
export function agentToolSettings(): { enabled: boolean; maxTimeoutSeconds: number } {
  const config = vscode.workspace.getConfiguration(SECTION);
  const enabled = config.inspect<boolean>('agentTool.enabled')?.globalValue;
  const cap = config.inspect<number>('agentTool.maxTimeoutSeconds')?.globalValue;
  return {
    enabled: enabled !== false,
    maxTimeoutSeconds: typeof cap === 'number' && cap >= 0.1 && cap <= 86400 ? cap : DEFAULT_AGENT_MAX_TIMEOUT_SECONDS,
  };
}

/** A run the tool may start: the input, its profile (time limit capped) and the settings it was chosen from. */
interface Admitted {
  readonly input: AgentSessionInput;
  readonly chosen: ResolvedProfile;
  readonly profile: Profile;
  readonly settings: SettingsSnapshot;
  /** Issue 22: what the run installs first, with the index it installs from. */
  readonly dependencies?: { readonly declared: DeclaredDependencies; readonly source: string };
  /** Issue 24, `session: "new"`: the session's profile (time limit capped, without the call's own limit) and the files passed in. */
  readonly newSession?: { readonly profile: Profile; readonly files: Record<string, Uint8Array> };
}

/** Issue 24: a call in an open session (its profile and rules were admitted when it started). */
interface InSession {
  readonly input: AgentSessionInput;
  readonly id: string;
  readonly info: AgentSessionInfo;
  readonly files: Record<string, Uint8Array>;
}

/** A fence of backticks longer than any run of backticks in `text` (at least 3), so the text cannot close it. */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/**
 * The text of a refused tool call (core runStart.ts `RunRefusal`), for the model and the user: no
 * profile (listing the valid ones; in Restricted Mode saying so), a malformed entry, or a
 * loosening the user has not allowed (the tool never asks for it).
 */
function agentToolRefusalText(decision: RunRefusal, settings: SettingsSnapshot, input: AgentRunInput): string {
  switch (decision.kind) {
    case 'no-profile':
    case 'restricted': {
      const untrusted = decision.kind === 'restricted' ? ' This workspace is in Restricted Mode: only built-in and user profiles run.' : '';
      return `Not run: ${agentNoProfileText(settings, input)}${untrusted}`;
    }
    case 'malformed':
      return `Not run: the settings for sandbox profile "${decision.chosen.name}" are malformed (${decision.issues.map((i) => `${i.key}: ${i.message}`).join('; ')}).`;
    case 'needs-consent':
    case 'agent-loosening':
      return (
        `Not run: the workspace profile "${decision.chosen.name}" loosens the sandbox (${decision.report.loosenings.map((l) => l.key).join(', ')}) and the user has not allowed that loosening. ` +
        'The tool never asks for it: the user may allow it by running the profile once with "Sandbox Runner: Run in Sandbox with Profile…".'
      );
  }
}

/**
 * What the tool needs of the extension: runController.ts `RunControllerDeps` provides it (typed
 * here by structure, so this module of the lazy engine bundle does not import the run controller).
 */
export interface AgentToolDeps {
  readonly runs: RunStarter;
  readonly output: ProgramOutput;
  readonly log: vscode.LogOutputChannel;
  /** Extra host paths no mount may touch (the extension's own storage). */
  readonly protectedPaths: readonly string[];
  readonly consents: Pick<ConsentStore, 'has'>;
  /** The warm pool for a profile, or undefined when warm start is off for it. */
  readonly warmFor: (profile: ResolvedProfile, settings: SettingsSnapshot, scope?: vscode.Uri) => WarmPool | undefined;
}

/** The tool: admission, confirmation, run. */
export class AgentTool implements vscode.LanguageModelTool<unknown> {
  /** Issue 24: this window's agent sessions (agentSessionTool.ts). */
  private readonly sessions: AgentSessions;
  /** The `sandboxRunner_closeSession` tool, on the same sessions. */
  readonly closer: AgentCloseTool;

  constructor(private readonly deps: AgentToolDeps) {
    this.sessions = agentToolSessions((m) => deps.log.info(`agent tool: ${m}`), deps.protectedPaths);
    this.closer = new AgentCloseTool(this.sessions);
  }

  /**
   * The person's rules for this input, or why not. A call in an open session runs under the rules
   * its session was started with; `session: "new"` needs a profile that can host a session and a free slot.
   * @returns the admitted run or session call, or a refusal (plain text for the model and the user)
   */
  admit(raw: unknown): Admitted | InSession | { refusal: string } {
    const tool = agentToolSettings();
    if (!tool.enabled) return { refusal: 'Not run: the Run in Sandbox tool is turned off in this user\'s settings (sandboxRunner.agentTool.enabled).' };
    const parsed = parseAgentSessionInput(raw);
    if ('refusal' in parsed) return parsed;
    const { input } = parsed;
    const combination = agentSessionInputRefusal(input);
    if (combination) return { refusal: combination };
    const files = agentFiles(input.files, isRelativeFileName);
    if (typeof files === 'string') return { refusal: `Not run: ${files}` };
    const tooLong = confirmTooLong(input.code, shownSources(files));
    if (tooLong) return { refusal: `Not run: ${tooLong}` };
    if (input.session !== undefined && input.session !== 'new') {
      const info = this.sessions.info(input.session);
      return info ? { input, id: input.session, info, files } : { refusal: this.sessions.missing(input.session) };
    }
    const settings = currentSettings();
    // The tool never asks for consent: only one the user already gave in the normal UI counts.
    const decision = decideRunStart({
      set: settings, settings: settings.route, query: agentQuery(input), caller: 'agent', trusted: settings.trusted, consented: (r) => this.deps.consents.has(r),
    });
    if (decision.kind !== 'go') return { refusal: agentToolRefusalText(decision, settings, input) };
    const { chosen } = decision;
    const { profile } = agentProfile(channelRunProfile(chosen.profile), input.timeoutSeconds, tool.maxTimeoutSeconds);
    let declared;
    try {
      declared = declaredDependencies(chosen.name, profile, input.code, input.dependencies);
    } catch (e) {
      return { refusal: `Not run: ${isSandboxError(e) ? `${e.message} ${e.fix}` : String(e)}` };
    }
    if (input.session === 'new') return this.admitNew(input, chosen, profile, settings, files, declared && shownSpecs(declared.specs));
    if (!declared) return { input, chosen, profile, settings };
    const shown = shownSpecs(declared.specs);
    if (!settings.trusted) return { refusal: `Not run: the code declares dependencies (${shown}), and in Restricted Mode packages are installed only after the user allows them in the editor. Use only the standard library, or ask the user to run the code from the editor.` };
    const { settings: install, issues } = installSettings();
    if (issues.length > 0) return { refusal: `Not run: ${issues[0]!.message} in the user's settings, so no dependencies can be installed. Ask the user to correct it, or use no dependencies.` };
    return { input, chosen, profile, settings, dependencies: { declared, source: installSource(declared.manager, installEnvironment(install, process.env)) } };
  }

  /** `session: "new"`: refused when the call declares packages, the profile cannot host a session, or no slot is free. */
  private admitNew(input: AgentSessionInput, chosen: ResolvedProfile, profile: Profile, settings: SettingsSnapshot, files: Record<string, Uint8Array>, declared: string | undefined): Admitted | { refusal: string } {
    const refusal = declared !== undefined ? agentSessionInputRefusal(input, declared) : undefined;
    if (refusal) return { refusal };
    try {
      checkSessionProfile(chosen.name, chosen.profile);
    } catch (e) {
      return { refusal: `Not run: ${isSandboxError(e) ? `${e.message} ${e.fix}` : String(e)}` };
    }
    const over = this.sessions.overBound();
    if (over) return { refusal: over };
    const { profile: sessionProfile } = agentProfile(chosen.profile, undefined, agentToolSettings().maxTimeoutSeconds);
    return { input, chosen, profile, settings, newSession: { profile: sessionProfile, files } };
  }

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>): vscode.PreparedToolInvocation {
    const admitted = this.admit(options.input);
    // A refused call runs nothing: no confirmation; invoke() returns the refusal.
    if ('refusal' in admitted) return { invocationMessage: vscode.l10n.t('Sandbox Runner refuses this run') };
    if ('id' in admitted) {
      return {
        invocationMessage: vscode.l10n.t('Running code in sandbox session {0}', admitted.id),
        confirmationMessages: { title: vscode.l10n.t('Run in Sandbox Session?'), message: sessionConfirmationMessage(admitted) },
      };
    }
    if (admitted.newSession) {
      return {
        invocationMessage: vscode.l10n.t('Starting a sandbox session (profile {0})', visibleText(admitted.chosen.name)),
        confirmationMessages: { title: vscode.l10n.t('Run in Sandbox Session?'), message: confirmationMessage(admitted, agentSessionConfirmLines('new', admitted.newSession.files), shownSources(admitted.newSession.files)) },
      };
    }
    return {
      invocationMessage: vscode.l10n.t('Running code in the sandbox (profile {0})', visibleText(admitted.chosen.name)),
      confirmationMessages: { title: vscode.l10n.t('Run in Sandbox?'), message: confirmationMessage(admitted) },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const admitted = this.admit(options.input);
    if ('refusal' in admitted) {
      this.deps.output.line(`[sandbox-runner] agent tool: ${admitted.refusal}`);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(admitted.refusal)]);
    }
    if ('id' in admitted || admitted.newSession) return this.invokeInSession(admitted, token);
    const { input, chosen, profile, settings } = admitted;
    const { deps } = this;
    const lines = input.code.replace(/\r?\n$/, '').split('\n').length;
    const label = lines === 1 ? vscode.l10n.t('code from an agent (Run in Sandbox tool, 1 line)') : vscode.l10n.t('code from an agent (Run in Sandbox tool, {0} lines)', lines);
    deps.output.show();
    const frame = deps.output.begin(label, chosen.name, chosen.source, profile);
    frame.sink('notice', `[sandbox-runner] started by a chat agent through the Run in Sandbox language model tool${input.stdin !== undefined ? '; its stdin is the agent\'s text' : ''}`);
    const output = new AgentOutput(undefined, undefined, frame.sink);
    const { info, done } = deps.runs.start({
      profileName: chosen.name,
      profile,
      code: input.code,
      label,
      docker: dockerOptions(),
      protectedPaths: deps.protectedPaths,
      warm: input.stdin === undefined ? deps.warmFor(chosen, settings) : undefined,
      onOutput: output.sink,
      interactive: agentStdin(input.stdin),
      onArgv: (argv) => deps.log.debug(`docker ${argv.map((a) => JSON.stringify(a)).join(' ')}`),
      ...(admitted.dependencies ? { install: agentInstall(chosen.name, profile, admitted.dependencies.declared) } : requiresPythonStep(chosen.name, profile, input.code)),
    }, { token, settle: (r) => frame.end(r) });
    deps.log.info(`run ${info.id} started by the agent tool with profile ${chosen.name}`);
    const result = await done;
    deps.log.info(`run ${info.id} ended: ${result.outcome} (${result.message})`);
    const text = agentResultText(agentResult(result, output, chosen.name, profile));
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
  }

  /** Issue 24: a call that starts a session or runs in one; the chat's token interrupts the cell. */
  private async invokeInSession(a: Admitted | InSession, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const { input } = a;
    const cancel = new AbortController();
    const bridge = abortOnCancel(token, cancel);
    let call;
    try {
      call = 'id' in a
        ? await this.sessions.run(a.id, input.profile, input.code, input.timeoutSeconds, cancel.signal, input.files)
        : await this.sessions.startAndRun(a.chosen.name, a.newSession!.profile, input.code, a.profile.limits.timeoutSeconds, cancel.signal, input.files);
    } finally {
      bridge.dispose();
    }
    const line = 'refusal' in call ? call.refusal : `session ${call.result.session}: cell ${call.result.executionCount ?? '-'} ${call.result.status} (profile ${call.result.profile})`;
    this.deps.output.line(`[sandbox-runner] agent tool: ${line}`);
    return sessionToolResult(call);
  }
}

/** The confirmation of a call in an open session: its id and age, its profile (as {@link confirmationMessage}), the files and the code. */
function sessionConfirmationMessage(a: InSession): vscode.MarkdownString {
  const capped = Math.min(a.input.timeoutSeconds ?? a.info.profile.limits.timeoutSeconds, a.info.profile.limits.timeoutSeconds);
  const profile = { ...a.info.profile, limits: { ...a.info.profile.limits, timeoutSeconds: capped } };
  return confirmationMessage({ chosen: { name: a.info.profileName }, profile, input: a.input }, agentSessionConfirmLines({ id: a.id, startedAt: a.info.startedAt }, a.files), shownSources(a.files));
}

/** A requires-python without dependencies (core deps/imagePython.ts `requiresPythonCheck`): a step that checks it against the image's Python before the run. */
function requiresPythonStep(profileName: string, profile: Profile, code: string): { install?: InstallStep } {
  const check = requiresPythonCheck(dockerOptions(), profileName, profile, code);
  return check ? { install: () => check().then(() => undefined) } : {};
}

/**
 * The confirmation: profile, image, network, host folders (mounts, workspace), limits, the whole code and each source file passed in, as plain
 * text. Untrusted MarkdownString (no command links, no HTML, no theme icons); values from
 * settings through `appendText` (escaped), the code fenced (see {@link fenceFor}).
 */
export function confirmationMessage(
  a: Pick<Admitted, 'profile' | 'dependencies'> & { readonly chosen: { readonly name: string; readonly source?: string }; readonly input: AgentRunInput },
  sessionLines: readonly string[] = [],
  sources: readonly ShownSource[] = [],
): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, false);
  md.isTrusted = false;
  md.supportHtml = false;
  md.supportThemeIcons = false;
  const l = a.profile.limits;
  // One paragraph per line: appendText escapes markdown (and shows line breaks as its own paragraphs).
  const line = (text: string) => md.appendText(text).appendMarkdown('\n\n');
  line(sessionLines.length > 0 ? vscode.l10n.t('A chat agent asks to run this code in a sandbox session.') : vscode.l10n.t('A chat agent asks to run this code in the sandbox.'));
  for (const s of sessionLines) line(s);
  // Settings values through visibleText too (issue 34): a bidi control in a name could reorder what is shown.
  const name = visibleText(a.chosen.name);
  line(a.chosen.source === undefined ? vscode.l10n.t('Profile: {0}', name) : vscode.l10n.t('Profile: {0} ({1})', name, visibleText(a.chosen.source)));
  line(vscode.l10n.t('Image: {0}', visibleText(a.profile.image)));
  line(a.profile.network === 'none' ? vscode.l10n.t('Network: off') : vscode.l10n.t('Network: ON (bridge)'));
  for (const grant of agentGrantLines(a.profile)) line(grant);
  line(vscode.l10n.t('Limits: {0} MiB memory, {1} CPU, {2} processes, {3} s, {4} bytes per stream', l.memoryMiB, l.cpus, l.pids, l.timeoutSeconds, l.outputBytes));
  if (a.input.stdin !== undefined) line(vscode.l10n.t('Standard input: {0} characters from the agent', a.input.stdin.length));
  if (a.dependencies) {
    line(vscode.l10n.t('Packages installed first: {0}', visibleText(shownSpecs(a.dependencies.declared.specs))));
    line(vscode.l10n.t('Index: {0}', visibleText(a.dependencies.source)));
    line(a.profile.network === 'none' ? vscode.l10n.t('Network only while installing; the program runs without network.') : vscode.l10n.t('Network while installing; the program then runs with its profile\'s network ({0}).', a.profile.network));
  }
  const fenced = (text: string) => {
    const fence = fenceFor(text);
    md.appendMarkdown(`${fence}\n${text}\n${fence}\n`);
  };
  fenced(shownCode(a.input.code));
  // Source files passed in (issue 34): each shown whole, as the interpreter would import it.
  for (const s of sources) {
    md.appendMarkdown('\n');
    line(vscode.l10n.t('Source file {0}, written under /sandbox before the code runs:', JSON.stringify(visibleText(s.name))));
    fenced(s.text);
  }
  return md;
}

/** The install step of an agent's run (issue 22): the user's install settings, read when it runs. */
function agentInstall(profileName: string, profile: Profile, declared: DeclaredDependencies): InstallStep {
  return async (signal, onOutput) => {
    const { settings, issues } = installSettings();
    if (issues.length > 0) throw new SandboxError('invalid-profile', `${issues[0]!.message}, so the dependencies were not installed and nothing ran.`, 'Correct it in your user settings, then run again.');
    const { set, mount } = await installDeclared(declared, { docker: dockerOptions(), profileName, profile, settings, installEnv: installEnvironment(settings, process.env), signal, onOutput });
    onOutput(`[sandbox-runner] dependencies ${set.installed ? `installed on network ${settings.network}` : 'from the cache'}: ${shownSpecs(declared.specs)}\n`);
    return mount;
  };
}
