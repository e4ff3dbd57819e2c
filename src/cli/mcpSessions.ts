/**
 * The MCP server's sessions (issue 24): core agent/agentSessions.ts (shared with the VS Code
 * language model tool) with its results as MCP tool results: the cell's text and structured
 * content, displayed images as MCP image content, refusals as tool errors. Bounds: `--max-sessions`
 * and `--session-idle`; the server's exit closes every session.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DockerOptions, Profile } from '../core';
import { AgentSessions, type AgentSessionCall } from '../core/agent/agentSessions';
import type { AgentSessionInput } from '../core/agent/agentSession';

export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_SECONDS, MAX_SESSIONS_RANGE } from '../core/agent/agentSessions';

/** A tool error result: plain text. */
function refusal(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** A session call as an MCP tool result. */
function toolResult(call: AgentSessionCall): CallToolResult {
  if ('refusal' in call) return refusal(call.refusal);
  return {
    ...(call.isError ? { isError: true } : {}),
    content: [{ type: 'text', text: call.text }, ...call.images.map((i) => ({ type: 'image' as const, data: i.data, mimeType: i.mimeType }))],
    structuredContent: { ...call.result },
  };
}

/** The sessions of one server. */
export class McpSessions {
  private readonly sessions: AgentSessions;

  constructor(engine: DockerOptions, maxSessions: number, idleSeconds: number, log: (message: string) => void) {
    this.sessions = new AgentSessions({
      engine, maxSessions, idleSeconds, log,
      words: { bound: `this server allows (--max-sessions ${maxSessions})`, closeTool: 'close_session', outFilesIn: 'structuredContent.outFiles' },
    });
  }

  /** Starts a session with `profile` (validated and capped by the caller) and runs `code` as its first cell. */
  async startAndRun(profileName: string, profile: Profile, code: string, timeoutSeconds: number, signal: AbortSignal, files: AgentSessionInput['files']): Promise<CallToolResult> {
    return toolResult(await this.sessions.startAndRun(profileName, profile, code, timeoutSeconds, signal, files));
  }

  /** Runs `code` in the session `id` (the next cell), or says why it cannot. */
  async run(id: string, profileAsked: string | undefined, code: string, timeoutSeconds: number | undefined, signal: AbortSignal, files: AgentSessionInput['files']): Promise<CallToolResult> {
    return toolResult(await this.sessions.run(id, profileAsked, code, timeoutSeconds, signal, files));
  }

  /** `close_session`: removes the session's container. */
  async close(id: string): Promise<CallToolResult> {
    const r = await this.sessions.close(id);
    if ('refusal' in r) return refusal(r.refusal);
    return { content: [{ type: 'text', text: r.text }], structuredContent: { session: id, closed: true } };
  }

  /** Closes every session and waits for their containers' removal (the server's exit). */
  closeAll(): Promise<void> {
    return this.sessions.closeAll();
  }
}
