/**
 * The plan of a run with `workspace: "ro"` (issue 12, "Files beside the snippet"): where the
 * document's workspace folder appears in the container, which in-container path the command's
 * `${file}` becomes, the working directory, and the module-path variable for code that runs from
 * the snippet path. Pure (no I/O): host paths are compared with the host's path flavour
 * (hostPath.ts, `path.win32` on Windows), so Windows paths are unit-tested on Linux.
 *
 * Layout: the folder is bind-mounted read-only at `/workspace/<folder name>` (the name reduced to
 * `[A-Za-z0-9._-]`), below the default working directory's tmpfs at `/workspace`. A saved,
 * unmodified file inside the folder runs from its mirrored path there (so Python's `sys.path[0]`,
 * Node's relative `require`/`import` and relative `open()` resolve as in a terminal); a selection,
 * unsaved edits or an untitled document run from the snippet path (/sandbox/…) with the file's
 * folder as the working directory and on the profile's `modulePathEnv`.
 */
import { posix } from 'node:path';
import { profileSettingPath, RESERVED_CONTAINER_PATHS } from '../layout';
import { SandboxError } from '../errors';
import { isHostPathInside, pathFlavor, type HostPlatform } from '../hostPath';
import { isPathInside, UNSAFE_CONTAINER_PATH_CHARS } from '../profiles/profileSchema';
import type { NamedProfile } from '../profiles/profileResolution';
import type { Profile } from '../profiles/profileSchema';

/** The container folder the workspace folder is mounted below. */
export const WORKSPACE_ROOT = '/workspace';

/** Longest folder name kept in the target, characters. */
const MAX_NAME = 64;

/**
 * The container name of a host folder: its base name with every character outside
 * `[A-Za-z0-9._-]` replaced by `_` (so no `,` `:` `=` `"` or line break reaches docker's `--mount`
 * syntax), at most 64 characters; `folder` when nothing usable is left (`/`, `C:\`, "..").
 */
export function containerFolderName(hostFolder: string, platform: HostPlatform = process.platform): string {
  const name = pathFlavor(platform).basename(hostFolder).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, MAX_NAME);
  return name === '' || /^\.+$/.test(name) ? 'folder' : name;
}

/** Where `hostFolder` is mounted: `/workspace/<containerFolderName>`. */
export function workspaceTarget(hostFolder: string, platform: HostPlatform = process.platform): string {
  return `${WORKSPACE_ROOT}/${containerFolderName(hostFolder, platform)}`;
}

/**
 * The in-container path of host path `hostPath` under the mounted folder, or undefined when it
 * is not inside `hostFolder` (case-insensitively on Windows and macOS, hostPath.ts) or a segment
 * holds a NUL or line break (it could not travel in the argv or `--workdir`).
 */
export function mirroredPath(hostPath: string, hostFolder: string, target: string, platform: HostPlatform = process.platform): string | undefined {
  if (!isHostPathInside(hostPath, hostFolder, platform)) return undefined;
  const rel = pathFlavor(platform).relative(hostFolder, hostPath);
  const segments = rel === '' ? [] : rel.split(platform === 'win32' ? /[\\/]/ : '/');
  if (segments.some((s) => s === '..' || /[\0\n\r]/.test(s))) return undefined;
  return segments.length === 0 ? target : posix.join(target, ...segments);
}

/** What a workspace run needs from its caller. */
export interface WorkspaceRunInput {
  /** The document's workspace folder, absolute on this host. */
  readonly workspaceFolder: string;
  /** The folder of the file being run (also for a selection), when the document has a file. */
  readonly fileDirname?: string;
  /**
   * The host path of the file to run from the mount: set only for a saved, unmodified file run
   * (not a selection, not unsaved edits: those run the editor's text from the snippet path).
   */
  readonly file?: string;
}

/** The outcome of {@link planWorkspaceRun}. */
export interface WorkspacePlan {
  /** Container path of the read-only mount of the folder. */
  readonly target: string;
  /** In-container path for `${file}`, when the file runs from the mount; else the snippet path is used. */
  readonly programFile?: string;
  /** The working directory (`--workdir`): the file's mirrored folder, when it is inside the mount. */
  readonly workdir?: string;
  /** Variables to set (the profile's `modulePathEnv`, prepended to its own value with `:`). */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Plans a `workspace: "ro"` run. The folder's target must not collide with what the sandbox
 * mounts itself (/sandbox, /home/sandbox, /tmp), with the profile's workdir (a workdir equal to
 * or inside the target would put its tmpfs over the project files), or with the profile's own
 * mounts (equal, inside or containing).
 * @throws SandboxError `invalid-mount` naming `sandboxRunner.profiles.NAME.workspace` and the collision
 */
export function planWorkspaceRun(
  { name: profileName, profile }: NamedProfile, input: WorkspaceRunInput, platform: HostPlatform = process.platform,
): WorkspacePlan {
  const key = profileSettingPath(profileName, 'workspace');
  const target = workspaceTarget(input.workspaceFolder, platform);
  const refuse = (why: string) =>
    new SandboxError('invalid-mount', `The workspace mount (${key}) at ${target} is refused because ${why}, so nothing ran.`, 'Change the profile\'s workdir or mounts, or set "workspace" to "none".');
  for (const own of RESERVED_CONTAINER_PATHS) {
    if (isPathInside(target, own) || isPathInside(own, target)) throw refuse(`the sandbox mounts ${own} itself`);
  }
  if (isPathInside(profile.workdir, target)) throw refuse(`the profile's workdir ${profile.workdir} is there (its tmpfs would hide the project files)`);
  const clash = profile.mounts.find((m) => isPathInside(m.target, target) || isPathInside(target, m.target));
  if (clash) throw refuse(`the profile's mount at ${clash.target} overlaps it`);
  const workdir = input.fileDirname === undefined ? undefined : mirroredPath(input.fileDirname, input.workspaceFolder, target, platform);
  const programFile = input.file === undefined ? undefined : mirroredPath(input.file, input.workspaceFolder, target, platform);
  const env: Record<string, string> = {};
  const modulePath = profile.modulePathEnv;
  if (programFile === undefined && workdir !== undefined && modulePath !== undefined) {
    const own = profile.env[modulePath];
    env[modulePath] = own ? `${workdir}:${own}` : workdir;
  }
  return { target, ...(programFile !== undefined ? { programFile } : {}), ...(workdir !== undefined ? { workdir } : {}), env };
}

/** A plan with the host folder it is for (what workspacePins.ts `pinMounts` mounts). */
export interface FolderPlan extends WorkspacePlan {
  /** The document's workspace folder, absolute on this host. */
  readonly folder: string;
}

/** The outcome of {@link applyWorkspace}. */
export interface WorkspaceApplied {
  /** The profile as the run or session uses it: with the plan's module-path variable in its env. */
  readonly profile: Profile;
  /** The plan, for a `workspace: "ro"` profile. */
  readonly plan?: FolderPlan;
}

/**
 * The workspace step every container with a document's folder goes through, a run's (runner.ts
 * `Run.prepare`) and a session's (session/start.ts): for `workspace: "ro"` the plan
 * ({@link planWorkspaceRun}) and the profile with the plan's env added; for `"none"` the profile unchanged.
 * @param paths the document's paths (a notebook's: its workspace folder and its own folder, no `file`)
 * @throws SandboxError `invalid-mount` for `"ro"` without a workspace folder (a file or notebook
 *   outside any open folder, the CLI without --workspace, an agent), or as {@link planWorkspaceRun}
 */
export function applyWorkspace(named: NamedProfile, paths: Partial<WorkspaceRunInput> = {}): WorkspaceApplied {
  const { name, profile } = named;
  if (profile.workspace !== 'ro') return { profile };
  if (paths.workspaceFolder === undefined) {
    throw new SandboxError(
      'invalid-mount',
      `The profile key ${profileSettingPath(name, 'workspace')} is "ro", but this run has no workspace folder (the file or notebook is not in an open folder, or the CLI got no --workspace), so nothing ran.`,
      'Save the file or notebook inside a workspace folder (or pass --workspace DIR to sandbox-run), or set "workspace" to "none".',
    );
  }
  const plan = planWorkspaceRun(named, { ...paths, workspaceFolder: paths.workspaceFolder });
  return { profile: { ...profile, env: { ...profile.env, ...plan.env } }, plan: { ...plan, folder: paths.workspaceFolder } };
}

/** True when a container path can be a `--workdir` and a program argument (absolute, no NUL or line break). */
export function isArgvContainerPath(p: string): boolean {
  return p.startsWith('/') && !/[\0\n\r]/.test(p);
}

/** True when a container path can sit in docker's `--mount` CSV (no `,` `:` `"` `=` or line break). */
export function isMountContainerPath(p: string): boolean {
  return p.startsWith('/') && !UNSAFE_CONTAINER_PATH_CHARS.test(p) && !p.includes('=');
}
