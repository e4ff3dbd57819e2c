/**
 * `${workspaceFolder}` and `${fileDirname}` in a profile's mount sources (issue 12, "Files beside
 * the snippet"), resolved per run on the host before the mount checks (mounts.ts), so the
 * resolved path is what is checked, pinned and compared for consent (loosening.ts). Pure: paths
 * are joined with the host's path flavour (hostPath.ts `pathFlavor`: `path.win32` on Windows), no
 * file system access. The names and meaning follow VS Code's predefined variables
 * (code.visualstudio.com/docs/reference/variables-reference): the document's workspace folder,
 * and the folder of the file being run.
 */
import { SandboxError } from '../errors';
import { pathFlavor, type HostPlatform } from '../hostPath';

/**
 * What the variables are read from: a profile's mounts (profileSchema.ts `Profile`), typed by
 * structure, as profileSchema.ts itself checks mount sources with {@link splitPathVariable}.
 */
export interface WithMountSources {
  readonly mounts: readonly { readonly source: string }[];
}

/** The variables a mount source may start with. */
export const PATH_VARIABLES = ['${workspaceFolder}', '${fileDirname}'] as const;
/** One of {@link PATH_VARIABLES}. */
export type PathVariable = (typeof PATH_VARIABLES)[number];

/**
 * The host paths of one run that the variables stand for; each is absolute on this host, or
 * undefined when the run has none (an untitled document, a file outside any folder, stdin).
 */
export interface RunPaths {
  /** The document's workspace folder (VS Code `getWorkspaceFolder(uri)`, the CLI's `--workspace`). */
  readonly workspaceFolder?: string;
  /** The folder of the file being run (also for a selection or unsaved edits of a saved file). */
  readonly fileDirname?: string;
}

/**
 * The variable `source` starts with and the rest after it, when it starts with one followed by
 * the end or a path separator (`/`, or `\` too: a setting may be written on Windows); else undefined.
 * `${workspaceFolderX}` or a variable in the middle is not a variable use (and fails the host path check).
 */
export function splitPathVariable(source: string): { variable: PathVariable; rest: string } | undefined {
  for (const variable of PATH_VARIABLES) {
    if (!source.startsWith(variable)) continue;
    const rest = source.slice(variable.length);
    if (rest === '' || rest.startsWith('/') || rest.startsWith('\\')) return { variable, rest };
  }
  return undefined;
}

/** The key of a run path a variable names (`${workspaceFolder}` → `workspaceFolder`). */
function pathKey(variable: PathVariable): keyof RunPaths {
  return variable === '${workspaceFolder}' ? 'workspaceFolder' : 'fileDirname';
}

/**
 * `source` with its leading variable replaced by the run's path, joined and normalised with the
 * host's path flavour (`C:\\proj` + `/data` → `C:\\proj\\data` on win32); a source without a
 * variable is returned unchanged.
 * @returns the path, or undefined when the run has no value for the variable
 */
export function substitutePathVariable(source: string, paths: RunPaths, platform: HostPlatform = process.platform): string | undefined {
  const split = splitPathVariable(source);
  if (!split) return source;
  const base = paths[pathKey(split.variable)];
  if (base === undefined) return undefined;
  const flavor = pathFlavor(platform);
  const rest = split.rest.replace(/^[\\/]+/, '');
  const joined = rest === '' ? flavor.normalize(base) : flavor.join(base, rest);
  // `normalize` keeps a trailing separator of the base ("/proj/"); the mount checks want none.
  return joined.length > 1 && /[\\/]$/.test(joined) && !/^[A-Za-z]:\\$/.test(joined) ? joined.slice(0, -1) : joined;
}

/** True when any mount source of `profile` names a variable (such a profile is never prepared warm). */
export function usesPathVariables(profile: WithMountSources): boolean {
  return profile.mounts.some((m) => splitPathVariable(m.source) !== undefined);
}

/**
 * The profile with each mount source's variable resolved for this run (mounts.ts then checks and
 * pins the resolved paths).
 * @param profileName for the setting key in the refusal
 * @throws SandboxError `invalid-mount` when a source names a variable the run has no value for,
 *   in one sentence naming the key: "The bind mount sandboxRunner.profiles.py.mounts.0 names
 *   ${workspaceFolder}, but this run has no workspace folder, so nothing ran."
 */
export function resolvePathVariables<P extends WithMountSources>(
  profileName: string, profile: P, paths: RunPaths, platform: HostPlatform = process.platform,
): P {
  if (!usesPathVariables(profile)) return profile;
  const mounts = profile.mounts.map((m, i) => {
    const source = substitutePathVariable(m.source, paths, platform);
    if (source !== undefined) return source === m.source ? m : { ...m, source };
    const variable = splitPathVariable(m.source)!.variable;
    const what = variable === '${workspaceFolder}' ? 'no workspace folder (the file is not in an open folder, or the CLI got no --workspace)' : 'no file folder (an untitled document, or code from standard input)';
    throw new SandboxError(
      'invalid-mount',
      `The bind mount sandboxRunner.profiles.${profileName}.mounts.${i} names ${variable}, but this run has ${what}, so nothing ran.`,
      'Save the file inside a workspace folder (or pass --workspace DIR to sandbox-run), or use a profile without that mount.',
    );
  });
  return { ...profile, mounts };
}
