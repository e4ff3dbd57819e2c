/**
 * What the installer of a dependency set sees (issue 34, "the install phase obeys the workspace"):
 * its whole environment and configuration, built here from the product's constants and the
 * caller's registry variables (declared.ts `installEnvironment`: the user's own environment and
 * machine-level settings) and from nothing else. Never a profile's `env`, a workspace setting or
 * a workspace file: install.ts starts the installer through `env -i` with exactly
 * {@link installerEnvAssignments}, so neither the profile, the image's `ENV` nor the container's
 * defaults reach it.
 * - pip: `python3 -I` (no `PYTHON*` variable, no user site, no current directory on the path),
 *   `pip --isolated` and `PIP_CONFIG_FILE=/dev/null` (no configuration file, no `PIP_*` variable);
 *   the index, extra indexes and trusted hosts become `--index-url=`, `--extra-index-url=` and
 *   `--trusted-host=` options.
 * - npm: no `NODE_OPTIONS`, no `npm_config_*`; `--userconfig` and `--globalconfig` name empty
 *   files of the product's (`/tmp`, the install container's own tmpfs); the registry is
 *   `--registry=`. A project `.npmrc` is never read: the prefix is a fresh folder of the set's volume.
 * The identity ({@link installerIdentity}) is part of the set's key and of the install consent,
 * so a set installed under one configuration is never served for another. Pure; no I/O.
 */
import { SANDBOX_HOME } from '../layout';
import type { DependencyManager } from '../profiles/dependencySpecs';

/** Proxy variables of the caller's environment that reach the installer (and only it). */
export const INSTALL_PROXY_VARS = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'] as const;

/** pip's variables the caller may give (declared.ts `REGISTRY_VARS`); they become options, never variables. */
const PIP_VARS = ['PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'PIP_TRUSTED_HOST'] as const;
/** npm's registry variable (the key and the option `--registry=`). */
const NPM_VARS = ['npm_config_registry'] as const;

/** The product's empty npm configuration files (written by the install script into the container's own `/tmp`). */
export const NPM_USERCONFIG = '/tmp/sandbox-runner-npmrc-user';
export const NPM_GLOBALCONFIG = '/tmp/sandbox-runner-npmrc-global';

/** Where pip writes its installation report (`--report`), checked by the install script before publishing. */
export const PIP_REPORT = '/tmp/sandbox-runner-pip-report.json';

/**
 * The whole environment of the installer process, as `NAME=VALUE` argv items for `env -i`
 * (`PATH` is the image's, added by the install script): HOME (the install container's tmpfs),
 * TMPDIR, XDG_CACHE_HOME, a UTF-8 locale, pip's `PIP_CONFIG_FILE=/dev/null`, and the proxy
 * variables of `installEnv` ({@link INSTALL_PROXY_VARS}). Nothing of a profile.
 */
export function installerEnvAssignments(manager: DependencyManager, installEnv: Readonly<Record<string, string>>): string[] {
  const env: Record<string, string> = { HOME: SANDBOX_HOME, TMPDIR: '/tmp', XDG_CACHE_HOME: `${SANDBOX_HOME}/.cache`, LC_ALL: 'C.UTF-8' };
  if (manager === 'pip') Object.assign(env, { PIP_CONFIG_FILE: '/dev/null', PYTHONNOUSERSITE: '1' });
  for (const name of INSTALL_PROXY_VARS) if (installEnv[name]) env[name] = installEnv[name];
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}

/** Whitespace-separated words of a variable (pip reads PIP_EXTRA_INDEX_URL and PIP_TRUSTED_HOST so). */
function words(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter(Boolean);
}

/**
 * The options that carry `installEnv`'s index (pip) or registry (npm), each one argv item in the
 * `--name=value` form (a value never becomes an option of its own).
 * @returns e.g. `['--index-url=http://mirror/simple/', '--trusted-host=mirror']`
 */
export function installerSourceOptions(manager: DependencyManager, installEnv: Readonly<Record<string, string>>): string[] {
  if (manager === 'npm') return installEnv['npm_config_registry'] ? [`--registry=${installEnv['npm_config_registry'].trim()}`] : [];
  return [
    ...(installEnv['PIP_INDEX_URL'] ? [`--index-url=${installEnv['PIP_INDEX_URL'].trim()}`] : []),
    ...words(installEnv['PIP_EXTRA_INDEX_URL']).map((u) => `--extra-index-url=${u}`),
    ...words(installEnv['PIP_TRUSTED_HOST']).map((h) => `--trusted-host=${h}`),
  ];
}

/**
 * Everything of `installEnv` that can change what the installer fetches, in a normal form, for the
 * set's key (cacheKey.ts) and the install consent (declared.ts `installFingerprint`): the index or
 * registry (trimmed, without trailing slashes: pip and npm join a name after one slash), the extra
 * indexes and trusted hosts (sorted), and the proxy variables. Variables of the other manager are
 * left out (a pip set does not depend on `npm_config_registry`).
 * @returns sorted `[name, value]` pairs, e.g. `[['PIP_INDEX_URL', 'http://mirror/simple']]`
 */
export function installerIdentity(manager: DependencyManager, installEnv: Readonly<Record<string, string>>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const url = (u: string) => u.trim().replace(/\/+$/, '');
  for (const name of manager === 'pip' ? PIP_VARS : NPM_VARS) {
    const value = installEnv[name];
    if (!value || !value.trim()) continue;
    out.push([name, name === 'PIP_INDEX_URL' || name === 'npm_config_registry' ? url(value) : [...new Set(words(value).map(url))].sort().join(' ')]);
  }
  for (const name of INSTALL_PROXY_VARS) if (installEnv[name]) out.push([name, installEnv[name]]);
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * pip's installer argv after the environment: isolated Python and pip, wheels only, the report for
 * the install script's check ({@link PIP_WHEELS_ONLY_CHECK}), the set's folder, the source options,
 * then `--` (the caller appends the specs after it).
 * @param target the set's folder in the install container (install.ts: `/var/tmp/set`)
 */
export function pipInstallerArgv(target: string, installEnv: Readonly<Record<string, string>>): string[] {
  return [
    'python3', '-I', '-m', 'pip', 'install', '--isolated', '--no-input', '--disable-pip-version-check', '--no-cache-dir',
    '--only-binary=:all:', `--report=${PIP_REPORT}`, `--target=${target}`, ...installerSourceOptions('pip', installEnv), '--',
  ];
}

/**
 * Python run by the pip install script on pip's report (pip 22.2 or later, `--report`): every
 * installed item must have come from a wheel archive (`download_info.archive_info` and a URL whose
 * path ends `.whl`), else it prints the names and exits 91 and nothing is published. So "wheels
 * only" is checked on what pip did, not trusted from its flags. Constant text, no single quote.
 */
export const PIP_WHEELS_ONLY_CHECK = [
  'import json, sys, urllib.parse',
  'r = json.load(open(sys.argv[1]))',
  'def wheel(i):',
  '    d = i.get("download_info") or {}',
  '    return "archive_info" in d and urllib.parse.urlsplit(d.get("url", "")).path.endswith(".whl")',
  'bad = [str((i.get("metadata") or {}).get("name", "?")) for i in r.get("install", []) if not wheel(i)]',
  'if bad:',
  '    print("sandbox-runner: not installed from a wheel, so nothing is published: " + ", ".join(bad), file=sys.stderr)',
  '    sys.exit(91)',
].join('\n');

/**
 * npm's common options after `npm install`/`npm ci`: the product's config files only, and the
 * registry option.
 */
export function npmConfigOptions(installEnv: Readonly<Record<string, string>>): string[] {
  return [`--userconfig=${NPM_USERCONFIG}`, `--globalconfig=${NPM_GLOBALCONFIG}`, ...installerSourceOptions('npm', installEnv)];
}
