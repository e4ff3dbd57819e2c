/**
 * The product's vocabulary, defined once: where things are inside the container, how its
 * containers are named, the setting keys, and `MiB`. Pure constants (no I/O besides a random run
 * id), shared by core, the CLI and the extension.
 */
import { randomUUID } from 'node:crypto';

/**
 * In-container directory of the snippet file: an exec tmpfs the launcher writes it into (a
 * read-only bind of a host directory on the direct fallback). argv.ts mounts it; error lines
 * naming `/sandbox/main.py` are mapped back to the host file (sourceRefs.ts).
 */
export const SNIPPET_DIR = '/sandbox';

/** In-container HOME (argv.ts sets `HOME` and mounts a tmpfs owned by the run's user here); caches go below it. */
export const SANDBOX_HOME = '/home/sandbox';

/**
 * Container paths the sandbox mounts its own file systems on (argv.ts: the snippet dir, the
 * noexec HOME and `/tmp`). No mount or workdir may be, or sit inside, them, or it would replace
 * them (a workdir of `/tmp` would make `/tmp` executable): profileSchema.ts refuses such a
 * workdir, mounts.ts and workspaceMount.ts such a mount.
 */
export const RESERVED_CONTAINER_PATHS = [SNIPPET_DIR, SANDBOX_HOME, '/tmp'] as const;

/** One mebibyte, in bytes (2^20): limits are given in MiB and the engine takes bytes. */
export const MiB = 1024 * 1024;

/**
 * Prefix of every container name the product gives: `sandbox-runner-<run id>`. A container's
 * name is chosen by whoever creates it, never by its image, so the sweep (reaper.ts
 * `notProductNamed`) only removes containers named exactly so for their own run-id label.
 */
export const CONTAINER_NAME_PREFIX = 'sandbox-runner-';

/** A run id as `randomUUID` makes it (lower-case RFC 4122 version 4). */
export const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The container name of run `runId`: `sandbox-runner-<runId>`. */
export function containerName(runId: string): string {
  return `${CONTAINER_NAME_PREFIX}${runId}`;
}

/** A new run id (a random UUID, see {@link RUN_ID}) and its container name ({@link containerName}). */
export function newContainerName(): { readonly runId: string; readonly name: string } {
  const runId = randomUUID();
  return { runId, name: containerName(runId) };
}

/**
 * Prefix of a snippet's host directory in the OS temp dir (`sandbox-runner-XXXXXX`, node's
 * `mkdtemp`): snippet.ts makes it, reaper.ts recognises a dead run's one by it.
 */
export const SNIPPET_HOST_DIR_PREFIX = 'sandbox-runner-';

/** The section of every setting (package.json `contributes.configuration`; VS Code's `getConfiguration(section)`). */
export const SETTINGS_SECTION = 'sandboxRunner';

/** The setting keys below {@link SETTINGS_SECTION}, in package.json's order (settingsSchema.ts generates that section from them). */
export const SETTING_KEYS = [
  'profiles', 'defaultProfile', 'timeoutSeconds', 'outputBytes', 'interactive', 'markdownCodeLens',
  'clearOutputBeforeRun', 'revealOutput', 'warmStart', 'warmIdleSeconds', 'maskedFiles',
  'dockerPath', 'dockerContext', 'dockerHost', 'agentTool.enabled', 'agentTool.maxTimeoutSeconds',
  'dependencies.network', 'dependencies.pipIndexUrl', 'dependencies.npmRegistry', 'dependencies.installTimeoutSeconds',
  'dependencies.maxSetMiB', 'dependencies.cacheMaxMiB', 'sessions.idleSeconds', 'notebooks.richOutput',
] as const;

/** A setting key below the section, e.g. `profiles`. */
export type SettingKey = (typeof SETTING_KEYS)[number];
/** A setting's full id, e.g. `sandboxRunner.profiles`. */
export type SettingId = `${typeof SETTINGS_SECTION}.${SettingKey}`;

/** The full id of setting `key`, e.g. `sandboxRunner.profiles`, as users see it and the settings editor finds it. */
export function settingId(key: SettingKey): SettingId {
  return `${SETTINGS_SECTION}.${key}`;
}

/** The setting that holds the profiles by name (`sandboxRunner.profiles`). */
export const PROFILES_SETTING = settingId('profiles');

/**
 * The setting path of a part of one profile, as refusals name it, e.g.
 * `sandboxRunner.profiles.py.workspace` or `sandboxRunner.profiles.py.mounts.0`.
 */
export function profileSettingPath(profileName: string, ...path: ReadonlyArray<string | number>): string {
  return [settingId('profiles'), profileName, ...path].join('.');
}
