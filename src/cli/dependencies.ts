/**
 * `sandbox-run --dependencies` (issue 22): the packages a run declares (the profile's
 * `dependencies`, and for a python profile the code's PEP 723 `# /// script` block) are installed
 * only with that flag, in an install container on `--install-network NAME` (default `bridge`) with
 * the registry variables of this environment (PIP_INDEX_URL, PIP_EXTRA_INDEX_URL,
 * PIP_TRUSTED_HOST, npm_config_registry and the proxy variables), which the run never gets.
 * Without the flag a run that declares any fails before starting with one sentence naming the
 * flag and the packages. `--install-timeout`, `--max-set-mib` and `--cache-max-mib` are the
 * editor's `sandboxRunner.dependencies.*` settings (core profiles/dependencySettings.ts).
 */
import type { DockerOptions, Profile } from '../core';
import { SandboxError } from '../core/errors';
import { declaredDependencies, installDeclared, installEnvironment, shownSpecs } from '../core/deps/declared';
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
 * @throws SandboxError `invalid-profile` without `--dependencies`, for a bad block, spec or option,
 *   or for node profiles (not installed yet); the errors of `ensureDependencySet`
 */
export async function cliDependencySet(
  values: CliValues, engine: DockerOptions, profileName: string, profile: Profile, code: Buffer, signal: AbortSignal, log: (text: string) => void,
) {
  const declared = declaredDependencies(profileName, profile, code.toString('utf8'));
  if (!declared) return undefined;
  const shown = shownSpecs(declared.specs);
  if (!values.dependencies) {
    throw new SandboxError('invalid-profile', `This run declares dependencies (${shown}), which sandbox-run installs only with --dependencies, so nothing ran.`, 'Add --dependencies (they are installed in a separate container, the only phase with network), or remove them.');
  }
  if (declared.manager !== 'pip') throw new SandboxError('invalid-profile', `Profile "${profileName}" declares dependencies (${shown}), but only python profiles install them yet, so nothing ran.`, 'Remove "dependencies" from the profile.');
  const settings = cliInstallSettings(values);
  const filter = new TerminalTextFilter();
  const { set, mount } = await installDeclared(declared, {
    docker: engine, profileName, profile, settings, installEnv: installEnvironment(settings, process.env), signal, onOutput: (t) => log(filter.push(t)),
  });
  log(`[sandbox-runner] dependencies ${set.installed ? `installed on network ${settings.network}` : 'from the cache'}: ${shown}; the program runs with them read-only.\n`);
  return mount;
}
