/**
 * The npm side of dependency installs (issue 22): the constant install script, where a run sees
 * the set, and the sentence for a failed install. install.ts runs the script in the install
 * container exactly as for pip (same floor, specs as positional parameters after `--`).
 *
 * Layout: npm installs into a prefix inside the data volume, then the contents of its
 * `node_modules` are moved to the volume's root (renames within one file system), so the volume
 * itself is a `node_modules` folder. A run mounts it read-only at {@link NODE_RUN_MOUNT},
 * `/node_modules`: Node's resolution walks every ancestor folder of the importing file up to the
 * root, for `require` and for ESM `import` alike (ESM ignores `NODE_PATH`), so the set resolves
 * from the snippet (`/sandbox/main.js`) and from a workspace file wherever it is mounted, while a
 * `node_modules` closer to the file still wins. Pure; no I/O.
 */
import { SandboxError } from '../errors';
import { installerEnvAssignments, npmConfigOptions, NPM_GLOBALCONFIG, NPM_USERCONFIG } from './installer';

/** Where a published npm set is mounted read-only in a run: an ancestor of every program file. */
export const NODE_RUN_MOUNT = '/node_modules';

/** The variable whose value names the npm registry (its URL is part of the set's key, cacheKey.ts). */
export const NPM_REGISTRY_VAR = 'npm_config_registry';

/**
 * npm's flags: no lifecycle scripts of any package (`--ignore-scripts`: no `preinstall`,
 * `install`, `postinstall`, no `node-gyp` build), no audit or funding requests, no update check,
 * no progress bar; the cache in the volume (removed before publishing), never the tmpfs HOME.
 */
export const NPM_INSTALL_FLAGS = ['--ignore-scripts', '--no-audit', '--no-fund', '--no-update-notifier', '--no-progress'] as const;

/** The product's script shell for npm (in the set's volume, removed before publishing): any package script npm starts leaves {@link NPM_SCRIPT_RAN} and fails. */
const noScripts = (root: string) => `${root}/.no-scripts`;
/** The mark a package script would leave (see {@link npmInstallArgv}). */
const NPM_SCRIPT_RAN = '.script-ran';

/**
 * The npm install script, constant text: `$1` the size cap in KiB, then the installer's command
 * ({@link npmInstallArgv}: its environment for `env -i`, npm's argv, `--` and the specs), never
 * in this text. `root` is the data volume's mount point (install.ts `INSTALL_MOUNT`).
 * `.complete` is written last.
 */
export function npmInstallScript(root: string): string {
  return script(root, [
    'cap=$1; shift',
    `printf '{"private":true}\\n' > "$p/package.json"`,
  ]);
}

/**
 * The script that installs a workspace's lockfile (lockfile.ts), constant text: `$1` the size cap
 * in KiB, `$2` the package.json text, then the installer's command ({@link npmCiArgv}); the
 * package-lock.json arrives on stdin. `npm ci` installs exactly the lockfile (and fails when
 * package.json and the lockfile disagree).
 */
export function npmCiScript(root: string): string {
  return script(root, [
    'cap=$1',
    `printf '%s' "$2" > "$p/package.json"`,
    'shift 2',
    'cat > "$p/package-lock.json"',
  ]);
}

/**
 * npm's options besides its command: a prefix and a cache in the volume, {@link NPM_INSTALL_FLAGS},
 * the product's script shell (a second line behind `--ignore-scripts`: a script npm would start
 * anyway leaves a mark, and the install is refused, exit 91) and the product's config files and
 * registry (installer.ts `npmConfigOptions`).
 */
function npmOptions(root: string, installEnv: Readonly<Record<string, string>>): string[] {
  return ['--prefix', `${root}/.prefix`, '--cache', `${root}/.npm-cache`, ...NPM_INSTALL_FLAGS, `--script-shell=${noScripts(root)}`, ...npmConfigOptions(installEnv)];
}

/**
 * The installer command of {@link npmInstallScript}: the whole environment (installer.ts
 * `installerEnvAssignments`), `npm install`, its options, `--` and the specs, as argv items.
 */
export function npmInstallArgv(root: string, installEnv: Readonly<Record<string, string>>, specs: readonly string[]): string[] {
  return [...installerEnvAssignments('npm', installEnv), 'npm', 'install', ...npmOptions(root, installEnv), '--', ...specs];
}

/** The installer command of {@link npmCiScript}: as {@link npmInstallArgv}, with `npm ci` and no specs. */
export function npmCiArgv(root: string, installEnv: Readonly<Record<string, string>>): string[] {
  return [...installerEnvAssignments('npm', installEnv), 'npm', 'ci', ...npmOptions(root, installEnv)];
}

/**
 * The shared frame: a prefix and a cache in the volume, the product's empty npm config files and
 * script shell, the installer (`env -i PATH="$PATH" "$@"`: nothing of the container's environment
 * but the image's PATH), the script check, then the packages moved to the volume's root, the size
 * cap, the marker last.
 */
function script(root: string, install: readonly string[]): string {
  return [
    'set -eu',
    `p=${root}/.prefix`,
    `mkdir "$p" ${root}/.npm-cache`,
    ...install,
    `: > ${NPM_USERCONFIG}`,
    `: > ${NPM_GLOBALCONFIG}`,
    `printf '#!/bin/sh\\n: > ${root}/${NPM_SCRIPT_RAN}\\nexit 1\\n' > ${noScripts(root)}`,
    `chmod 755 ${noScripts(root)}`,
    'env -i PATH="$PATH" "$@"',
    `if [ -e ${root}/${NPM_SCRIPT_RAN} ]; then echo "sandbox-runner: npm started a package script, so nothing is published" >&2; exit 91; fi`,
    `rm -rf ${root}/.npm-cache ${noScripts(root)}`,
    // The packages (and .bin, .package-lock.json) become the volume's root; npm names never start with ".".
    `for f in "$p"/node_modules/* "$p"/node_modules/.[!.]*; do if [ -e "$f" ] || [ -L "$f" ]; then mv "$f" ${root}/; fi; done`,
    'rm -rf "$p"',
    `kib=$(du -sk ${root} | cut -f1)`,
    'if [ "$kib" -gt "$cap" ]; then echo "sandbox-runner: the installed set is $kib KiB, more than the cap of $cap KiB" >&2; exit 90; fi',
    `: > ${root}/.complete`,
    // The last line of stdout (nothing runs after it): the size the runner labels the published set with (install.ts).
    'echo "sandbox-runner-set-kib=$kib"',
  ].join('\n');
}

/** What a run mounts for a published npm set (run/request.ts `RunRequest.dependencySet`): the volume read-only at `/node_modules`, no variable. */
export function nodeRunMount(set: { readonly dataVolume: string }): { dataVolume: string; target: string; env: Record<string, string> } {
  return { dataVolume: set.dataVolume, target: NODE_RUN_MOUNT, env: {} };
}

/**
 * One sentence for a failed npm install by its exit code (127: no npm in the image; else npm
 * failed, most often a name or version the registry does not have, or a registry the install
 * network cannot reach). Exit 90 (over the size cap) is install.ts's, common to both managers.
 */
export function npmInstallFailure(where: string, profileName: string, exit: number): SandboxError {
  if (exit === 127) {
    return new SandboxError('start-failed', `The image of profile "${profileName}" has no npm, so the dependencies from ${where} were not installed and nothing was published.`, 'Use an image with node and npm for this profile, or remove its dependencies.');
  }
  return new SandboxError(
    'start-failed',
    `npm could not install the dependencies from ${where} (exit ${exit}; its output is above), so nothing was published: a name or version the registry does not have, or a registry the install network cannot reach, cannot be installed.`,
    'Check the names and versions against the registry (npm_config_registry) and the install network (--install-network), then run again.',
  );
}
