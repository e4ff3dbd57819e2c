/**
 * The docker CLI argv for one run, built as data (pure: no I/O). Every flag of the isolation
 * floor (`../shared/design/isolation.md`) is emitted here and nowhere else; profiles only choose
 * values inside the floor.
 */
import { SandboxError } from './errors';
import { LAUNCHER } from './launcher';
import { ENV_NAME, FILE_PLACEHOLDER, UNSAFE_CONTAINER_PATH_CHARS, type Profile } from './profile';

/** In-container directory of the snippet file: an exec tmpfs the launcher writes it into (a read-only bind of a host directory on the direct fallback). */
export const SNIPPET_DIR = '/sandbox';
/** In-container HOME: a tmpfs owned by the run's user; caches go below it. */
export const SANDBOX_HOME = '/home/sandbox';

/** A bind mount whose host path was validated and resolved through symlinks (see `mounts.ts`). */
export interface ResolvedMount {
  /** Absolute, symlink-free host path that was checked (shown to the user). */
  readonly source: string;
  /** Absolute container path. */
  readonly target: string;
  readonly readOnly: boolean;
  /**
   * `/proc/<pid>/fd/<anchor>/<random hex>`: leads to `/proc/<pid>/fd/<n>`, an open descriptor of
   * this process on the checked directory (the anchor proves the engine sees this process, see
   * mounts.ts). When set
   * (always, from `resolveMounts`), the mount is an anonymous volume of docker's `local` driver
   * with `type=none,o=bind,device=<this>`: dockerd itself bind-mounts the magic link, in the host's
   * mount namespace, so the pinned inode is mounted whatever the path leads to by then. (runc cannot
   * bind-mount a magic link: its mount namespace is a copy, and the kernel refuses a source mount
   * of another namespace with EINVAL.) The volume goes with the container (`docker rm -v`).
   * Unset: a plain `type=bind` of `source` (only for comparing and listing profiles).
   */
  readonly pinned?: string;
}

/** Everything the engine argv (`docker run -i`, or `docker create` on the direct path) needs for one run. */
export interface ContainerSpec {
  /** Unique container name, e.g. `sandbox-runner-<uuid>`. */
  readonly name: string;
  readonly profile: Profile;
  /**
   * Direct fallback only (`buildCreateArgv`, images without `sh`): host directory holding only the
   * snippet file, mounted read-only at {@link SNIPPET_DIR}. Ignored by `buildRunArgv`.
   */
  readonly snippetHostDir?: string;
  /** File name of the snippet inside that directory, e.g. `main.py`. */
  readonly snippetFileName: string;
  /** The profile's mounts after validation. */
  readonly mounts: readonly ResolvedMount[];
  /** Owner labels (see `labels.ts`). */
  readonly labels: Readonly<Record<string, string>>;
}

const MiB = 1024 * 1024;

/** `--tmpfs` value; `uid`/`gid` make it writable for a non-root user. */
function tmpfs(path: string, sizeMiB: number, opts: { exec: boolean; uid?: string; gid?: string }): string {
  const parts = [path + ':rw', opts.exec ? 'exec' : 'noexec', 'nosuid', 'nodev', `size=${sizeMiB}m`];
  if (opts.uid !== undefined) parts.push(`uid=${opts.uid}`, `gid=${opts.gid}`, 'mode=0700');
  return parts.join(',');
}

function bindMount(source: string, target: string, readOnly: boolean): string {
  return `type=bind,src=${source},dst=${target}` + (readOnly ? ',readonly' : '');
}

/**
 * `--mount` value for a pinned directory (see {@link ResolvedMount.pinned}). `volume-nocopy`: the
 * image's files at the target are never copied into the host directory. Read-only comes from the
 * volume's own mount options (`o=bind,ro`, a CSV field quoted because it holds a comma): docker
 * refuses the `readonly` flag on anonymous volumes.
 */
function pinnedMount(pinned: string, target: string, readOnly: boolean): string {
  return [
    'type=volume',
    `dst=${target}`,
    'volume-nocopy',
    'volume-driver=local',
    'volume-opt=type=none',
    `"volume-opt=o=bind${readOnly ? ',ro' : ''}"`,
    `volume-opt=device=${pinned}`,
  ].join(',');
}

/**
 * Variables the docker CLI copies from the `proxies` of the user's client config
 * (`$DOCKER_CONFIG/config.json`) into every container it creates, unless the run's own `--env`
 * options name them (docker/cli `ParseProxyConfig`; 20.10 adds the first eight, 28.x all ten).
 * Each one the profile does not set is passed as a bare `--env NAME`, and `docker.ts` removes
 * bare names from the CLI's own environment, so the container gets none of them.
 */
export const DOCKER_CLIENT_PROXY_VARS = [
  'HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'FTP_PROXY', 'ftp_proxy',
  'NO_PROXY', 'no_proxy', 'ALL_PROXY', 'all_proxy',
] as const;

/** A value may not carry the separators of the docker syntax it lands in (defence in depth). */
function assertValue(ok: boolean, what: string): void {
  if (!ok) {
    throw new SandboxError(
      'invalid-profile',
      `The docker arguments were not built: ${what} contains a character that docker's syntax for it would read as a separator.`,
      'Fix the profile (or, for the snippet directory, the temp directory path) and run again.',
    );
  }
}

/** Container paths: `--tmpfs PATH:OPTS` splits at ":" and ",", `--mount` CSV at "," and quotes. */
const CONTAINER_PATH_OK = (p: string) => p.startsWith('/') && !UNSAFE_CONTAINER_PATH_CHARS.test(p);
/** Host paths in the `--mount` CSV: no field separator or quote. */
const HOST_PATH_OK = (p: string) => p.startsWith('/') && !/[,"\n\r\0]/.test(p);
/** Whole numbers written into `--ulimit NAME=SOFT:HARD`, `--tmpfs size=`, `--memory`, `--pids-limit`. */
const COUNT_OK = (n: number) => Number.isSafeInteger(n) && n > 0;

/** Checks every value of `spec` that lands inside a colon-, comma- or equals-separated docker syntax. */
function assertSpec(spec: ContainerSpec, bind: boolean): void {
  const p = spec.profile;
  assertValue(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(spec.name), 'the container name');
  assertValue(/^\d+:\d+$/.test(p.user), 'the user');
  assertValue(/^[A-Za-z0-9]/.test(p.image), 'the image');
  assertValue(CONTAINER_PATH_OK(p.workdir), `the workdir ${JSON.stringify(p.workdir)}`);
  assertValue(/^[A-Za-z0-9._+-]+$/.test(spec.snippetFileName), 'the snippet file name');
  if (bind) assertValue(HOST_PATH_OK(spec.snippetHostDir ?? ''), 'the snippet directory');
  for (const m of spec.mounts) {
    assertValue(CONTAINER_PATH_OK(m.target), `the mount target ${JSON.stringify(m.target)}`);
    assertValue(HOST_PATH_OK(m.source), `the mount source ${JSON.stringify(m.source)}`);
    if (m.pinned !== undefined) assertValue(/^\/proc\/\d+\/fd\/\d+\/[0-9a-f]{32}$/.test(m.pinned), 'the pinned mount source');
  }
  for (const n of [p.limits.memoryMiB, p.limits.pids, p.limits.fileSizeMiB, p.limits.tmpfsMiB]) assertValue(COUNT_OK(n), 'a limit');
  assertValue(Number.isFinite(p.limits.cpus) && p.limits.cpus > 0, 'the cpus limit');
  for (const [name, value] of Object.entries(p.env)) {
    assertValue(ENV_NAME.test(name) && !value.includes('\0'), `the environment variable ${JSON.stringify(name)}`);
  }
  // `--label KEY=VALUE` splits at the first "="; the engine stores labels as single lines.
  for (const [key, value] of Object.entries(spec.labels)) {
    assertValue(/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(key) && !/[\n\r\0]/.test(value), `the label ${JSON.stringify(key)}`);
  }
}

/** The in-container path of the snippet file. */
export function snippetPath(spec: Pick<ContainerSpec, 'snippetFileName'>): string {
  return `${SNIPPET_DIR}/${spec.snippetFileName}`;
}

/** The program argv: the profile's command with {@link FILE_PLACEHOLDER} replaced (no shell involved). */
export function programArgv(profile: Profile, inContainerFile: string): string[] {
  return profile.command.map((arg) => arg.split(FILE_PLACEHOLDER).join(inContainerFile));
}

/**
 * The isolation floor's flags, shared by every argv (all from isolation.md): one container per run
 * (`--name`, `--pull never`, `--init`, `--restart no`, `--no-healthcheck`, `--log-driver none`);
 * privileges (`--user`, `--cap-drop ALL`, `--security-opt no-new-privileges`, `--ipc private`,
 * `--cgroupns private`); resources (`--memory` = `--memory-swap`, `--cpus`, `--pids-limit`,
 * `--ulimit nofile/core/fsize`, `--shm-size`); filesystem (`--read-only`, tmpfs for /tmp, HOME and
 * the workdir); network (`--network none` unless the profile opts into `bridge`).
 */
function floorFlags(spec: ContainerSpec): string[] {
  const p = spec.profile;
  const { limits } = p;
  const [uid, gid] = p.user.split(':') as [string, string];
  const memory = `${limits.memoryMiB}m`;
  const fileSizeBytes = limits.fileSizeMiB * MiB;
  const argv = [
    '--name', spec.name, '--pull', 'never', '--init', '--restart', 'no', '--no-healthcheck', '--log-driver', 'none',
    '--user', `${uid}:${gid}`, '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--ipc', 'private', '--cgroupns', 'private',
    '--network', p.network,
    '--memory', memory, '--memory-swap', memory, '--cpus', String(limits.cpus), '--pids-limit', String(limits.pids),
    '--ulimit', 'nofile=1024:1024', '--ulimit', 'core=0:0', '--ulimit', `fsize=${fileSizeBytes}:${fileSizeBytes}`,
    '--shm-size', `${limits.shmMiB}m`,
    '--read-only',
    '--tmpfs', tmpfs('/tmp', limits.tmpfsMiB, { exec: false }),
    '--tmpfs', tmpfs(SANDBOX_HOME, limits.tmpfsMiB, { exec: false, uid, gid }),
  ];
  if (!spec.mounts.some((m) => m.target === p.workdir)) argv.push('--tmpfs', tmpfs(p.workdir, limits.tmpfsMiB, { exec: true, uid, gid }));
  return argv;
}

/**
 * The variables the floor sets in every container (before the profile's, which may override the
 * first three; TINI_KILL_PROCESS_GROUP always wins). docker-init (tini) then forwards a signal to
 * the program's whole process group, as a terminal's Ctrl-C does, instead of to its direct child.
 */
export function floorEnv(profile: Profile): Record<string, string> {
  return {
    HOME: SANDBOX_HOME,
    XDG_CACHE_HOME: `${SANDBOX_HOME}/.cache`,
    TMPDIR: '/tmp',
    ...profile.env,
    TINI_KILL_PROCESS_GROUP: '1',
  };
}

/** Mounts, workdir, environment (only the floor's and profile's variables, plus bare proxy names), labels, runtime. */
function contentFlags(spec: ContainerSpec): string[] {
  const p = spec.profile;
  const argv: string[] = [];
  for (const m of spec.mounts) {
    argv.push('--mount', m.pinned !== undefined ? pinnedMount(m.pinned, m.target, m.readOnly) : bindMount(m.source, m.target, m.readOnly));
  }
  argv.push('--workdir', p.workdir);
  const env = floorEnv(p);
  for (const [name, value] of Object.entries(env)) argv.push('--env', `${name}=${value}`);
  // Bare names: the docker CLI then adds no proxy value of its own config for them.
  for (const name of DOCKER_CLIENT_PROXY_VARS) if (!Object.hasOwn(env, name)) argv.push('--env', name);
  for (const [key, value] of Object.entries(spec.labels)) argv.push('--label', `${key}=${value}`);
  if (p.runtime) argv.push('--runtime', p.runtime);
  return argv;
}

/**
 * Builds the arguments after `docker` for the one engine call of a run: `docker run --interactive`
 * (no `--rm`, no detach: the runner removes the container itself, see removals.ts) with the whole
 * isolation floor ({@link floorFlags}), {@link SNIPPET_DIR} as an exec tmpfs owned by the run's
 * user, and the constant launcher (`--entrypoint sh -c LAUNCHER`, launcher.ts), which receives the
 * code over stdin. `--sig-proxy=false`: a signal to the CLI process is never forwarded (the runner
 * signals the container itself, stop.ts). The image's ENTRYPOINT never runs: it would start before
 * the launcher (and could write before its markers).
 * @returns a new argv array; never contains a shell string.
 * @throws SandboxError `invalid-profile` when a value would break out of the docker syntax it lands
 *   in (a profile validated by `ProfileSchema` never does: this is a second line of defence)
 */
export function buildRunArgv(spec: ContainerSpec): readonly string[] {
  assertSpec(spec, false);
  const p = spec.profile;
  const [uid, gid] = p.user.split(':') as [string, string];
  // Exec like the workdir: a snippet with a shebang may be the command itself (`["${file}"]`).
  const snippetTmpfs = tmpfs(SNIPPET_DIR, p.limits.tmpfsMiB, { exec: true, uid, gid });
  return [
    'run', '--interactive', '--sig-proxy=false',
    ...floorFlags(spec), '--tmpfs', snippetTmpfs, ...contentFlags(spec),
    '--entrypoint', 'sh', '--', p.image, '-c', LAUNCHER, snippetPath(spec), ...programArgv(p, snippetPath(spec)),
  ];
}

/**
 * Builds the arguments after `docker` for `docker create` on the direct fallback (images without
 * `sh`, local engine only): the same floor, the snippet directory bind-mounted read-only at
 * {@link SNIPPET_DIR}, and the profile's command as the whole argv (`--entrypoint ''`).
 * Also used to compare profiles' flags (loosening.ts).
 * @throws SandboxError `invalid-profile` as {@link buildRunArgv}
 */
export function buildCreateArgv(spec: ContainerSpec): readonly string[] {
  assertSpec(spec, true);
  const p = spec.profile;
  return [
    'create', ...floorFlags(spec), '--mount', bindMount(spec.snippetHostDir!, SNIPPET_DIR, true), ...contentFlags(spec),
    '--entrypoint', '', '--', p.image, ...programArgv(p, snippetPath(spec)),
  ];
}
