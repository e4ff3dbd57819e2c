/**
 * `sandbox-run --dependencies` (issue 22): the packages a run declares (the profile's
 * `dependencies`, and for a python profile the code's PEP 723 `# /// script` block) are installed
 * only with that flag, in an install container on `--install-network NAME` (default `bridge`) with
 * the registry variables of this environment (PIP_INDEX_URL, PIP_EXTRA_INDEX_URL,
 * PIP_TRUSTED_HOST, npm_config_registry and the proxy variables), which the run never gets.
 * A node profile's `workspace: "ro"` run of a file under a folder with package.json and
 * package-lock.json installs that lockfile with `npm ci` (core deps/lockfile.ts), only with the flag.
 * Without the flag a run that declares any fails before starting with one sentence naming the
 * flag and the packages. `--install-timeout`, `--max-set-mib` and `--cache-max-mib` are the
 * editor's `sandboxRunner.dependencies.*` settings (core profiles/dependencySettings.ts).
 */
import type { DockerOptions, Profile } from '../core';
import { SandboxError } from '../core/errors';
import { declaredDependencies, installDeclared, installEnvironment, isNodeProfile, isPythonProfile, shownSpecs, type DeclaredDependencies } from '../core/deps/declared';
import { requiresPythonCheck } from '../core/deps/imagePython';
import { findLockfileFolder, readNpmLockfile } from '../core/deps/lockfile';
import { missingNodePackage, OutputTail } from '../core/deps/nodeHint';
import { profileSettingPath } from '../core/layout';
import type { OutputSink } from '../core/output/output';
import type { RunPaths } from '../core/profiles/pathVariables';
import { parseDependencySettings, type DependencySettings } from '../core/profiles/dependencySettings';
import { TerminalTextFilter } from '../core/output/terminalText';
import type { CliValues } from './options';

/** The CLI option of each install setting. */
const FLAG: Record<keyof DependencySettings, string | undefined> = {
  network: 'install-network', installTimeoutSeconds: 'install-timeout', maxSetMiB: 'max-set-mib', cacheMaxMiB: 'cache-max-mib', pipIndexUrl: undefined, npmRegistry: undefined,
};

/**
 * The install settings from the command line (numbers parsed from their text).
 * @throws SandboxError `invalid-profile` naming the first bad option
 */
export function cliInstallSettings(values: CliValues): DependencySettings {
  const read = (key: keyof DependencySettings): unknown => {
    const flag = FLAG[key];
    const text = flag ? (values as Record<string, unknown>)[flag] : undefined;
    if (typeof text !== 'string' || key === 'network') return text;
    return /^\s*$/.test(text) ? text : Number(text);
  };
  const { settings, issues } = parseDependencySettings(read, (key) => `--${FLAG[key] ?? key}`);
  if (issues.length > 0) throw new SandboxError('invalid-profile', `${issues[0]!.message}, so nothing ran.`, 'Correct the option, then run again.');
  return settings;
}

/**
 * What the run mounts for its declared dependencies; undefined when it declares none.
 * @param log receives the installer's output (filtered) and notices, for stderr
 * @param paths the run's workspace folder and file, for a node workspace run's lockfile
 * @param markdown true when the code is a whole Markdown file: a `# /// script` block inside one of
 *   its fenced code blocks belongs to that block, not to the run (core source/fences.ts)
 * @throws SandboxError `invalid-profile` without `--dependencies`, for a bad block, spec, option or
 *   lockfile, a lockfile beside profile dependencies, or a profile that is neither python nor
 *   node; the errors of `ensureDependencySet`; for a script whose `requires-python` (without
 *   dependencies) the image's Python does not meet, imagePython.ts `requiresPythonCheck`'s
 */
export async function cliDependencySet(
  values: CliValues, engine: DockerOptions, profileName: string, profile: Profile, code: Buffer, signal: AbortSignal, log: (text: string) => void,
  paths?: RunPaths & { readonly file?: string }, markdown = false,
) {
  const lockFolder = values.dependencies && !isPythonProfile(profile) && isNodeProfile(profile) && profile.workspace === 'ro' && paths?.file && paths.workspaceFolder
    ? await findLockfileFolder(paths.file, paths.workspaceFolder) : undefined;
  const lock = lockFolder === undefined ? undefined : await readNpmLockfile(lockFolder);
  if (lock && profile.dependencies.length > 0) {
    throw new SandboxError('invalid-profile', `Profile "${profileName}" lists dependencies and the run's folder ${lock.folder} has a package-lock.json; only one of them is installed, so nothing ran.`, `Add the packages to that package.json (npm install NAME), or remove ${profileSettingPath(profileName, 'dependencies')}.`);
  }
  const where = lock ? `${lock.folder}/package-lock.json` : '';
  // markdown-it's block parser (core source/fences.ts) is initialised only for a Markdown file; its
  // code (about 60 KB minified, entity decoding included) is still read with dist/cli-main.js.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const text = markdown ? (require('../core/source/fences') as typeof import('../core/source/fences')).withoutFencedBlocks(code.toString('utf8')) : code.toString('utf8');
  const declared: DeclaredDependencies | undefined = lock
    ? { manager: 'npm', specs: [lock.keySpec], profileSpecs: [], untrustedSpecs: [lock.keySpec], where, lockfile: lock }
    : declaredDependencies(profileName, profile, text);
  if (!declared) {
    if (!lock) await requiresPythonCheck(engine, profileName, profile, text)?.();
    return undefined;
  }
  const shown = lock ? `${lock.packages} packages from ${JSON.stringify(where)}` : shownSpecs(declared.specs);
  if (!values.dependencies) {
    throw new SandboxError('invalid-profile', `This run declares dependencies (${shown}), which sandbox-run installs only with --dependencies, so nothing ran.`, 'Add --dependencies (they are installed in a separate container, the only phase with network), or remove them.');
  }
  const settings = cliInstallSettings(values);
  const filter = new TerminalTextFilter();
  const { set, mount } = await installDeclared(declared, {
    docker: engine, profileName, profile, settings, installEnv: installEnvironment(settings, process.env), signal, onOutput: (t) => log(filter.push(t)),
  });
  log(`[sandbox-runner] dependencies ${set.installed ? `installed on network ${settings.network}` : 'from the cache'}: ${shown}; the program runs with them read-only.\n`);
  return mount;
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
