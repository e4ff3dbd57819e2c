/**
 * Extension entry point. Activation is lazy (on the contributed command) and cheap: it creates
 * the output channel and registers the command; every disposable goes into context.subscriptions.
 */
import * as vscode from 'vscode';
import { ActiveRuns, runInSandboxCommand } from './vscode/runCommand';

let activeRuns: ActiveRuns | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const channel = vscode.window.createOutputChannel('Sandbox Runner');
  const runs = new ActiveRuns();
  activeRuns = runs;
  context.subscriptions.push(channel, vscode.commands.registerCommand('sandboxRunner.run', runInSandboxCommand(channel, runs)));
}

/** Cancels every run of this window; VS Code waits for the returned promise (containers removed). */
export function deactivate(): Promise<void> | undefined {
  return activeRuns?.cancelAll();
}
