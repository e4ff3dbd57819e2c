/**
 * `sandboxRunner.sessions.idleSeconds` (issue 24): how long a session (a notebook's kernel, a chat
 * agent's session of the Run in Sandbox tool) stays without a cell before it is closed. Read from
 * user settings only: a workspace never sets how long a container stays. Lazy bundles only
 * (notebookKernels.ts, agentTool.ts): each carries its own copy.
 */
import * as vscode from 'vscode';
import { SECTION } from './settings';

/** Default and bounds of `sandboxRunner.sessions.idleSeconds` (core settingsSchema.ts). */
const IDLE = { default: 1800, min: 60, max: 86400 } as const;

/** `sandboxRunner.sessions.idleSeconds` from user settings only, ms. */
export function sessionIdleMs(): number {
  const v = vscode.workspace.getConfiguration(SECTION).inspect<number>('sessions.idleSeconds')?.globalValue;
  return (typeof v === 'number' && v >= IDLE.min && v <= IDLE.max ? v : IDLE.default) * 1000;
}
