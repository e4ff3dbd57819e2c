/**
 * The one place that turns run failures into UI: an error notification saying what failed, with
 * actions (Show Output, Open Settings, Pull Image); also the refusals before a run (no such
 * profile, malformed settings, a loosening not allowed, no editor) and a refused link. A
 * program's own non-zero exit, a timeout, an output overflow or a cancel are output, not error
 * pop-ups; a successful run shows no notification at all (VS Code UX guidelines: notifications).
 * Notification text renders `[label](command:…)` links (no escape syntax), so it is fixed wording
 * of our own (./failureText.ts); the run's message and fix, which can quote the program or the
 * engine, are in the output channel (the run's footer), names only through `plainText`.
 */
import * as vscode from 'vscode';
import type { DockerOptions, ProfileIssue, RunResult } from '../core';
import { commandFor } from '../core/engine/engineTarget';
import { failureNotice } from './failureText';
import { plainText } from './plainText';

// Every text here goes through `vscode.l10n.t` (English only for now; the keys are the English
// text). Arguments are inserted as they are: names first go through `plainText`.
// Read at call time, never at load: this module is in the activation bundle.
const showOutputLabel = () => vscode.l10n.t('Show Output');
const openSettingsLabel = () => vscode.l10n.t('Open Settings');
const pullImageLabel = () => vscode.l10n.t('Pull Image');

/**
 * The task's environment for the engine of `docker` (as docker.ts `engineEnv`: a host as
 * `DOCKER_HOST`, else a context as `DOCKER_CONTEXT` with `DOCKER_HOST` emptied, which the CLI treats
 * as unset). Kept here so this activation-bundle module imports no engine code.
 */
function pullEnv(docker: DockerOptions): vscode.ProcessExecutionOptions {
  const engine: Record<string, string> = docker.host
    ? { DOCKER_HOST: docker.host, DOCKER_CONTEXT: '' }
    : docker.context ? { DOCKER_CONTEXT: docker.context, DOCKER_HOST: '' } : {};
  const env: Record<string, string> = { ...docker.env, ...engine };
  return Object.keys(env).length > 0 ? { env } : {};
}

/** Runs `docker pull IMAGE` on the engine of `docker` (its context or host) as a visible task (argv, no shell). */
export function pullImage(docker: DockerOptions, image: string): void {
  const task = new vscode.Task(
    { type: 'process', image },
    vscode.TaskScope.Workspace,
    commandFor(docker, ['pull', image]),
    'Sandbox Runner',
    // The engine choice reaches the CLI as its environment (DOCKER_CONTEXT / DOCKER_HOST), as for runs.
    new vscode.ProcessExecution(docker.dockerPath || 'docker', ['pull', image], pullEnv(docker)),
  );
  void vscode.tasks.executeTask(task);
}

/** Shows the failure of a run, if it is one the user must act on. */
export async function reportRunFailure(result: RunResult, image: string, docker: DockerOptions): Promise<void> {
  if (result.outcome !== 'failed-to-start' && result.outcome !== 'engine-error') return;
  const actions = [showOutputLabel()];
  const code = result.error?.code;
  if (code === 'image-missing') actions.unshift(pullImageLabel());
  if (code === 'invalid-mount' || code === 'invalid-profile' || code === 'docker-missing' || code === 'image-has-volumes') actions.push(openSettingsLabel());
  const choice = await vscode.window.showErrorMessage(failureNotice(result), ...actions);
  await act(choice, { image, docker });
}

/** Shows why no run could start (no or invalid profile). */
export async function reportNoProfile(languageId: string, issues: readonly ProfileIssue[]): Promise<void> {
  const why = issues.length === 0 ? '' : issues.length === 1 ? vscode.l10n.t(' (1 profile problem in settings)') : vscode.l10n.t(' ({0} profile problems in settings)', issues.length);
  const choice = await vscode.window.showErrorMessage(
    vscode.l10n.t('No valid sandbox profile runs {0} files{1}; add or fix one under sandboxRunner.profiles.', plainText(languageId), why),
    openSettingsLabel(),
    showOutputLabel(),
  );
  await act(choice, {});
}

/**
 * Shows that no valid profile has the name the user asked for. `invalid`/`untrusted`: fixed
 * sentences of our own saying why (an invalid profile; workspace profiles ignored).
 */
export async function reportUnknownProfile(profileName: string, invalid: string, untrusted: string): Promise<void> {
  const choice = await vscode.window.showErrorMessage(vscode.l10n.t('No valid sandbox profile named "{0}".{1}{2}', plainText(profileName), invalid, untrusted), showOutputLabel());
  await act(choice, {});
}

/**
 * Shows that a run was refused because settings for its profile are malformed (`count` problems).
 * The setting keys and messages quote workspace values: they are in the output, not the pop-up.
 */
export async function reportMalformedSettings(profileName: string, count: number): Promise<void> {
  const choice = await vscode.window.showErrorMessage(
    count === 1
      ? vscode.l10n.t('Not run: the settings for sandbox profile "{0}", or of a profile meant for this file, are malformed (1 problem, listed in the Sandbox Runner output).', plainText(profileName))
      : vscode.l10n.t('Not run: the settings for sandbox profile "{0}", or of a profile meant for this file, are malformed ({1} problems, listed in the Sandbox Runner output).', plainText(profileName), count),
    openSettingsLabel(),
    showOutputLabel(),
  );
  if (choice === openSettingsLabel()) await vscode.commands.executeCommand('workbench.action.openSettings', 'sandboxRunner.profiles');
  else await act(choice, {});
}

/** Shows that a workspace loosening was not allowed (what it loosens is in the output: it quotes workspace values). */
export async function reportNotAllowed(profileName: string): Promise<void> {
  await vscode.window.showWarningMessage(
    vscode.l10n.t('Not run: the workspace profile "{0}" loosens the sandbox and was not allowed (the Sandbox Runner output lists what it loosens).', plainText(profileName)),
  );
}

/** Says that a run command needs an open file or a selection. */
export async function reportNoEditor(): Promise<void> {
  await vscode.window.showInformationMessage(vscode.l10n.t('Open a file or select code to run it in the sandbox.'));
}

/** Says that a clicked terminal link leads outside the run's mounted folder, so it is not opened. */
export async function reportLinkOutsideMount(): Promise<void> {
  await vscode.window.showWarningMessage(vscode.l10n.t('That file is not inside the run\'s mounted folder, so it is not opened.'));
}

async function act(choice: string | undefined, ctx: { image?: string; docker?: DockerOptions }): Promise<void> {
  if (choice === showOutputLabel()) await vscode.commands.executeCommand('sandboxRunner.showOutput');
  if (choice === openSettingsLabel()) await vscode.commands.executeCommand('workbench.action.openSettings', 'sandboxRunner');
  if (choice === pullImageLabel() && ctx.image) pullImage(ctx.docker ?? {}, ctx.image);
}
