/**
 * The MCP server's sessions (issue 24): `run_in_sandbox` with `session: "new"` starts one (core
 * session/session.ts: a long-lived container with the run's floor and the Python kernel), an id
 * runs the code as the next cell there, `close_session` removes it. Bounds: at most
 * `--max-sessions` open at once (a "new" over it is refused, never queued), one call at a time per
 * session (a second is refused), an unused session is closed after `--session-idle`; the server's
 * exit closes every one. Results are core agentSession.ts's (text and structured content), with
 * displayed images as MCP image content.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isSandboxError, type DockerOptions, type Profile } from '../core';
import { AgentCellOutput, agentCellResult, agentCellText, agentFiles, refuseAgentInput, type AgentSessionInput } from '../core/agent/agentSession';
import { isRelativeFileName } from '../core/session/frames';
import { startSession, type SandboxSession, type SessionEnd } from '../core/session/session';

/** Default of `--max-sessions`. */
export const DEFAULT_MAX_SESSIONS = 2;
/** Range of `--max-sessions`. */
export const MAX_SESSIONS_RANGE = { min: 1, max: 16 } as const;
/** Default of `--session-idle`, seconds. */
export const DEFAULT_SESSION_IDLE_SECONDS = 600;

/** Ended sessions remembered to say why an id no longer works (the most recent ones). */
const REMEMBERED_ENDS = 64;

/** One open session with the profile it was started with. */
interface Open {
  readonly session: SandboxSession;
  readonly profileName: string;
  /** The session's profile (its `limits.timeoutSeconds` already capped by `--max-timeout`). */
  readonly profile: Profile;
  busy: boolean;
}

/** A tool error result: plain text. */
function refusal(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The sessions of one server. */
export class McpSessions {
  private readonly open = new Map<string, Open>();
  private readonly ends = new Map<string, SessionEnd>();
  private starting = 0;

  constructor(
    private readonly engine: DockerOptions,
    private readonly maxSessions: number,
    private readonly idleSeconds: number,
    private readonly log: (message: string) => void,
  ) {}

  /** Sessions open or starting. */
  get count(): number {
    return this.open.size + this.starting;
  }

  /**
   * Starts a session with `profile` (validated and capped by the caller) and runs `code` as its first cell.
   * @param timeoutSeconds this call's time limit
   */
  async startAndRun(profileName: string, profile: Profile, code: string, timeoutSeconds: number, signal: AbortSignal, files: AgentSessionInput['files']): Promise<CallToolResult> {
    const written = agentFiles(files, isRelativeFileName);
    if (typeof written === 'string') return refusal(`Not run: ${written}`);
    if (this.count >= this.maxSessions) {
      return refusal(`Refused: ${this.count} sessions are already open, the most this server allows (--max-sessions ${this.maxSessions}). Sessions are not queued: close one with close_session, or run without "session".`);
    }
    this.starting++;
    let session: SandboxSession;
    try {
      session = await startSession({ profileName, profile, docker: this.engine, idleMs: this.idleSeconds * 1000 });
    } catch (e) {
      return refusal(`The session did not start: ${isSandboxError(e) ? `${e.message} ${e.fix}` : String(e)}`);
    } finally {
      this.starting--;
    }
    const entry: Open = { session, profileName, profile, busy: false };
    this.open.set(session.id, entry);
    void session.ended.then((end) => this.forget(session.id, end));
    this.log(`session ${session.id} started (profile ${profileName}, image ${profile.image}, container ${session.containerName})`);
    return this.runIn(entry, code, timeoutSeconds, signal, written);
  }

  /** Runs `code` in the session `id` (the next cell), or says why it cannot. */
  async run(id: string, profileAsked: string | undefined, code: string, timeoutSeconds: number | undefined, signal: AbortSignal, files: AgentSessionInput['files']): Promise<CallToolResult> {
    const written = agentFiles(files, isRelativeFileName);
    if (typeof written === 'string') return refusal(`Not run: ${written}`);
    const entry = this.open.get(id);
    if (!entry) return refusal(this.unknown(id));
    if (profileAsked !== undefined && profileAsked !== entry.profileName) {
      return refusal(`Refused: session ${id} runs profile "${entry.profileName}", not "${profileAsked}". Leave out profile, or start a new session for that profile.`);
    }
    if (entry.busy) return refusal(`Refused: session ${id} is still running an earlier call. Calls in one session are not queued: wait for it to finish.`);
    const limit = Math.min(timeoutSeconds ?? entry.profile.limits.timeoutSeconds, entry.profile.limits.timeoutSeconds);
    return this.runIn(entry, code, limit, signal, written);
  }

  /** `close_session`: removes the session's container. */
  async close(id: string): Promise<CallToolResult> {
    const entry = this.open.get(id);
    if (!entry) return refusal(this.unknown(id));
    await entry.session.close();
    const data = { session: id, closed: true };
    return { content: [{ type: 'text', text: `Session ${id} closed; its container was removed.` }], structuredContent: data };
  }

  /** Closes every session and waits for their containers' removal (the server's exit). */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.open.values()].map((e) => e.session.close()));
  }

  private async runIn(entry: Open, code: string, timeoutSeconds: number, signal: AbortSignal, files: Record<string, Uint8Array>): Promise<CallToolResult> {
    const s = entry.session;
    entry.busy = true;
    const out = new AgentCellOutput();
    // A cancelled call gets no response: interrupt the cell; a cell that ignores it ends the session.
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
    return {
      ...(result.status === 'session-ended' ? { isError: true } : {}),
      content: [{ type: 'text', text: agentCellText(shaped) }, ...out.images.map((i) => ({ type: 'image' as const, data: i.data, mimeType: i.mimeType }))],
      structuredContent: { ...shaped },
    };
  }

  private forget(id: string, end: SessionEnd): void {
    if (!this.open.delete(id)) return;
    this.ends.set(id, end);
    if (this.ends.size > REMEMBERED_ENDS) this.ends.delete(this.ends.keys().next().value!);
    this.log(`session ${id} ended: ${end.reason}`);
  }

  private unknown(id: string): string {
    const end = this.ends.get(id);
    if (end) return `Session ${id} has ended (${end.reason}): ${end.message} Start a new one with session "new".`;
    return `No open session ${id} on this server. Start one with session "new".`;
  }
}
