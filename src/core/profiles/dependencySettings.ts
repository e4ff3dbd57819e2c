/**
 * The install settings of dependency sets (issue 22): `sandboxRunner.dependencies.*` in the editor
 * (machine-scoped, read from user settings only: a workspace never chooses the install's network,
 * index or bounds) and their CLI equivalents. Validated with zod; a bad value is reported naming
 * its key, and the run that needed it does not start. The package.json schema of these settings is
 * generated from the schemas here (settingsSchema.ts).
 */
import type * as z from '../zod';
import { zod } from '../zodLoader';
import { withDescription } from './limits';

/** The install settings, with their units. */
export interface DependencySettings {
  /** The install container's Docker network (never a run's): a network name, not `host`. */
  readonly network: string;
  /** The pip index URL for installs (`PIP_INDEX_URL` in the install container); `''`: the environment's, else pip's default. */
  readonly pipIndexUrl: string;
  /** The npm registry URL for installs (`npm_config_registry` in the install container); `''`: the environment's, else npm's default. */
  readonly npmRegistry: string;
  /** Longest an install may take, seconds. */
  readonly installTimeoutSeconds: number;
  /** Largest installed set, MiB. */
  readonly maxSetMiB: number;
  /** Size past which the least recently used sets are removed after an install, MiB. */
  readonly cacheMaxMiB: number;
}

/** The keys below `sandboxRunner.dependencies.`, in the order the settings editor shows them. */
export const DEPENDENCY_SETTING_KEYS = ['network', 'pipIndexUrl', 'npmRegistry', 'installTimeoutSeconds', 'maxSetMiB', 'cacheMaxMiB'] as const;

/** Issue 22's defaults. */
export const DEFAULT_DEPENDENCY_SETTINGS: DependencySettings = {
  network: 'bridge',
  pipIndexUrl: '',
  npmRegistry: '',
  installTimeoutSeconds: 300,
  maxSetMiB: 1024,
  cacheMaxMiB: 4096,
};

// The network: a Docker network name (the engine's own rule; container/argv.ts `buildInstallArgv`
// checks it again), never `host` (the install would share the host's network namespace and reach
// its loopback services). A URL: empty, or http(s) in printable ASCII without spaces.

function whole(min: number, max: number, unit: string) {
  const z = zod();
  const error = `must be a whole number from ${min} to ${max} (${unit})`;
  return z.number({ error }).check(z.int({ error }), z.gte(min, { error }), z.lte(max, { error }));
}

function url(what: string) {
  const z = zod();
  const error = `must be empty or an http(s) URL of ${what} without spaces, e.g. "https://mirror.example/simple"`;
  return z.string({ error }).check(z.regex(/^$|^https?:\/\/[\x21-\x7e]{1,490}$/, { error }));
}

/** Builds the schemas (see {@link dependencySettingsSchemas}). */
function build() {
  const z = zod();
  const netError = 'must be the name of a Docker network other than "host" (letters, digits, "_", "." and "-"), e.g. "bridge" or a network holding your mirror';
  return {
    network: withDescription(
      z._default(z.string({ error: netError }).check(z.regex(/^(?!host$)[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, { error: netError })), DEFAULT_DEPENDENCY_SETTINGS.network),
      'Docker network of the install container only',
    ),
    pipIndexUrl: withDescription(z._default(url('a PEP 503 index'), ''), 'pip index URL for installs'),
    npmRegistry: withDescription(z._default(url('an npm registry'), ''), 'npm registry URL for installs'),
    installTimeoutSeconds: withDescription(z._default(whole(10, 3600, 'seconds'), DEFAULT_DEPENDENCY_SETTINGS.installTimeoutSeconds), 'install time limit, seconds'),
    maxSetMiB: withDescription(z._default(whole(1, 16384, 'MiB'), DEFAULT_DEPENDENCY_SETTINGS.maxSetMiB), 'largest installed set, MiB'),
    cacheMaxMiB: withDescription(z._default(whole(64, 1048576, 'MiB'), DEFAULT_DEPENDENCY_SETTINGS.cacheMaxMiB), 'dependency cache size, MiB'),
  } satisfies Record<keyof DependencySettings, z.ZodMiniType>;
}

let built: ReturnType<typeof build> | undefined;

/** The zod schema of each install setting (with its default), built once on first use. */
export function dependencySettingsSchemas(): ReturnType<typeof build> {
  return (built ??= build());
}

/** A bad install setting: the key as users write it and one sentence. */
export interface DependencySettingIssue {
  readonly key: string;
  readonly message: string;
}

/**
 * The install settings from `read` (a key below the prefix → its value, undefined when unset),
 * each validated; a bad value is reported (naming it as `name` writes it) and its default used.
 * @param name how users write a key, e.g. `sandboxRunner.dependencies.maxSetMiB` or `--max-set-mib`
 */
export function parseDependencySettings(
  read: (key: keyof DependencySettings) => unknown, name: (key: keyof DependencySettings) => string,
): { settings: DependencySettings; issues: DependencySettingIssue[] } {
  const schemas = dependencySettingsSchemas();
  const issues: DependencySettingIssue[] = [];
  const out: Record<string, unknown> = { ...DEFAULT_DEPENDENCY_SETTINGS };
  for (const key of DEPENDENCY_SETTING_KEYS) {
    const value = read(key);
    if (value === undefined) continue;
    const parsed = (schemas[key] as z.ZodMiniType).safeParse(value);
    if (parsed.success) out[key] = parsed.data;
    else issues.push({ key: name(key), message: `${name(key)} ${parsed.error.issues[0]?.message ?? 'is invalid'}` });
  }
  return { settings: out as unknown as DependencySettings, issues };
}
