/**
 * The fixed wording of the extension's failure notifications. A notification renders
 * `[label](command:…)` links and has no escape syntax (VS Code `linkedText.ts`), so its text is
 * ours: the error `code` chooses the sentence, and the result's `message`, `fix` and `detail`
 * (which can quote the program's output or the engine's messages) go to the output channels.
 * Free of `vscode`, so unit tests import it.
 */
import type { RunResult, SandboxErrorCode } from '../core';
import { settingId } from '../core/layout';

/** What failed, by error code: one sentence without any text from the run. */
const WHAT: Record<SandboxErrorCode, string> = {
  'docker-missing': `the docker command could not be started (check the ${settingId('dockerPath')} user setting)`,
  'daemon-unreachable': 'the Docker engine could not be reached (is it running?)',
  'permission-denied': 'the Docker engine refused access to this user',
  'image-missing': "the profile's image is not present on the Docker engine in use, and runs never pull it",
  'image-has-volumes': "the profile's image declares VOLUMEs, which the sandbox refuses",
  'invalid-profile': 'the sandbox profile is invalid',
  'invalid-arguments': 'the program arguments were refused (too many, too long, or a NUL byte), so nothing ran',
  'invalid-mount': 'a bind mount of the sandbox profile was refused',
  'invalid-engine': 'the engine CLI (Podman) cannot reach the engine that was chosen',
  'start-failed': 'the sandbox container could not be started',
  'limits-unsupported': "the Docker engine cannot apply the profile's limits, so nothing ran",
  'container-refused': 'the started container differed from what the sandbox asked for, so nothing ran',
  'engine-error': 'the Docker engine failed',
};

/**
 * The notification text for a run that failed to start or whose engine failed: fixed wording
 * chosen by `result.error.code` (or the outcome when there is no error), then where the details
 * are. Contains no text from the program, the engine or the settings.
 */
export function failureNotice(result: Pick<RunResult, 'outcome' | 'error'>): string {
  const code = result.error?.code;
  const what = code !== undefined && Object.hasOwn(WHAT, code)
    ? WHAT[code]
    : result.outcome === 'failed-to-start'
      ? 'the sandbox run could not start'
      : 'the Docker engine failed during the run';
  return `Sandbox run failed: ${what}. The Sandbox Runner output says why and what to do.`;
}
