/**
 * The terminal side of an interactive run (issue 11): opens the run's {@link InteractiveTerminal}
 * in a new VS Code terminal named after the file and profile, writes its header, and keeps each
 * run's terminal by run id until the user closes it (for the exported API's `terminalText`).
 * The run itself is started by the same path as every other run (commands.ts `execute`).
 */
import * as vscode from 'vscode';
import type { Profile } from '../core';
import type { InteractiveTerminal } from './interactiveTerminal';
import { engine } from './lazy';
import { plainText } from './plainText';

/**
 * How long to wait for VS Code to open the terminal (call `Pseudoterminal.open`, which gives the
 * TTY's first size), ms. Past it the run starts with the default size; its text is held until open.
 */
export const OPEN_TIMEOUT_MS = 5_000;

/** Open terminals of interactive runs, by run id (removed when the user closes the terminal). */
const byRun = new Map<string, InteractiveTerminal>();

/** A run's terminal, opened and headed, before the run starts. */
export interface RunTerminal {
  readonly terminal: vscode.Terminal;
  readonly pty: InteractiveTerminal;
  /** The terminal's name as shown (already made inert by `plainText`). */
  readonly name: string;
  /** Ties the terminal to the started run: closing the terminal then calls `cancel`. */
  attach(runId: string, cancel: () => void): void;
}

/**
 * The terminal's name: "Sandbox: <what> (<profile>)". The terminal tab's label renders `$(icon)`
 * codicons and its hover renders the name as markdown (VS Code 1.139 `getInstanceHoverInfo`:
 * `new MarkdownString(instance.title …)`), so both untrusted parts pass `plainText`: no controls,
 * no codicons, no `](` link joint, cut short.
 */
export function terminalName(label: string, profileName: string): string {
  return vscode.l10n.t({ message: 'Sandbox: {0} ({1})', args: [plainText(label, 100), plainText(profileName, 40)], comment: ['The terminal name: {0} what runs, {1} the profile'] });
}

/** The header lines of an interactive run's terminal (our own text; the terminal filters it). */
export function headerLines(label: string, profileName: string, source: string, profile: Profile): string[] {
  const l = profile.limits;
  return [
    `▶ ${label.replace(/\n/g, ' ')}`,
    profile.network === 'none'
      ? vscode.l10n.t('  profile {0} ({1}) · image {2} · network off', profileName, source, profile.image)
      : vscode.l10n.t('  profile {0} ({1}) · image {2} · network ON (bridge)', profileName, source, profile.image),
    vscode.l10n.t('  limits {0} MiB memory, {1} CPU, {2} processes, {3} s, {4} bytes of output', l.memoryMiB, l.cpus, l.pids, l.timeoutSeconds, l.outputBytes),
    vscode.l10n.t('  interactive (TTY): stdout and stderr are merged · Ctrl+C interrupts · Ctrl+D ends input'),
    vscode.l10n.t('  closing this terminal cancels the run'),
  ];
}

/**
 * Opens a new terminal for one interactive run, shows it (focused, so the user can type at once),
 * waits until VS Code opened it (at most {@link OPEN_TIMEOUT_MS}) and writes `header`.
 * @returns undefined when the user closed the terminal before it opened (the run must not start)
 */
export async function openRunTerminal(label: string, profileName: string, header: readonly string[]): Promise<RunTerminal | undefined> {
  // The class lives in the engine bundle (engineModule.ts), which the run loads anyway.
  const pty = new (engine().InteractiveTerminal)();
  const name = terminalName(label, profileName);
  const terminal = vscode.window.createTerminal({ name, pty, iconPath: new vscode.ThemeIcon('play-circle'), isTransient: true });
  terminal.show(false);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([pty.opened, new Promise<void>((resolve) => (timer = setTimeout(resolve, OPEN_TIMEOUT_MS)))]);
  clearTimeout(timer);
  if (pty.closed) return undefined;
  for (const line of header) pty.line(line);
  return {
    terminal,
    pty,
    name,
    attach: (runId, cancel) => {
      pty.onUserClose = cancel;
      byRun.set(runId, pty);
      pty.closeListeners.add(() => byRun.delete(runId));
    },
  };
}

/**
 * What the terminal of run `runId` was sent so far (last 1 MiB, escape sequences included), or
 * undefined when the run had no terminal or the user closed it. For the exported API (tests).
 */
export function terminalText(runId: string): string | undefined {
  return byRun.get(runId)?.text();
}
