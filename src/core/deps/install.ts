/**
 * Installing a dependency set (issue 22) in a container of its own, never the run's:
 * - same image and floor as the run (container/argv.ts `buildInstallArgv`: non-root, no
 *   capabilities, no-new-privileges, read-only root, tmpfs /tmp and HOME, the profile's limits);
 *   its only writable persistent path is the set's data volume, its network the install network;
 * - the installer's environment and configuration are the product's and the caller's registry
 *   settings only (installer.ts, issue 34): never the profile's `env` (a workspace can change it),
 *   the image's `ENV` or a file of the workspace. The container gets only the floor's variables;
 *   the installer runs under `env -i` with installer.ts `installerEnvAssignments`, pip isolated
 *   (`python3 -I`, `--isolated`, `PIP_CONFIG_FILE=/dev/null`), npm with the product's empty
 *   config files; the index, trusted hosts and registry are options;
 * - `pip install --only-binary=:all:` (no sdist is built, so no package code runs), checked on
 *   pip's `--report` before publishing (installer.ts `PIP_WHEELS_ONLY_CHECK`), or
 *   `npm install --ignore-scripts` (npm.ts: no lifecycle script runs; a script npm started anyway
 *   would run the product's script shell, which marks it, and the set is refused), specs as argv
 *   items after `--`, passed to a constant `sh -c` script as its positional parameters (never
 *   inside the script text);
 * - published only when finished: the container writes `.complete` last, and after it exited 0
 *   the runner creates the set's name volume (cacheKey.ts `dependencyVolumeName`), labelled with
 *   the data volume it points to. A data volume nobody published is never mounted and is removed.
 * Two requests for the same missing set in one process share one install; across processes each
 * installs into its own data volume and the first to publish wins (the others remove theirs).
 */
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import { docker } from '../engine/cli';
import type { DockerOptions } from '../engine/contracts';
import { removeContainer } from '../engine/containerOps';
import { engineKind } from '../engine/engineKind';
import { spawnOptions } from '../engine/spawnEnv';
import { SandboxError } from '../errors';
import { newContainerName } from '../layout';
import { buildInstallArgv } from '../container/argv';
import { TerminalTextFilter } from '../output/terminalText';
import { DEPS_DATA_LABEL, DEPS_KEY_LABEL, DEPS_KIB_LABEL, LABELS, ownerLabels, PRODUCT_LABEL } from '../ownership/labels';
import { dependencyListProblem, normaliseSpecs, type DependencyManager } from '../profiles/dependencySpecs';
import type { Profile } from '../profiles/profileSchema';
import { dependencySetKey, dependencyVolumeName } from './cacheKey';
import { installerEnvAssignments, installerIdentity, PIP_REPORT, PIP_WHEELS_ONLY_CHECK, pipInstallerArgv } from './installer';
import { npmCiArgv, npmCiScript, npmInstallArgv, npmInstallFailure, npmInstallScript } from './npm';

// The volume labels live with the other labels (the orphan sweep reads them without this module).
export { DEPS_DATA_LABEL, DEPS_KEY_LABEL, DEPS_KIB_LABEL };
/** Label on a published name volume: the image's Python version (`3.11.2`), for `requires-python` (deps/declared.ts). */
export const DEPS_PYTHON_LABEL = `${PRODUCT_LABEL}.deps-python`;
/** Where the data volume is mounted in the install container (an image's 1777 `/var/tmp`, see {@link installSet}). */
export const INSTALL_MOUNT = '/var/tmp';
/** Where a set is mounted read-only in a run; Python's path entry is `${RUN_MOUNT}/set`. */
export const RUN_MOUNT = '/opt/sandbox-deps';

/** What a run mounts for a published `pip` set (run/request.ts `RunRequest.dependencySet`): the volume read-only, its `set` on `PYTHONPATH`. */
export function pythonRunMount(set: InstalledSet): { dataVolume: string; target: string; env: Record<string, string> } {
  return { dataVolume: set.dataVolume, target: RUN_MOUNT, env: { PYTHONPATH: `${RUN_MOUNT}/set` } };
}

/** What to install and how. */
export interface InstallRequest {
  readonly docker: DockerOptions;
  /** The run's profile (image, user, limits; never its `env`, which the installer does not see). */
  readonly profile: Profile;
  readonly profileName: string;
  readonly manager: DependencyManager;
  readonly specs: readonly string[];
  /**
   * npm only: install this workspace lockfile (lockfile.ts `readNpmLockfile`, already checked)
   * with `npm ci` instead of `specs`, which is then `[lockfile.keySpec]` (the set's key).
   */
  readonly lockfile?: { readonly packageJson: Buffer; readonly lockfile: Buffer };
  /** Where the specs come from, for messages (e.g. `the script's "# /// script" block`). */
  readonly where: string;
  /** The install network (a Docker network name; default `bridge`). */
  readonly network: string;
  /**
   * The caller's registry variables (declared.ts `installEnvironment`: `PIP_INDEX_URL`,
   * `PIP_EXTRA_INDEX_URL`, `PIP_TRUSTED_HOST`, `npm_config_registry`, proxies), from the user's own
   * environment and machine-level settings: the only configuration the installer gets (as options,
   * proxies as variables; installer.ts). All of it is part of the set's key.
   */
  readonly registryEnv?: Readonly<Record<string, string>>;
  /** Longest an install may take, ms. */
  readonly timeoutMs: number;
  /** Largest installed set, MiB. */
  readonly maxSetMiB: number;
  readonly signal?: AbortSignal;
  /** The installer's output, filtered like terminal text (bounded by the profile's `outputBytes`). */
  readonly onOutput?: (text: string) => void;
}

/** A published set. */
export interface InstalledSet {
  readonly key: string;
  /** The data volume to mount read-only at {@link RUN_MOUNT}. */
  readonly dataVolume: string;
  /** True when this call installed it (false: it was cached). */
  readonly installed: boolean;
  /** The image's Python version the install saw (`3.11.2`); undefined when unknown (a set published before it was recorded). */
  readonly pythonVersion?: string;
}

const inFlight = new Map<string, Promise<InstalledSet>>();

/**
 * The published set for `req`, installing it first when it is missing.
 * @throws SandboxError `invalid-profile` for a refused spec (before any engine call), or on Podman
 *   (before any container or volume: {@link podmanRefused});
 *   `image-missing`; `start-failed` when the install fails, times out, is cancelled or is over the
 *   size cap (the install container and its data volume are removed, nothing is published)
 */
export async function ensureDependencySet(req: InstallRequest): Promise<InstalledSet> {
  const problem = req.lockfile && req.manager === 'npm' ? undefined : dependencyListProblem(req.specs, req.manager, req.where);
  if (problem) throw new SandboxError('invalid-profile', problem, 'Change the dependency list, then run again.');
  if ((await engineKind(req.docker)) === 'podman') throw podmanRefused();
  const installEnv = req.registryEnv ?? {};
  // Keyed before the first await (the image ID is not known yet): the engine, the image as named
  // and what the set key hashes besides the ID, so concurrent requests for one set share one install.
  const pending = JSON.stringify([req.docker, req.profile.image, req.manager, normaliseSpecs(req.specs, req.manager), installerIdentity(req.manager, installEnv)]);
  const running = inFlight.get(pending);
  if (running) return { ...(await running), installed: false };
  const p = (async () => {
    const imageId = await imageIdOf(req.docker, req.profile.image);
    const key = dependencySetKey({ imageId, manager: req.manager, specs: req.specs, installEnv });
    return (await publishedSet(req.docker, key)) ?? installSet(req, key);
  })();
  inFlight.set(pending, p);
  try {
    return await p;
  } finally {
    inFlight.delete(pending);
  }
}

async function imageIdOf(opts: DockerOptions, image: string): Promise<string> {
  const r = await docker(opts, ['image', 'inspect', '--format', '{{.Id}}', '--', image]);
  if (r.exitCode !== 0) throw new SandboxError('image-missing', `The image "${image}" is not present, so its dependencies were not installed.`, 'Build or pull the image, then run again.');
  return r.stdout.trim();
}

/** The data volume of the published set `key`, when its name volume and data volume both exist. */
export async function publishedSet(opts: DockerOptions, key: string): Promise<InstalledSet | undefined> {
  const r = await docker(opts, ['volume', 'inspect', '--format', '{{json .Labels}}', dependencyVolumeName(key)]);
  if (r.exitCode !== 0) return undefined;
  const labels = JSON.parse(r.stdout.trim() || 'null') as Record<string, string> | null;
  const data = labels?.[DEPS_DATA_LABEL];
  if (labels?.[DEPS_KEY_LABEL] !== key || !data || !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(data)) return undefined;
  const d = await docker(opts, ['volume', 'inspect', '--format', '{{json .Labels}}', data]);
  if (d.exitCode !== 0) return undefined;
  const python = labels[DEPS_PYTHON_LABEL];
  return { key, dataVolume: data, installed: false, ...(python && /^\d+(?:\.\d+)+$/.test(python) ? { pythonVersion: python } : {}) };
}

/**
 * The install script, constant text: `$1` the size cap in KiB, then the installer's command
 * (installer.ts: its environment as `NAME=VALUE` items for `env -i`, pip's argv, `--` and the
 * specs), never in this text. `env -i PATH="$PATH"`: nothing of the container's environment (the
 * image's `ENV` included) reaches pip but the image's PATH. The data volume is
 * mounted at {@link INSTALL_MOUNT}: an empty volume takes the mode of the image's directory there
 * (Debian's `/var/tmp`, 1777), so the non-root user can write it without a root step.
 */
const INSTALL_SCRIPT = [
  'set -eu',
  'cap=$1; shift',
  'env -i PATH="$PATH" "$@"',
  // Wheels only, checked on what pip did (its report), not trusted from its flags: exit 91.
  `env -i PATH="$PATH" python3 -I -c '${PIP_WHEELS_ONLY_CHECK}' ${PIP_REPORT}`,
  `kib=$(du -sk ${INSTALL_MOUNT}/set | cut -f1)`,
  'if [ "$kib" -gt "$cap" ]; then echo "sandbox-runner: the installed set is $kib KiB, more than the cap of $cap KiB" >&2; exit 90; fi',
  `: > ${INSTALL_MOUNT}/.complete`,
  // The last line of stdout (nothing runs after it): the size the runner labels the published set with.
  'echo "sandbox-runner-python=$(env -i PATH="$PATH" python3 -I -c \'import platform; print(platform.python_version())\')"',
  'echo "sandbox-runner-set-kib=$kib"',
].join('\n');

async function installSet(req: InstallRequest, key: string): Promise<InstalledSet> {
  const { runId, name } = newContainerName();
  const labels = ownerLabels(runId, req.profileName);
  const dataVolume = `${dependencyVolumeName(key)}-${randomBytes(4).toString('hex')}`;
  const labelArgs = Object.entries({ ...labels, [DEPS_KEY_LABEL]: key }).flatMap(([k, v]) => ['--label', `${k}=${v}`]);
  const created = await docker(req.docker, ['volume', 'create', ...labelArgs, dataVolume]);
  if (created.exitCode !== 0) throw new SandboxError('engine-error', `The engine did not create the dependency volume: ${created.stderr.trim().slice(0, 300)}`, 'Check the engine (docker info), then run again.');
  // The container's environment is the floor's only: never the profile's (installer.ts).
  const profile = { ...req.profile, env: {} };
  const installEnv = req.registryEnv ?? {};
  const cap = String(req.maxSetMiB * 1024);
  const lock = req.manager === 'npm' ? req.lockfile : undefined;
  const argv = buildInstallArgv(
    { name, profile, snippetFileName: 'main', mounts: [{ source: dataVolume, volume: dataVolume, target: INSTALL_MOUNT, readOnly: false }], labels, network: req.network },
    lock
      ? ['sh', '-c', npmCiScript(INSTALL_MOUNT), 'sh', cap, lock.packageJson.toString('utf8'), ...npmCiArgv(INSTALL_MOUNT, installEnv)]
      : req.manager === 'npm'
        ? ['sh', '-c', npmInstallScript(INSTALL_MOUNT), 'sh', cap, ...npmInstallArgv(INSTALL_MOUNT, installEnv, req.specs)]
        : ['sh', '-c', INSTALL_SCRIPT, 'sh', cap, ...installerEnvAssignments('pip', installEnv), ...pipInstallerArgv(`${INSTALL_MOUNT}/set`, installEnv), ...req.specs],
    { stdin: lock !== undefined },
  );
  let ok = false;
  let kib = 0;
  let python = '';
  try {
    const { exit, stdoutTail } = await runInstaller(req, name, argv, lock?.lockfile);
    if (exit !== 0) throw installFailure(req, exit);
    kib = Number(/sandbox-runner-set-kib=(\d{1,12})\n?$/.exec(stdoutTail)?.[1] ?? 0);
    python = /sandbox-runner-python=(\d{1,4}(?:\.\d{1,4}){1,3})\nsandbox-runner-set-kib=\d{1,12}\n?$/.exec(stdoutTail)?.[1] ?? '';
    ok = true;
  } finally {
    await removeContainer(req.docker, name).catch(() => undefined);
    if (!ok) await docker(req.docker, ['volume', 'rm', '-f', dataVolume]).catch(() => undefined);
  }
  // Publish: the name volume, created last. If another process published first, use its set.
  const pub = dependencyVolumeName(key);
  await docker(req.docker, ['volume', 'create', '--label', `${LABELS.product}=1`, '--label', `${DEPS_KEY_LABEL}=${key}`, '--label', `${DEPS_DATA_LABEL}=${dataVolume}`, '--label', `${DEPS_KIB_LABEL}=${kib}`, '--label', `${DEPS_PYTHON_LABEL}=${python}`, pub]);
  const winner = await publishedSet(req.docker, key);
  if (!winner) throw new SandboxError('engine-error', 'The installed dependency set could not be published.', 'Run again; if it persists, run sandbox-run --prune-deps.');
  if (winner.dataVolume !== dataVolume) await docker(req.docker, ['volume', 'rm', '-f', dataVolume]).catch(() => undefined);
  return { ...winner, installed: winner.dataVolume === dataVolume };
}

/** Runs the install container (`input` on its stdin, else none); its output goes to `onOutput`, filtered and bounded. @returns its exit code and the last 256 bytes of its stdout */
async function runInstaller(req: InstallRequest, name: string, argv: readonly string[], input?: Buffer): Promise<{ exit: number; stdoutTail: string }> {
  const { signal } = req;
  if (signal?.aborted) throw cancelled();
  const child = execa(req.docker.dockerPath || 'docker', argv, { ...spawnOptions(req.docker, argv), ...(input ? { input, stdin: 'pipe' as const } : { stdin: 'ignore' as const }), buffer: false, reject: false });
  let left = req.profile.limits.outputBytes;
  const filters = [new TerminalTextFilter(), new TerminalTextFilter()];
  let tail = Buffer.alloc(0);
  child.stdout?.on('data', (chunk: Buffer) => (tail = Buffer.concat([tail, chunk]).subarray(-256)));
  [child.stdout, child.stderr].forEach((stream, i) =>
    stream?.on('data', (chunk: Buffer) => {
      if (left <= 0) return;
      const part = chunk.subarray(0, left);
      left -= part.length;
      req.onOutput?.(filters[i]!.push(part.toString('utf8')));
    }),
  );
  let why: 'timeout' | 'cancel' | undefined;
  const stop = (w: 'timeout' | 'cancel') => {
    why ??= w;
    void removeContainer(req.docker, name).catch(() => undefined);
  };
  const timer = setTimeout(() => stop('timeout'), req.timeoutMs);
  const onAbort = () => stop('cancel');
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const r = await child;
    if (why === 'cancel') throw cancelled();
    if (why === 'timeout') {
      throw new SandboxError('start-failed', `Installing ${req.specs.length} dependencies took longer than ${Math.round(req.timeoutMs / 1000)} s, so the install was stopped and nothing was published.`, 'Raise sandboxRunner.dependencies.installTimeoutSeconds (CLI --install-timeout), or install fewer packages.');
    }
    return { exit: r.exitCode ?? -1, stdoutTail: tail.toString('latin1') };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The refusal on Podman: a set is an engine volume mounted into the run, and runs on Podman take no
 * mounts (container/argv.ts `refusePodmanMounts`); measured and refused rather than half supported.
 */
function podmanRefused(): SandboxError {
  return new SandboxError('invalid-profile', 'This run declares dependencies, and this runner does not install them on Podman yet (an installed set is a volume mounted into the run, and runs on Podman take no mounts), so nothing ran.', 'Run it with Docker (sandboxRunner.dockerPath, CLI --docker-path), or use an image that already has the packages.');
}

function cancelled(): SandboxError {
  return new SandboxError('start-failed', 'The dependency install was cancelled; nothing was published.', 'Run again to install them.');
}

/** One sentence for a failed install by its exit code (90: over the size cap; 91: a source build or a package script seen; npm: npm.ts `npmInstallFailure`; pip 1: no wheel; else pip failed). */
function installFailure(req: InstallRequest, exit: number): SandboxError {
  if (exit === 90) {
    return new SandboxError('start-failed', `The dependencies from ${req.where} are larger than ${req.maxSetMiB} MiB installed, so nothing was published.`, 'Raise sandboxRunner.dependencies.maxSetMiB, or install fewer packages.');
  }
  if (exit === 91) {
    const what = req.manager === 'npm' ? 'npm started a package script' : 'pip installed a package that was not a wheel';
    return new SandboxError('start-failed', `Installing the dependencies from ${req.where}, ${what} although the install forbids it (its output is above), so nothing was published.`, `Check the image of profile "${req.profileName}" (its pip or npm configuration), then run again.`);
  }
  if (req.manager === 'npm') return npmInstallFailure(req.where, req.profileName, exit);
  if (exit !== 1) {
    return new SandboxError('start-failed', `pip failed while installing the dependencies from ${req.where} (exit ${exit}; its output is above), so nothing was published.`, `Check that the image of profile "${req.profileName}" has a working pip and a writable /var/tmp, then run again.`);
  }
  return new SandboxError(
    'start-failed',
    `pip could not install the dependencies from ${req.where} (exit ${exit}; its output is above): a package that is not on the index, or that has no wheel for this image's platform, cannot be installed, because only wheels are installed (building a source distribution runs the package's code).`,
    'Check the names and versions against the index, pick versions that publish wheels, or build an image with the package.',
  );
}
