/**
 * Reads `sandboxRunner.*` values from a workspace's `.vscode/settings.json` (JSONC: comments and
 * trailing commas allowed), the way VS Code does, so the CLI sees the same profiles as the editor.
 * Both spellings are read alike: `"sandboxRunner.profiles": {…}` and `"sandboxRunner": {"profiles": {…}}`.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { isPlainObject, MiB, PROFILES_SETTING, SETTINGS_SECTION } from '../core';

/** Largest settings file read, in bytes. */
export const MAX_SETTINGS_BYTES = MiB;

/** The parsed workspace settings file. */
export interface WorkspaceSettings {
  /** The settings file path. */
  readonly path: string;
  /** Whether the file exists. */
  readonly found: boolean;
  /** Value of `sandboxRunner.profiles`, or undefined. */
  readonly profiles: unknown;
}

/**
 * Loads `<workspace>/.vscode/settings.json`.
 * @throws Error with the file path, line and reason when the file is not valid JSONC, and when it
 *   is not a regular file or is larger than {@link MAX_SETTINGS_BYTES}
 */
export async function readWorkspaceSettings(workspace: string): Promise<WorkspaceSettings> {
  const path = join(workspace, '.vscode', 'settings.json');
  let text: string;
  try {
    // A cloned repository controls this path: it must be a regular file of sane size (not a FIFO,
    // /dev/zero or /proc/self/fd/0 behind a symlink).
    const info = await stat(path);
    if (!info.isFile()) throw new Error(`${path} is not a regular file; replace it with a settings file and run again.`);
    if (info.size > MAX_SETTINGS_BYTES) {
      throw new Error(`${path} is larger than ${MAX_SETTINGS_BYTES} bytes; a settings file that large is refused.`);
    }
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { path, found: false, profiles: undefined };
    throw e;
  }
  const errors: ParseError[] = [];
  const root = parse(text, errors, { allowTrailingComma: true, disallowComments: false }) as unknown;
  if (errors.length > 0) {
    const first = errors[0]!;
    const line = text.slice(0, first.offset).split('\n').length;
    throw new Error(`${path}:${line}: ${printParseErrorCode(first.error)}; fix the settings file and run again.`);
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root)) return { path, found: true, profiles: undefined };
  const obj = root as Record<string, unknown>;
  const nested = obj[SETTINGS_SECTION];
  const nestedProfiles =
    typeof nested === 'object' && nested !== null ? (nested as Record<string, unknown>)['profiles'] : undefined;
  const dotted = obj[PROFILES_SETTING];
  // Both spellings present: merged, the dotted one winning per profile name.
  const profiles = isPlainObject(dotted) && isPlainObject(nestedProfiles) ? { ...nestedProfiles, ...dotted } : (dotted ?? nestedProfiles);
  return { path, found: true, profiles };
}
