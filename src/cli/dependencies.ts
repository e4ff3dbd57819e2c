/**
 * `sandbox-run --dependencies` (issue 22): the packages a run declares (the profile's
 * `dependencies`, and for a python profile the code's PEP 723 `# /// script` block) are installed
 * only with that flag, in an install container on `--install-network NAME` (default `bridge`) with
 * the registry variables of this environment (python: PIP_INDEX_URL, PIP_EXTRA_INDEX_URL,
 * PIP_TRUSTED_HOST; node: npm_config_registry; and the proxy variables), which the run never gets. Without the flag a run that
 * declares any fails before starting with one sentence naming the flag and the packages.
 */
import type { DockerOptions, Profile } from '../core';
import { SandboxError } from '../core/errors';
import { readScriptMetadata, SCRIPT_BLOCK } from '../core/deps/pep723';
import { ensureDependencySet, pythonRunMount } from '../core/deps/install';
import { nodeRunMount, NPM_REGISTRY_VAR } from '../core/deps/npm';
import { findLockfileFolder, readNpmLockfile } from '../core/deps/lockfile';
import type { RunPaths } from '../core/profiles/pathVariables';
import { missingNodePackage, OutputTail } from '../core/deps/nodeHint';
import type { OutputSink } from '../core/output/output';
import { profileSettingPath } from '../core/layout';
import { TerminalTextFilter } from '../core/output/terminalText';
import type { CliValues } from './options';

/** Longest an install may take, ms (issue 22's default of `dependencies.installTimeoutSeconds`, 300 s). */
const INSTALL_TIMEOUT_MS = 300_000;
/** Largest installed set, MiB (issue 22's default of `dependencies.maxSetMiB`). */
const MAX_SET_MIB = 1024;
/** Variables of this environment passed to the install container only: the manager's, then the proxies. */
const REGISTRY_VARS = {
  pip: ['PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'PIP_TRUSTED_HOST'],
  npm: [],
  proxy: ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'],
} as const;

/** True for a profile whose packages pip installs (its languages or command name Python). */
export function isPythonProfile(profile: Profile): boolean {
  return profile.languages.includes('python') || /(?:^|\/)python3?(?:\.\d+)?$/.test(profile.command[0] ?? '');
}

/** True for a profile whose packages npm installs (its languages name javascript or typescript, or its command is node). */
export function isNodeProfile(profile: Profile): boolean {
  return profile.languages.some((l) => l === 'javascript' || l === 'typescript') || /(?:^|\/)node(?:js)?$/.test(profile.command[0] ?? '');
}

/**
 * What the run mounts for its declared dependencies; undefined when it declares none.
 * With `--dependencies`, a node profile's `workspace: "ro"` run of a file under a folder with
 * package.json and package-lock.json (the nearest, up to the workspace folder) installs that
 * lockfile (deps/lockfile.ts); without the flag such a run runs as before, without installing.
 * @param log receives the installer's output (filtered) and notices, for stderr
 * @param paths the run's workspace folder and file, for the lockfile
 * @throws SandboxError `invalid-profile` without `--dependencies`, for a bad block or spec, for a
 *   lockfile that is refused or beside profile dependencies, or for a profile that is neither
 *   python nor node; the errors of `ensureDependencySet`
 */
export async function cliDependencySet(
  values: CliValues, engine: DockerOptions, profileName: string, profile: Profile, code: Buffer, signal: AbortSignal, log: (text: string) => void,
  paths?: RunPaths & { readonly file?: string },
) {
  const python = isPythonProfile(profile);
  const block = python ? readScriptMetadata(code.toString('utf8')) : { kind: 'none' as const };
  if (block.kind === 'invalid') throw new SandboxError('invalid-profile', block.message, 'Nothing ran.');
  const lockFolder = values.dependencies && !python && isNodeProfile(profile) && profile.workspace === 'ro' && paths?.file && paths.workspaceFolder
    ? await findLockfileFolder(paths.file, paths.workspaceFolder) : undefined;
  const lock = lockFolder === undefined ? undefined : await readNpmLockfile(lockFolder);
  if (lock && profile.dependencies.length > 0) {
    throw new SandboxError('invalid-profile', `Profile "${profileName}" lists dependencies and the run's folder ${lock.folder} has a package-lock.json; only one of them is installed, so nothing ran.`, `Add the packages to that package.json (npm install NAME), or remove ${profileSettingPath(profileName, 'dependencies')}.`);
  }
  const specs = lock ? [lock.keySpec] : [...profile.dependencies, ...(block.kind === 'ok' ? block.metadata.dependencies : [])];
  if (specs.length === 0) return undefined;
  const where = lock ? `${lock.folder}/package-lock.json` : block.kind === 'ok' && block.metadata.dependencies.length > 0 ? SCRIPT_BLOCK : profileSettingPath(profileName, 'dependencies');
  const shown = lock ? `${lock.packages} packages from ${JSON.stringify(where)}` : specs.map((s) => JSON.stringify(s)).join(', ');
  if (!values.dependencies) {
    throw new SandboxError('invalid-profile', `This run declares dependencies (${shown}), which sandbox-run installs only with --dependencies, so nothing ran.`, 'Add --dependencies (they are installed in a separate container, the only phase with network), or remove them.');
  }
  const manager = python ? 'pip' : isNodeProfile(profile) ? 'npm' : undefined;
  if (!manager) throw new SandboxError('invalid-profile', `Profile "${profileName}" declares dependencies (${shown}), but only python (pip) and node (npm) profiles install them, so nothing ran.`, 'Remove "dependencies" from the profile.');
  const registryEnv: Record<string, string> = {};
  for (const name of [...REGISTRY_VARS[manager], ...REGISTRY_VARS.proxy]) if (process.env[name]) registryEnv[name] = process.env[name]!;
  // npm reads its variables in any case; one spelling reaches the container and the set's key.
  const npmRegistry = process.env[NPM_REGISTRY_VAR] || process.env[NPM_REGISTRY_VAR.toUpperCase()];
  if (manager === 'npm' && npmRegistry) registryEnv[NPM_REGISTRY_VAR] = npmRegistry;
  const network = values['install-network'] ?? 'bridge';
  const filter = new TerminalTextFilter();
  const set = await ensureDependencySet({
    docker: engine, profile, profileName, manager, specs, where, network, registryEnv, ...(lock ? { lockfile: lock } : {}),
    timeoutMs: INSTALL_TIMEOUT_MS, maxSetMiB: MAX_SET_MIB, signal, onOutput: (t) => log(filter.push(t)),
  });
  log(`[sandbox-runner] dependencies ${set.installed ? `installed on network ${network}` : 'from the cache'}: ${shown}; the program runs with them read-only.\n`);
  return manager === 'npm' ? nodeRunMount(set) : pythonRunMount(set);
}

/**
 * The output sink of a node run that keeps the end of its stderr, and the hint to print after it:
 * a package Node could not load (deps/nodeHint.ts) that the profile does not list yet. A
 * suggestion only: it names the profile key and the flag, and decides nothing.
 * @returns `sink` to pass as the run's output (it forwards to `next`), `hint()` one line or undefined
 */
export function missingPackageHint(profileName: string, profile: Profile, next: OutputSink): { sink: OutputSink; hint: () => string | undefined } {
  if (isPythonProfile(profile) || !isNodeProfile(profile)) return { sink: next, hint: () => undefined };
  const tail = new OutputTail();
  const decoder = new TextDecoder();
  const sink: OutputSink = (...args) => {
    if (args[0] === 'stderr') tail.push(decoder.decode(args[1], { stream: true }));
    next(...args);
  };
  return {
    sink,
    hint: () => {
      const name = missingNodePackage(tail.toString());
      if (name === undefined || profile.dependencies.some((d) => d === name || d.startsWith(`${name}@`))) return undefined;
      return `hint: the program could not load the package "${name}"; to install it, add "${name}" to ${profileSettingPath(profileName, 'dependencies')} and run with --dependencies.`;
    },
  };
}
