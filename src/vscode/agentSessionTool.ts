/**
 * The language model tool's sessions (issue 24): core agent/agentSessions.ts (shared with the MCP
 * server) owned by this window, its results as tool result parts, and the second tool
 * `sandboxRunner_closeSession` `{ session }`. Bounds: {@link DEFAULT_MAX_SESSIONS} sessions at once
 * (a "new" over it is refused, never queued), closed after `sandboxRunner.sessions.idleSeconds`
 * without a call (user settings), and every one at deactivate (engineShutdown.ts). Images the code
 * displays come back as `LanguageModelDataPart.image`, files from /sandbox/out/ as text parts
 * (text in the result's fenced blocks, binary ones base64 in a part each). Engine bundle only.
 */
import * as vscode from 'vscode';
import { parseWith } from '../core/agent/agentRun';
import { AgentCloseInputSchema } from '../core/agent/agentSession';
import { AgentSessions, DEFAULT_MAX_SESSIONS, type AgentSessionCall } from '../core/agent/agentSessions';
import { dockerOptions } from './settings';
import { sessionIdleMs } from './sessionIdle';

/** The close tool's name (package.json `contributes.languageModelTools`). */
export const CLOSE_TOOL_NAME = 'sandboxRunner_closeSession';

/** This window's agent sessions. `log`: one line of the extension's log. */
export function agentToolSessions(log: (message: string) => void, protectedPaths: readonly string[]): AgentSessions {
  return new AgentSessions({
    engine: dockerOptions,
    maxSessions: DEFAULT_MAX_SESSIONS,
    idleSeconds: () => sessionIdleMs() / 1000,
    log,
    protectedPaths,
    words: { bound: `the Run in Sandbox tool allows (${DEFAULT_MAX_SESSIONS})`, closeTool: CLOSE_TOOL_NAME, outFilesIn: 'the text parts after this one (binary files as base64)' },
  });
}

/** An image part, or a text note where the running VS Code has no `LanguageModelDataPart`. */
function imagePart(data: string, mimeType: string): vscode.LanguageModelDataPart | vscode.LanguageModelTextPart {
  const DataPart = (vscode as Partial<typeof vscode>).LanguageModelDataPart;
  if (typeof DataPart?.image !== 'function') return new vscode.LanguageModelTextPart(`[An ${mimeType} image was displayed; this VS Code cannot return images to the model.]`);
  return DataPart.image(Buffer.from(data, 'base64'), mimeType);
}

/** A session call as the tool's result: the cell's text, its images, its binary out files. */
export function sessionToolResult(call: AgentSessionCall): vscode.LanguageModelToolResult {
  if ('refusal' in call) return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(call.refusal)]);
  const binary = call.result.outFiles.filter((f) => f.base64 !== undefined);
  return new vscode.LanguageModelToolResult([
    new vscode.LanguageModelTextPart(call.text),
    ...call.images.map((i) => imagePart(i.data, i.mimeType)),
    // The name is the program's: only in the fenced file blocks of the text part, never here (issue 34).
    ...binary.map((f) => new vscode.LanguageModelTextPart(`Binary file ${call.result.outFiles.indexOf(f) + 1} of the files from /sandbox/out/ listed above (its name is in that file block; ${f.bytes} bytes), base64: ${f.base64}`)),
  ]);
}

/** `sandboxRunner_closeSession`: removes a session's container. No confirmation: it only ends what an agent started. */
export class AgentCloseTool implements vscode.LanguageModelTool<unknown> {
  constructor(private readonly sessions: AgentSessions) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>): vscode.PreparedToolInvocation {
    const parsed = parseWith(AgentCloseInputSchema, options.input, '{ session }');
    return { invocationMessage: 'input' in parsed ? vscode.l10n.t('Closing sandbox session {0}', parsed.input.session) : vscode.l10n.t('Sandbox Runner refuses this call') };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>): Promise<vscode.LanguageModelToolResult> {
    const parsed = parseWith(AgentCloseInputSchema, options.input, '{ session }');
    const r = 'refusal' in parsed ? parsed : await this.sessions.close(parsed.input.session);
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart('refusal' in r ? r.refusal : r.text)]);
  }
}
