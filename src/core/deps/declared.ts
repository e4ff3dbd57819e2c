/**
 * What a run declares and how its set is installed, shared by every caller (issue 22): the CLI
 * (`--dependencies`), the editor, the MCP server (`--allow-dependencies`) and the language model
 * tool. The declared specs are the profile's `dependencies`, a python run's PEP 723
 * `# /// script` block and an agent's `dependencies` input, in that order; each caller decides
 * whether it may install them (a flag, consent) before calling {@link installDeclared}.
 * The registry variables of the caller's environment and the install settings
 * (profiles/dependencySettings.ts) reach the install container only.
 */
import { SandboxError } from '../errors';
import { profileSettingPath } from '../layout';
import type { DependencySettings } from '../profiles/dependencySettings';
import { dependencyListProblem, normaliseSpecs, showSpec, type DependencyManager } from '../profiles/dependencySpecs';
import type { Profile } from '../profiles/profileSchema';
import type { DockerOptions } from '../engine/contracts';
import { createHash } from 'node:crypto';
import { installerIdentity } from './installer';
import { noteSetUse } from './cacheUse';
import { ensureDependencySet, pythonRunMount, type InstalledSet } from './install';
import { nodeRunMount } from './npm';
import { pruneOverCap } from './prune';
import { requiresPythonProblem } from './requiresPython';
import { readScriptMetadata, SCRIPT_BLOCK } from './pep723';

/**
 * Variables of the caller's environment (the user's own: the shell of `sandbox-run`, the extension
 * host's) that configure the installer only (never the run), as options except the proxies
 * (installer.ts). A profile's `env` never does.
 */
export const REGISTRY_VARS = [
  'PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'PIP_TRUSTED_HOST', 'npm_config_registry',
  'HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy',
] as const;

/** Where an agent's specs are named in messages. */
export const AGENT_INPUT = 'the "dependencies" input';

/** True for a profile whose packages pip installs (its languages or command name Python). */
export function isPythonProfile(profile: Profile): boolean {
  return profile.languages.includes('python') || /(?:^|\/)python3?(?:\.\d+)?$/.test(profile.command[0] ?? '');
}

/** True for a profile whose packages npm installs (its languages name javascript or typescript, or its command is node). */
export function isNodeProfile(profile: Profile): boolean {
  return profile.languages.some((l) => l === 'javascript' || l === 'typescript') || /(?:^|\/)node(?:js)?$/.test(profile.command[0] ?? '');
}

/** A run's declared dependencies. */
export interface DeclaredDependencies {
  readonly manager: DependencyManager;
  /** Every spec, the profile's first (checked by `dependencyListProblem`). */
  readonly specs: readonly string[];
  /** The profile's `dependencies` (a user profile's need no consent; a workspace profile's are a loosening). */
  readonly profileSpecs: readonly string[];
  /** The specs from the code's PEP 723 block and the agent's input: untrusted, they need consent or a flag. */
  readonly untrustedSpecs: readonly string[];
  /** What the specs are, for messages (e.g. `the script's "# /// script" block`). */
  readonly where: string;
  /** The block's `requires-python`, when it has one. */
  readonly requiresPython?: string;
  /** npm: a workspace lockfile to install with `npm ci` (lockfile.ts); `specs` is then `[its keySpec]`. */
  readonly lockfile?: { readonly packageJson: Buffer; readonly lockfile: Buffer };
}

/**
 * The dependencies a run of `profile` with `code` declares; undefined when none.
 * @param agentSpecs an agent's `dependencies` input (unchecked), when any
 * @throws SandboxError `invalid-profile` for an invalid PEP 723 block, a refused spec (one
 *   sentence naming the entry), or dependencies on a profile that is neither python (pip) nor node
 *   (npm), before anything starts
 */
export function declaredDependencies(profileName: string, profile: Profile, code: string, agentSpecs: readonly string[] = []): DeclaredDependencies | undefined {
  const python = isPythonProfile(profile);
  const manager: DependencyManager = python ? 'pip' : 'npm';
  if (!python && !isNodeProfile(profile) && (profile.dependencies.length > 0 || agentSpecs.length > 0)) {
    const shown = shownSpecs([...profile.dependencies, ...agentSpecs]);
    throw new SandboxError('invalid-profile', `Profile "${profileName}" declares dependencies (${shown}), but only python (pip) and node (npm) profiles install them, so nothing ran.`, 'Use a python or node profile, or no dependencies.');
  }
  const block = python ? readScriptMetadata(code) : { kind: 'none' as const };
  if (block.kind === 'invalid') throw new SandboxError('invalid-profile', block.message, 'Nothing ran: fix the block, then run again.');
  const scriptSpecs = block.kind === 'ok' ? block.metadata.dependencies : [];
  const specs = [...profile.dependencies, ...scriptSpecs, ...agentSpecs];
  if (specs.length === 0) return undefined;
  const where = agentSpecs.length > 0 ? AGENT_INPUT : scriptSpecs.length > 0 ? SCRIPT_BLOCK : profileSettingPath(profileName, 'dependencies');
  const problem = dependencyListProblem(specs, manager, where);
  if (problem) throw new SandboxError('invalid-profile', problem, 'Change the dependency list, then run again.');
  const requiresPython = block.kind === 'ok' ? block.metadata.requiresPython : undefined;
  return {
    manager, specs, profileSpecs: profile.dependencies, untrustedSpecs: [...scriptSpecs, ...agentSpecs], where,
    ...(requiresPython !== undefined ? { requiresPython } : {}),
  };
}

/**
 * A python run's PEP 723 `requires-python` when the run declares no dependencies: nothing installs
 * then, so the caller checks it with imagePython.ts `checkRequiresPython` (with dependencies,
 * {@link installDeclared} checks it against the version the install recorded). Undefined otherwise,
 * and for a block that does not parse ({@link declaredDependencies} refuses that).
 */
export function requiresPythonOnly(profile: Profile, code: string, agentSpecs: readonly string[] = []): string | undefined {
  if (!isPythonProfile(profile) || profile.dependencies.length > 0 || agentSpecs.length > 0) return undefined;
  const block = readScriptMetadata(code);
  return block.kind === 'ok' && block.metadata.dependencies.length === 0 ? block.metadata.requiresPython : undefined;
}

/** The specs as users read them: each quoted, comma-separated (control characters shown escaped). */
export function shownSpecs(specs: readonly string[]): string {
  return specs.map(showSpec).join(', ');
}

/**
 * The environment of the install container: the registry variables of `env` ({@link REGISTRY_VARS}),
 * with the settings' `pipIndexUrl` and `npmRegistry` over them when set.
 */
export function installEnvironment(settings: Pick<DependencySettings, 'pipIndexUrl' | 'npmRegistry'>, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of REGISTRY_VARS) if (env[name]) out[name] = env[name]!;
  if (settings.pipIndexUrl) out['PIP_INDEX_URL'] = settings.pipIndexUrl;
  if (settings.npmRegistry) out['npm_config_registry'] = settings.npmRegistry;
  return out;
}

/** The index or registry a set installs from, for consent and messages: the URL, or the installer's default. */
export function installSource(manager: DependencyManager, installEnv: Readonly<Record<string, string>>): string {
  if (manager === 'pip') return installEnv['PIP_INDEX_URL'] || 'https://pypi.org/simple (pip\'s default)';
  return installEnv['npm_config_registry'] || 'https://registry.npmjs.org (npm\'s default)';
}

/**
 * The identity of what consent to an install covers, as text: the package manager, the normalised
 * specs, the image as the profile names it, and a SHA-256 of everything of the installer's
 * configuration that can change what it fetches (installer.ts `installerIdentity`: index, extra
 * indexes, trusted hosts, proxies; hashed so a proxy's password is not stored with the consent).
 * A consent given for it never covers another set, image, index or installer configuration.
 */
export function installFingerprint(manager: DependencyManager, specs: readonly string[], image: string, installEnv: Readonly<Record<string, string>>): string {
  const config = createHash('sha256').update(JSON.stringify(installerIdentity(manager, installEnv))).digest('hex');
  return JSON.stringify(['install-v2', manager, normaliseSpecs(specs, manager), image, config]);
}

/**
 * What the consent modal and the agent's confirmation say besides the index: the extra indexes and
 * the hosts trusted without TLS checks of `installEnv` (pip only), one line each, empty when none.
 */
export function installSourceExtras(manager: DependencyManager, installEnv: Readonly<Record<string, string>>): { extraIndexes: string[]; trustedHosts: string[] } {
  if (manager !== 'pip') return { extraIndexes: [], trustedHosts: [] };
  const words = (v: string | undefined) => (v ?? '').split(/\s+/).filter(Boolean);
  return { extraIndexes: words(installEnv['PIP_EXTRA_INDEX_URL']), trustedHosts: words(installEnv['PIP_TRUSTED_HOST']) };
}

/** How to install, besides the declaration. */
export interface InstallContext {
  readonly docker: DockerOptions;
  readonly profileName: string;
  readonly profile: Profile;
  readonly settings: DependencySettings;
  /** The install container's registry variables ({@link installEnvironment}). */
  readonly installEnv: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /** The installer's output, filtered like terminal text and bounded. */
  readonly onOutput?: (text: string) => void;
}

/** What the run mounts, and whether this call installed the set. */
export interface PreparedSet {
  readonly mount: ReturnType<typeof pythonRunMount>;
  readonly set: InstalledSet;
}

/**
 * Installs (or finds in the cache) the set `declared` needs and returns what the run mounts.
 * Records the set's use (cacheUse.ts) and, after an install, removes the least recently used sets
 * past `settings.cacheMaxMiB` (prune.ts `pruneOverCap`; a failure there never fails the run).
 * @throws SandboxError the errors of `ensureDependencySet` (nothing is published when it fails)
 */
export async function installDeclared(declared: DeclaredDependencies, ctx: InstallContext): Promise<PreparedSet> {
  const set = await ensureDependencySet({
    docker: ctx.docker, profile: ctx.profile, profileName: ctx.profileName, manager: declared.manager, specs: declared.specs, where: declared.where,
    network: ctx.settings.network, registryEnv: ctx.installEnv, timeoutMs: ctx.settings.installTimeoutSeconds * 1000, maxSetMiB: ctx.settings.maxSetMiB,
    ...(ctx.signal ? { signal: ctx.signal } : {}), ...(ctx.onOutput ? { onOutput: ctx.onOutput } : {}), ...(declared.lockfile ? { lockfile: declared.lockfile } : {}),
  });
  noteSetUse(set.key);
  // requires-python (PEP 723) against the image's Python, as the install recorded it.
  const problem = declared.requiresPython !== undefined && set.pythonVersion ? requiresPythonProblem(declared.requiresPython, set.pythonVersion, ctx.profileName) : undefined;
  if (problem) throw new SandboxError('invalid-profile', `${problem} Nothing ran.`, 'Change requires-python or the profile, then run again.');
  // After an install, the least recently used sets past the cache's size go (never this one).
  if (set.installed) {
    const pruned = await pruneOverCap(ctx.docker, ctx.settings.cacheMaxMiB, new Set([set.key])).catch(() => undefined);
    if (pruned && pruned.removedSets > 0) ctx.onOutput?.(`[sandbox-runner] removed ${pruned.removedSets} least recently used dependency sets (${Math.round(pruned.removedKiB / 1024)} MiB) to keep the cache under ${ctx.settings.cacheMaxMiB} MiB.\n`);
  }
  return { mount: declared.manager === 'npm' ? nodeRunMount(set) : pythonRunMount(set), set };
}
