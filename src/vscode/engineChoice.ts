/**
 * The engine settings (`sandboxRunner.dockerPath`, `dockerContext`, `dockerHost`) from their
 * inspected layers: user values only. They choose which program runs and where code goes, so a
 * workspace value (a cloned repository's `.vscode/settings.json`) is never read; it is reported
 * as ignored. The settings are machine-scoped (package.json) as a first layer; this is the second.
 * Free of `vscode`, so unit tests import it.
 */
import * as l10n from '@vscode/l10n';
import type { DockerOptions, EngineChoice, SettingKey } from '../core';
import { contextNameProblem, engineOptions, hostProblem } from '../core/engine/engineTarget';
import { settingId } from '../core/layout';

/** The layers of one setting, as `WorkspaceConfiguration.inspect` returns them (the fields read here). */
export interface InspectedSetting {
  readonly globalValue?: unknown;
  readonly workspaceValue?: unknown;
  readonly workspaceFolderValue?: unknown;
}

/** The engine settings' keys, without the `sandboxRunner.` section. */
export const ENGINE_KEYS = ['dockerPath', 'dockerContext', 'dockerHost'] as const satisfies readonly SettingKey[];
export type EngineKey = (typeof ENGINE_KEYS)[number];

/** The engine choice from user settings, with what was ignored or is wrong (plain sentences). */
export interface EngineSettings {
  readonly choice: EngineChoice;
  /** Problems to show (a workspace value ignored, an invalid value, both context and host set). */
  readonly problems: readonly string[];
}

/** A non-empty string, else undefined. */
const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * Reads the engine settings from their layers: the user (global) value of each; a workspace or
 * folder value is ignored and reported. An invalid context or host is still used (the docker CLI
 * then refuses it and every run fails, rather than running on another engine than the one
 * meant) and reported. Both a context and a host: the host is used (core endpoint.ts order) and the
 * conflict reported.
 * @param inspect the layers of `sandboxRunner.<key>`
 */
export function engineSettingsFrom(inspect: (key: EngineKey) => InspectedSetting | undefined): EngineSettings {
  const problems: string[] = [];
  const user: Partial<Record<EngineKey, string>> = {};
  for (const key of ENGINE_KEYS) {
    const layers = inspect(key);
    if (layers?.workspaceValue !== undefined || layers?.workspaceFolderValue !== undefined) {
      problems.push(l10n.t('{0} in workspace settings is ignored (user settings only)', settingId(key)));
    }
    const value = text(layers?.globalValue);
    if (value !== undefined) user[key] = value;
  }
  const { dockerPath, dockerContext: context, dockerHost: host } = user;
  const contextProblem = context !== undefined ? contextNameProblem(context) : undefined;
  if (contextProblem) problems.push(`${settingId('dockerContext')} ${contextProblem}`);
  const hostIssue = host !== undefined ? hostProblem(host) : undefined;
  if (hostIssue) problems.push(`${settingId('dockerHost')} ${hostIssue}`);
  if (context !== undefined && host !== undefined) problems.push(l10n.t('{0} and {1} are both set: the host is used', settingId('dockerContext'), settingId('dockerHost')));
  return {
    choice: { ...(dockerPath ? { dockerPath } : {}), ...(host ? { host } : context ? { context } : {}) },
    problems,
  };
}

/** The docker options of `settings` (see core `engineOptions`). */
export function engineSettingsOptions(settings: EngineSettings): DockerOptions {
  return engineOptions(settings.choice);
}
