/**
 * Whether the Docker engine is reachable, checked lazily (when the profile view is shown or a
 * refresh is asked for), exposed as context keys for the view's welcome content (package.json
 * `viewsWelcome`): `sandboxRunner.engineProblem`, and `sandboxRunner.engineHint`, which chooses
 * the platform's and the engine product's fix (core engineHints.ts `welcomeHint`: "start Docker
 * Desktop", the docker service, Colima, a Podman machine…; fixed wording in package.json, no
 * engine text).
 */
import * as vscode from 'vscode';
import { classifyEngineFailure, engineNames } from '../core/engine/failures';
import { docker } from '../core/engine/cli';
import { engineProduct, welcomeHint } from '../core/engine/engineHints';
import { isSandboxError } from '../core/errors';
import type { DockerOptions } from '../core';

/** Checks `docker version` and sets the context keys; returns the problem text or undefined. */
export async function checkEngine(opts: DockerOptions): Promise<string | undefined> {
  let problem: string | undefined;
  let code: string | undefined;
  try {
    const r = await docker(opts, ['version', '--format', '{{.Server.Version}}'], 15_000);
    if (r.exitCode !== 0) {
      const e = classifyEngineFailure(r.stderr, 'reach the engine', undefined, opts);
      code = e.code;
      problem = `${e.message} ${e.fix}`;
    }
  } catch (e) {
    code = isSandboxError(e) ? e.code : undefined;
    problem = isSandboxError(e) ? `${e.message} ${e.fix}` : String(e);
  }
  const hint = problem === undefined ? '' : welcomeHint(code, engineProduct(engineNames(opts)));
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.engineHint', hint);
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.engineProblem', problem !== undefined);
  await vscode.commands.executeCommand('setContext', 'sandboxRunner.engineChecked', true);
  return problem;
}
