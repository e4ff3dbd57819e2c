/**
 * Where the CLI's profiles come from: `--workspace DIR`'s `.vscode/settings.json` (one workspace
 * layer over the built-ins) and `--profile-json`'s inline profile; and `--list-profiles`.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { resolveProfiles, type Profile, type ProfileLayer, type ProfileSet } from '../core';
import { EXIT } from './exitCodes';
import { parseInlineProfile } from './inlineProfile';
import { fail, row, say } from './messages';
import type { CliValues } from './options';
import { readWorkspaceSettings } from './workspaceSettings';

/** The profiles a CLI run chooses from. */
export interface ProfileSource {
  /** Absolute path of `--workspace` (default `.`). */
  readonly workspace: string;
  /** The workspace's settings file (named in messages), read or not. */
  readonly settingsPath: string;
  /** The workspace layer (for the consent check, core `routeLoosening`). */
  readonly layers: readonly ProfileLayer[];
  /** The built-in profiles with the workspace layer resolved over them. */
  readonly set: ProfileSet;
  /** `--profile-json`'s validated profile, if given. */
  readonly inline?: Profile;
}

/**
 * Reads the profiles for `values`. With `--profile-json` (and not `--list-profiles`) the settings
 * file is not read: it chooses no profile, so a broken one does not matter. Exits with a usage
 * error when `--workspace` is not a directory, the settings file is unreadable or broken, or the
 * inline profile is invalid (each of its problems said first).
 */
export async function readProfileSource(values: CliValues): Promise<ProfileSource> {
  const workspace = resolve(values.workspace ?? '.');
  if (!(await stat(workspace).catch(() => undefined))?.isDirectory()) {
    fail(`--workspace ${workspace} is not a directory; give the folder that holds .vscode/settings.json.`);
  }
  let settings;
  try {
    // --profile-json: the settings choose no profile, so a broken settings file does not matter.
    settings = values['profile-json'] !== undefined && !values['list-profiles']
      ? { path: resolve(workspace, '.vscode', 'settings.json'), found: false, profiles: undefined }
      : await readWorkspaceSettings(workspace);
  } catch (e) {
    fail((e as Error).message);
  }
  const layers = [{ source: 'workspace' as const, value: settings.profiles }];
  const set = resolveProfiles(layers);
  const inline = values['profile-json'] === undefined ? undefined : parseInlineProfile(values['profile-json']);
  if (inline && 'problems' in inline) {
    for (const p of inline.problems) say(p);
    fail('the --profile-json profile is invalid (above); nothing ran.');
  }
  return { workspace, settingsPath: settings.path, layers, set, ...(inline ? { inline: inline.profile } : {}) };
}

/**
 * `--list-profiles`: one row per profile on stdout (`NAME\tSOURCE\tIMAGE\tEXTENSIONS\tnetwork
 * MODE`, or `NAME\tSOURCE\tINVALID`), each settings problem on stderr.
 * @returns 0, or {@link EXIT.usage} when the settings have problems
 */
export function listProfiles(set: ProfileSet): number {
  for (const p of set.profiles) {
    row(`${p.name}\t${p.source}\t${p.profile.image}\t${p.profile.extensions.join(',')}\tnetwork ${p.profile.network}`);
  }
  for (const p of set.invalid) row(`${p.name}\t${p.source}\tINVALID`);
  for (const i of set.issues) say(`${i.key}: ${i.message}`);
  return set.issues.length > 0 ? EXIT.usage : 0;
}
