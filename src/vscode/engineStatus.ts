/**
 * Whether the Docker engine is reachable, checked lazily (when the profile view is shown or a
 * refresh is asked for), exposed as the `sandboxRunner.engineProblem` context key for the view's
 * welcome content.
 */
import * as vscode from 'vscode';
import { classifyEngineFailure, docker, isSandboxError, type DockerOptions } from '../core';

/** Checks `docker version` and sets the context keys; returns the problem text or undefined. */
export async function checkEngine(opts: DockerOptions): Promise<string | undefined> {
  let problem: string | undefined;
  try {
    const r = await docker(opts, ['version', '--format', '{{.Server.Version}}'], 15_000);
    if (r.exitCode !== 0) {
      const e = classifyEngineFailure(r.stderr, 'reach the engine');
      problem = `${e.message} ${e.fix}`;
    }
  } catch (e) {
    problem = isSandboxError(e) ? `${e.message} ${e.fix}` : String(e);
  }
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.engineProblem', problem !== undefined);
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.engineChecked', true);
  return problem;
}
