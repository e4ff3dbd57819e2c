/**
 * An agent host's sessions (issue 24), shared by the MCP server (cli/mcpSessions.ts) and the VS Code
 * language model tool (vscode/agentTool.ts): `session: "new"` starts one (core session/session.ts: a
 * long-lived container with the run's floor and the Python kernel), an id runs the code as the next
 * cell there, close removes it. Bounds: at most `maxSessions` open at once (a "new" over it is
 * refused, never queued), one call at a time per session (a second is refused), an unused session
 * is closed after `idleSeconds`; {@link AgentSessions.closeAll} at the host's exit. Results are
 * agentSession.ts's, plus the displayed images for the host to send in its own content type.
 * Refusals are one plain sentence the model can act on. No `vscode` import here.
 */
import type { DockerOptions } from '../engine/contracts';
import { isSandboxError } from '../errors';
import type { Profile } from '../profiles/profileSchema';
import { isRelativeFileName } from '../session/frames';
import { startSession, type SandboxSession, type SessionEnd } from '../session/session';
import { AgentCellOutput, agentCellResult, agentCellText, agentFiles, refuseAgentInput, type AgentCellResult, type AgentImage, type AgentSessionInput } from './agentSession';

/** Default of the session count bound (`--max-sessions`; the VS Code tool's fixed bound). */
export const DEFAULT_MAX_SESSIONS = 2;
/** Range of `--max-sessions`. */
export const MAX_SESSIONS_RANGE = { min: 1, max: 16 } as const;
/** Default of `--session-idle`, seconds. */
export const DEFAULT_SESSION_IDLE_SECONDS = 600;

/** Ended sessions remembered to say why an id no longer works (the most recent ones). */
const REMEMBERED_ENDS = 64;

/** What the host's texts name: its session bound and its close tool. */
export interface AgentSessionsWords {
  /** Where the bound comes from, e.g. `this server allows (--max-sessions 2)`. */
  readonly bound: string;
  /** The tool that closes a session, e.g. `close_session`. */
  readonly closeTool: string;
  /** Where binary out files are, e.g. `structuredContent.outFiles`. */
  readonly outFilesIn: string;
}

/** What one host needs. `idleSeconds`: an unused session closes after this long. */
export interface AgentSessionsOptions {
  readonly engine: DockerOptions | (() => DockerOptions);
  readonly maxSessions: number;
  readonly idleSeconds: number | (() => number);
  readonly log: (message: string) => void;
  readonly words: AgentSessionsWords;
  /** Extra host paths no mount may touch. */
  readonly protectedPaths?: readonly string[];
}

/** One open session with the profile it was started with. */
interface Open {
  readonly session: SandboxSession;
  readonly profileName: string;
  /** The session's profile (its `limits.timeoutSeconds` already capped by the host's cap). */
  readonly profile: Profile;
  busy: boolean;
}

/** A call's outcome: refused (nothing ran), or a cell's result with its text and images. */
export type AgentSessionCall =
  | { readonly refusal: string }
  | { readonly result: AgentCellResult; readonly text: string; readonly images: readonly AgentImage[]; readonly isError: boolean };

/** What a confirmation shows of an open session. */
export interface AgentSessionInfo {
  readonly profileName: string;
  /** Its profile, time limit capped. */
  readonly profile: Profile;
  /** Ms since the epoch. */
  readonly startedAt: number;
  readonly busy: boolean;
}

/** The sessions of one agent host (an MCP server, a VS Code window). */
export class AgentSessions {
  private readonly open = new Map<string, Open>();
  private readonly ends = new Map<string, SessionEnd>();
  private starting = 0;

  constructor(private readonly opts: AgentSessionsOptions) {}

  /** Sessions open or starting. */
  get count(): number {
    return this.open.size + this.starting;
  }

  /** The open session `id`, or undefined. */
  info(id: string): AgentSessionInfo | undefined {
    const e = this.open.get(id);
    return e && { profileName: e.profileName, profile: e.profile, startedAt: e.session.startedAt, busy: e.busy };
  }

  /** Why a "new" session would be refused now (the bound), or undefined. */
  overBound(): string | undefined {
    if (this.count < this.opts.maxSessions) return undefined;
    return `Refused: ${this.count} sessions are already open, the most ${this.opts.words.bound}. Sessions are not queued: close one with ${this.opts.words.closeTool}, or run without "session".`;
  }

  /**
   * Starts a session with `profile` (validated and capped by the caller) and runs `code` as its first cell.
   * @param timeoutSeconds this call's time limit
   */
  async startAndRun(profileName: string, profile: Profile, code: string, timeoutSeconds: number, signal: AbortSignal, files: AgentSessionInput['files']): Promise<AgentSessionCall> {
    const written = agentFiles(files, isRelativeFileName);
    if (typeof written === 'string') return { refusal: `Not run: ${written}` };
    const over = this.overBound();
    if (over) return { refusal: over };
    this.starting++;
    let session: SandboxSession;
    try {
      const { engine, idleSeconds, protectedPaths } = this.opts;
      const idle = typeof idleSeconds === 'function' ? idleSeconds() : idleSeconds;
      session = await startSession({ profileName, profile, docker: typeof engine === 'function' ? engine() : engine, idleMs: idle * 1000, ...(protectedPaths ? { protectedPaths } : {}) });
    } catch (e) {
      return { refusal: `The session did not start: ${isSandboxError(e) ? `${e.message} ${e.fix}` : String(e)}` };
    } finally {
      this.starting--;
    }
    const entry: Open = { session, profileName, profile, busy: false };
    this.open.set(session.id, entry);
    void session.ended.then((end) => this.forget(session.id, end));
    this.opts.log(`session ${session.id} started (profile ${profileName}, image ${profile.image}, container ${session.containerName})`);
    return this.runIn(entry, code, timeoutSeconds, signal, written);
  }

  /** Runs `code` in the session `id` (the next cell), or says why it cannot. */
  async run(id: string, profileAsked: string | undefined, code: string, timeoutSeconds: number | undefined, signal: AbortSignal, files: AgentSessionInput['files']): Promise<AgentSessionCall> {
    const written = agentFiles(files, isRelativeFileName);
    if (typeof written === 'string') return { refusal: `Not run: ${written}` };
    const entry = this.open.get(id);
    if (!entry) return { refusal: this.missing(id) };
    if (profileAsked !== undefined && profileAsked !== entry.profileName) {
      return { refusal: `Refused: session ${id} runs profile "${entry.profileName}", not "${profileAsked}". Leave out profile, or start a new session for that profile.` };
    }
    if (entry.busy) return { refusal: `Refused: session ${id} is still running an earlier call. Calls in one session are not queued: wait for it to finish.` };
    const limit = Math.min(timeoutSeconds ?? entry.profile.limits.timeoutSeconds, entry.profile.limits.timeoutSeconds);
    return this.runIn(entry, code, limit, signal, written);
  }

  /** Removes the session's container. @returns the text for the model, or a refusal */
  async close(id: string): Promise<{ text: string } | { refusal: string }> {
    if (id === 'new') return { refusal: 'Give the id of an open session, not "new".' };
    const entry = this.open.get(id);
    if (!entry) return { refusal: this.missing(id) };
    await entry.session.close();
    return { text: `Session ${id} closed; its container was removed.` };
  }

  /** Closes every session and waits for their containers' removal (the host's exit). */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.open.values()].map((e) => e.session.close()));
  }

  private async runIn(entry: Open, code: string, timeoutSeconds: number, signal: AbortSignal, files: Record<string, Uint8Array>): Promise<AgentSessionCall> {
    const s = entry.session;
    entry.busy = true;
    const out = new AgentCellOutput();
    // A cancelled call: interrupt the cell; a cell that ignores it ends the session.
    const onCancel = () => void s.interrupt().then((ok) => (ok ? undefined : s.close()));
    signal.addEventListener('abort', onCancel, { once: true });
    let result;
    try {
      result = await s.execute(code, out.onEvent, { timeoutSeconds, files, collectOutFiles: true, onInput: refuseAgentInput });
    } finally {
      signal.removeEventListener('abort', onCancel);
      entry.busy = false;
    }
    const shaped = agentCellResult(result, out, s.id, entry.profileName, entry.profile, timeoutSeconds);
    const { closeTool, outFilesIn } = this.opts.words;
    return { result: shaped, text: agentCellText(shaped, undefined, { closeTool, outFilesIn }), images: [...out.images], isError: result.status === 'session-ended' };
  }

  private forget(id: string, end: SessionEnd): void {
    if (!this.open.delete(id)) return;
    this.ends.set(id, end);
    if (this.ends.size > REMEMBERED_ENDS) this.ends.delete(this.ends.keys().next().value!);
    this.opts.log(`session ${id} ended: ${end.reason}`);
  }

  /** Why `id` names no open session (ended, with why, or never known): a sentence for the model. */
  missing(id: string): string {
    const end = this.ends.get(id);
    if (end) return `Session ${id} has ended (${end.reason}): ${end.message} Start a new one with session "new".`;
    return `No open session ${id} here. Start one with session "new".`;
  }
}
