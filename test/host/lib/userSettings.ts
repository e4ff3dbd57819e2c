/**
 * The user settings of one hermetic host run (`User/settings.json` in the run's user data): a
 * quiet, offline workbench, then the caller's extras, then SANDBOX_RUNNER_HOST_USER_SETTINGS.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunDirs } from './runDirs';

/** Settings that keep the workbench quiet and offline: no updates, welcome, telemetry, git, AI. */
const QUIET: Readonly<Record<string, unknown>> = {
  'update.mode': 'none',
  'update.showReleaseNotes': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.settings.enableNaturalLanguageSearch': false,
  'telemetry.telemetryLevel': 'off',
  'telemetry.feedback.enabled': false,
  'git.enabled': false,
  'git.autoRepositoryDetection': false,
  'git.openRepositoryInParentFolders': 'never',
  'github.gitAuthentication': false,
  'chat.disableAIFeatures': true,
  'chat.commandCenter.enabled': false,
  'chat.agent.enabled': false,
  'chat.setupFromDialog': false,
  'github.copilot.enable': { '*': false },
  'remote.autoForwardPorts': false,
  'npm.autoDetect': 'off',
  'typescript.disableAutomaticTypeAcquisition': true,
};

/**
 * Extra user settings for one run from SANDBOX_RUNNER_HOST_USER_SETTINGS (a JSON object), so a
 * runner can seed settings through @vscode/test-electron's Electron-style shim (which only passes
 * the environment on). Throws with the variable's name when it is not a JSON object.
 */
export function envUserSettings(): Record<string, unknown> {
  const raw = process.env.SANDBOX_RUNNER_HOST_USER_SETTINGS;
  if (!raw) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new Error(`SANDBOX_RUNNER_HOST_USER_SETTINGS is not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('SANDBOX_RUNNER_HOST_USER_SETTINGS must be a JSON object of settings');
  return value as Record<string, unknown>;
}

/**
 * Writes the run's user settings: {@link QUIET}, Workspace Trust on or off (`opts.trust`), no close
 * confirmation, hidden secondary side bar, no hot exit, no auto save (a test's edit of a shared fixture,
 * reverted in its `finally`, must never reach the disk first); then `opts.extra`, then those of
 * SANDBOX_RUNNER_HOST_USER_SETTINGS ({@link envUserSettings}), each overriding the ones before.
 */
export function seedUserSettings(dirs: RunDirs, opts: { trust: boolean; extra?: Record<string, unknown> }): void {
  const settings: Record<string, unknown> = {
    ...QUIET,
    'security.workspace.trust.enabled': opts.trust,
    'window.confirmBeforeClose': 'never',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'files.hotExit': 'off',
    'files.autoSave': 'off',
    ...opts.extra,
    ...envUserSettings(),
  };
  writeFileSync(join(dirs.userData, 'User', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
}
