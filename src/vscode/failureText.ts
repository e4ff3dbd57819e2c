/**
 * The fixed wording of the extension's failure notifications. A notification renders
 * `[label](command:…)` links and has no escape syntax (VS Code `linkedText.ts`), so its text is
 * ours: the error `code` chooses the sentence, and the result's `message`, `fix` and `detail`
 * (which can quote the program's output or the engine's messages) go to the output channels.
 * Free of `vscode`, so unit tests import it: its text is localised through `@vscode/l10n`, which
 * extension.ts configures with `vscode.l10n.bundle`; read at call time, never at load.
 */
import * as l10n from '@vscode/l10n';
import type { RunResult, SandboxErrorCode } from '../core';
import { settingId } from '../core/layout';

/** What failed, by error code: one sentence without any text from the run. */
const WHAT: Record<SandboxErrorCode, () => string> = {
  'docker-missing': () => l10n.t('the docker command could not be started (check the {0} user setting)', settingId('dockerPath')),
  'daemon-unreachable': () => l10n.t('the Docker engine could not be reached (is it running?)'),
  'permission-denied': () => l10n.t('the Docker engine refused access to this user'),
  'image-missing': () => l10n.t("the profile's image is not present on the Docker engine in use, and runs never pull it"),
  'image-has-volumes': () => l10n.t("the profile's image declares VOLUMEs, which the sandbox refuses"),
  'invalid-profile': () => l10n.t('the sandbox profile is invalid'),
  'invalid-arguments': () => l10n.t('the program arguments were refused (too many, too long, or a NUL byte), so nothing ran'),
  'invalid-mount': () => l10n.t('a bind mount of the sandbox profile was refused'),
  'invalid-engine': () => l10n.t('the engine CLI (Podman) cannot reach the engine that was chosen'),
  'start-failed': () => l10n.t('the sandbox container could not be started'),
  'limits-unsupported': () => l10n.t("the Docker engine cannot apply the profile's limits, so nothing ran"),
  'container-refused': () => l10n.t('the started container differed from what the sandbox asked for, so nothing ran'),
  'engine-error': () => l10n.t('the Docker engine failed'),
};

/**
 * The notification text for a run that failed to start or whose engine failed: fixed wording
 * chosen by `result.error.code` (or the outcome when there is no error), then where the details
 * are. Contains no text from the program, the engine or the settings.
 */
export function failureNotice(result: Pick<RunResult, 'outcome' | 'error'>): string {
  const code = result.error?.code;
  const what = code !== undefined && Object.hasOwn(WHAT, code)
    ? WHAT[code]()
    : result.outcome === 'failed-to-start'
      ? l10n.t('the sandbox run could not start')
      : l10n.t('the Docker engine failed during the run');
  return l10n.t({ message: 'Sandbox run failed: {0}. The Sandbox Runner output says why and what to do.', args: [what], comment: ['{0}: one of the failure sentences, e.g. "the sandbox profile is invalid"'] });
}
