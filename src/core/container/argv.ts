/**
 * The docker CLI argv for one run, built as data (pure: no I/O). Every flag of the isolation
 * floor (SECURITY.md, "The floor") is emitted here and nowhere else; profiles only choose
 * values inside the floor.
 */
import type { EngineKind } from '../engine/engineKind';
import { SandboxError } from '../errors';
import { isAbsoluteHostPath, UNSAFE_HOST_PATH_CHARS } from '../hostPath';
import { COMPILE_LAUNCHER, LAUNCHER, TTY_COMPILE_LAUNCHER, TTY_LAUNCHER } from './launcher';
import { SANDBOX_HOME, SNIPPET_DIR } from '../layout';
import { compileWords, programArgv, snippetPath } from './programArgv';
import { bindMount, maskMount, pinnedMount, volumeMount } from './mountValues';
import { ENV_NAME, UNSAFE_CONTAINER_PATH_CHARS, type Profile } from '../profiles/profileSchema';


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
  /**
   * A mask over part of the workspace mount (workspaceMask.ts, issue 12): `dir` is an empty
   * read-only tmpfs at `target` (`--mount type=tmpfs,dst=…,readonly`; `source` is ignored), `file`
   * a read-only bind of `/dev/null` (`source` is `/dev/null`). Never pinned: nothing of the host is shown.
   */
  readonly mask?: 'dir' | 'file';
  /** A named engine volume (issue 22: an installed dependency set, deps/), `source` is its name. */
  readonly volume?: string;
}

export { MASK_FILE_SOURCE } from './mountValues';

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
  /**
   * Direct fallback only (`buildCreateArgv`): program arguments (programArgs.ts), appended to the
   * command's argv. The launcher paths carry them in the code frame instead (launcher.ts).
   */
  readonly args?: readonly string[];
  /** The profile's mounts after validation. */
  readonly mounts: readonly ResolvedMount[];
  /** Owner labels (see `labels.ts`). */
  readonly labels: Readonly<Record<string, string>>;
  /**
   * Which engine CLI the argv is for (`engineKind.ts`, from the CLI's `--version`); default
   * `docker`. `podman` adds the flags Podman needs to hold the same floor (see {@link podmanFlags}).
   */
  readonly engine?: EngineKind;
  /**
   * Podman only, required there: the seccomp profile file (`--security-opt seccomp=`) that denies
   * namespace creation as Docker's default profile does (podmanSeccomp.ts).
   */
  readonly seccompProfile?: string;
  /**
   * Podman only, required there: the host path of catatonit (`podmanInit.ts`), bind-mounted
   * read-only at {@link PODMAN_INIT} and run as PID 1 with `-g` (see {@link podmanInit}).
   */
  readonly initPath?: string;
  /**
   * The working directory (`--workdir`) when it is not the profile's: a `workspace: "ro"` run's
   * file folder inside the workspace mount (workspaceMount.ts). The profile's workdir keeps its tmpfs.
   */
  readonly workdir?: string;
  /** The in-container path `${file}` stands for when it is not the snippet's (a file run from the workspace mount). */
  readonly programFile?: string;
  /**
   * The install container's network (deps/install.ts; `--install-network`,
   * `sandboxRunner.dependencies.network`): a Docker network name instead of the profile's
   * `network`. Never set for a run container.
   */
  readonly network?: string;
}

const MiB = 1024 * 1024;

/**
 * `--tmpfs` value; `uid`/`gid` make it writable for a non-root user. Podman refuses the `uid=`
 * and `gid=` mount options (`unknown mount option "uid=65534"`); its `U` option chowns the
 * tmpfs to the container's `--user` instead (podman-run(1), `--tmpfs`), the same owner here.
 */
function tmpfs(path: string, sizeMiB: number, opts: { exec: boolean; uid?: string; gid?: string; engine?: EngineKind }): string {
  const parts = [path + ':rw', opts.exec ? 'exec' : 'noexec', 'nosuid', 'nodev', `size=${sizeMiB}m`];
  if (opts.uid !== undefined) {
    if (opts.engine === 'podman') parts.push('U', 'mode=0700');
    else parts.push(`uid=${opts.uid}`, `gid=${opts.gid}`, 'mode=0700');
  }
  return parts.join(',');
}

/**
 * RLIMIT_NPROC for Podman runs (`--ulimit nproc=N:N`). Podman otherwise asks the runtime to
 * raise nproc above the hard limit it runs with (Podman 4.3 lowers its own to 32768, measured in
 * `/proc/<podman pid>/limits`), which needs CAP_SYS_RESOURCE: without it every run fails with
 * "error setting rlimit type 6: operation not permitted". 32768 is at that ceiling and far above
 * any pids limit (at most 4096, profileSchema.ts), so the pids cgroup (`--pids-limit`) stays the process limit, as on Docker
 * (an nproc at `limits.pids` would refuse forks first and count every process of the run's uid on
 * the host, including other runs').
 */
export const PODMAN_NPROC = 32768;

/**
 * The flags Podman needs on top of the docker-compatible argv to hold the same floor
 * (podman-run(1), Podman 4.3; measured on Debian bookworm as root):
 * - `--read-only-tmpfs=false`: with `--read-only` Podman otherwise mounts writable tmpfs on
 *   /run, /tmp and /var/tmp (Docker mounts none);
 * - `--http-proxy=false`: Podman otherwise copies the host's proxy variables in;
 * - `--unsetenv TERM`, `--unsetenv container`: variables Podman adds that Docker does not
 *   (HOSTNAME, PATH from the image and HOME remain, as on Docker);
 * - `--ulimit nproc`: see {@link PODMAN_NPROC};
 * - `--security-opt seccomp=FILE`: Podman's default profile lets anyone create namespaces
 *   (podmanSeccomp.ts); FILE gates them as Docker's default does.
 */
function podmanFlags(seccompProfile: string | undefined): CreateFlag[] {
  if (seccompProfile === undefined) {
    throw new SandboxError(
      'limits-unsupported',
      'The Podman argv was built without its seccomp profile, so a run could create user namespaces; nothing was run.',
      'Report this: the runner must pass the profile from podmanSeccomp.ts.',
    );
  }
  return [
    ['--security-opt', `seccomp=${seccompProfile}`],
    ['--read-only-tmpfs=false'],
    ['--http-proxy=false'],
    ['--unsetenv', 'TERM'],
    ['--unsetenv', 'container'],
    ['--ulimit', `nproc=${PODMAN_NPROC}:${PODMAN_NPROC}`],
  ];
}

/** Where Podman runs get their init process (catatonit), bind-mounted read-only. */
export const PODMAN_INIT = '/run/sandbox-runner-init';

/**
 * The Podman form of a finished docker-style argv: `--init` becomes catatonit bind-mounted
 * read-only at {@link PODMAN_INIT} and made the entrypoint, with `-g` so it forwards a signal to
 * the program's whole process group, as docker-init does with TINI_KILL_PROCESS_GROUP (a
 * terminal's Ctrl-C). Podman's own `--init` runs catatonit without `-g`: a cancel's SIGINT then
 * reaches only `sh`, never the program under it (measured). The original entrypoint (`sh`, or
 * none) becomes catatonit's program: `--entrypoint E -- IMAGE ARGS` → `--entrypoint INIT -- IMAGE
 * -g -- E ARGS`. catatonit, like tini, is PID 1 as the run's user, reaps zombies and exits with
 * the program's status (1 when it cannot exec it).
 * @throws SandboxError `limits-unsupported` without an init path, or for an argv of another shape
 */
function podmanInit(argv: readonly string[], initPath: string | undefined): string[] {
  const at = argv.indexOf('--entrypoint');
  const init = argv.indexOf('--init');
  if (initPath === undefined || at < 0 || init < 0 || argv[at + 2] !== '--') {
    throw new SandboxError(
      'limits-unsupported',
      'The Podman argv was built without its init process (catatonit), so nothing was run.',
      'Install Debian package "catatonit" (Podman\'s init process), then run again.',
    );
  }
  const entrypoint = argv[at + 1]!;
  const out = [...argv.slice(0, at), '--entrypoint', PODMAN_INIT, '--', argv[at + 3]!, '-g', '--'];
  if (entrypoint !== '') out.push(entrypoint);
  out.push(...argv.slice(at + 4));
  out.splice(init, 1, '--mount', bindMount(initPath, PODMAN_INIT, true));
  return out;
}

/**
 * Podman 4.3 cannot pin a mount source: its `--mount type=volume` takes no `volume-driver` or
 * `volume-opt` (`volume-nocopy: invalid mount option`), and a plain bind of the checked path
 * could be swapped for another directory between the check and the mount. So a profile with
 * mounts is refused there rather than run with a weaker mount.
 */
function refusePodmanMounts(spec: ContainerSpec): void {
  if (spec.engine !== 'podman' || spec.mounts.length === 0) return;
  throw podmanMountsRefused(spec.mounts.map((m) => m.target));
}

/**
 * The refusal of {@link refusePodmanMounts} for a profile whose mounts have these `targets`
 * (also raised by mounts.ts `resolveMounts` before it asks the engine anything).
 * @returns SandboxError `invalid-mount`
 */
export function podmanMountsRefused(targets: readonly string[]): SandboxError {
  return new SandboxError(
    'invalid-mount',
    `This profile has mounts (${targets.join(', ')}), and Podman cannot pin a mount's checked source directory the way Docker's local volume driver does, so nothing was run.`,
    'Remove "mounts" from the profile to run it on Podman, or run it with Docker (sandboxRunner.dockerPath).',
  );
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

/**
 * A value may not carry the separators of the docker syntax it lands in (defence in depth).
 * @throws SandboxError `invalid-profile` naming `what` when `ok` is false
 */
export function assertValue(ok: boolean, what: string): void {
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
/**
 * Host paths in the `--mount` CSV: absolute (POSIX, or Windows `C:\…` / `\\server\share\…`,
 * passed to the docker CLI as they are: Docker Desktop translates them), no field separator or
 * quote (hostPath.ts `UNSAFE_HOST_PATH_CHARS`; a drive letter's `:` is no separator there).
 */
const HOST_PATH_OK = (p: string) =>
  (isAbsoluteHostPath(p, 'linux') || isAbsoluteHostPath(p, 'win32')) && !UNSAFE_HOST_PATH_CHARS.test(p);
/** Whole numbers written into `--ulimit NAME=SOFT:HARD`, `--tmpfs size=`, `--memory`, `--pids-limit`. */
const COUNT_OK = (n: number) => Number.isSafeInteger(n) && n > 0;

/** Checks every value of `spec` that lands inside a colon-, comma- or equals-separated docker syntax. */
function assertSpec(spec: ContainerSpec, bind: boolean): void {
  const p = spec.profile;
  assertValue(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(spec.name), 'the container name');
  assertValue(/^\d+:\d+$/.test(p.user), 'the user');
  assertValue(/^[A-Za-z0-9]/.test(p.image), 'the image');
  assertValue(CONTAINER_PATH_OK(p.workdir), `the workdir ${JSON.stringify(p.workdir)}`);
  // Plain argv items (`--workdir DIR`, the program's argument): only NUL and line breaks could break them.
  if (spec.workdir !== undefined) assertValue(spec.workdir.startsWith('/') && !/[\0\n\r]/.test(spec.workdir), `the working directory ${JSON.stringify(spec.workdir)}`);
  if (spec.programFile !== undefined) assertValue(spec.programFile.startsWith('/') && !/[\0\n\r]/.test(spec.programFile), `the file path ${JSON.stringify(spec.programFile)}`);
  assertValue(/^[A-Za-z0-9._+-]+$/.test(spec.snippetFileName), 'the snippet file name');
  if (bind) assertValue(HOST_PATH_OK(spec.snippetHostDir ?? ''), 'the snippet directory');
  if (spec.seccompProfile !== undefined) assertValue(HOST_PATH_OK(spec.seccompProfile), 'the seccomp profile path');
  if (spec.initPath !== undefined) assertValue(HOST_PATH_OK(spec.initPath), 'the init path');
  for (const m of spec.mounts) {
    assertValue(CONTAINER_PATH_OK(m.target) && !(m.mask && m.target.includes('=')), `the mount target ${JSON.stringify(m.target)}`);
    if (m.volume !== undefined) assertValue(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(m.volume), 'the volume name');
    else if (m.mask === undefined) assertValue(HOST_PATH_OK(m.source), `the mount source ${JSON.stringify(m.source)}`);
    if (m.pinned !== undefined) assertValue(/^\/proc\/\d+\/fd\/\d+\/[0-9a-f]{32}$/.test(m.pinned), 'the pinned mount source');
  }
  if (spec.network !== undefined) assertValue(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(spec.network), 'the install network name');
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

/** One flag of a container argv with its value when it takes one: `['--network', 'none']`, `['--read-only']`. */
export type CreateFlag = readonly [flag: string] | readonly [flag: string, value: string];

/**
 * The isolation floor's flags, shared by every argv (all from SECURITY.md, "The floor"): one container per run
 * (`--name`, `--pull never`, `--init`, `--restart no`, `--no-healthcheck`, `--log-driver none`);
 * privileges (`--user`, `--cap-drop ALL`, `--security-opt no-new-privileges`, `--ipc private`,
 * `--cgroupns private`); resources (`--memory` = `--memory-swap`, `--cpus`, `--pids-limit`,
 * `--ulimit nofile/core/fsize`, `--shm-size`); filesystem (`--read-only`, tmpfs for /tmp, HOME and
 * the workdir); network (`--network none` unless the profile opts into `bridge`).
 */
function floorFlags(spec: ContainerSpec): CreateFlag[] {
  const p = spec.profile;
  const engine = spec.engine ?? 'docker';
  const { limits } = p;
  const [uid, gid] = p.user.split(':') as [string, string];
  const memory = `${limits.memoryMiB}m`;
  const fileSizeBytes = limits.fileSizeMiB * MiB;
  const flags: CreateFlag[] = [
    ['--name', spec.name], ['--pull', 'never'], ['--init'], ['--restart', 'no'], ['--no-healthcheck'], ['--log-driver', 'none'],
    ['--user', `${uid}:${gid}`], ['--cap-drop', 'ALL'], ['--security-opt', 'no-new-privileges'], ['--ipc', 'private'], ['--cgroupns', 'private'],
    ['--network', spec.network ?? p.network],
    ['--memory', memory], ['--memory-swap', memory], ['--cpus', String(limits.cpus)], ['--pids-limit', String(limits.pids)],
    ['--ulimit', 'nofile=1024:1024'], ['--ulimit', 'core=0:0'], ['--ulimit', `fsize=${fileSizeBytes}:${fileSizeBytes}`],
    ['--shm-size', `${limits.shmMiB}m`],
    ['--read-only'],
    ...(engine === 'podman' ? podmanFlags(spec.seccompProfile) : []),
    ['--tmpfs', tmpfs('/tmp', limits.tmpfsMiB, { exec: false })],
    ['--tmpfs', tmpfs(SANDBOX_HOME, limits.tmpfsMiB, { exec: false, uid, gid, engine })],
  ];
  if (!spec.mounts.some((m) => m.target === p.workdir)) flags.push(['--tmpfs', tmpfs(p.workdir, limits.tmpfsMiB, { exec: true, uid, gid, engine })]);
  return flags;
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
function contentFlags(spec: ContainerSpec): CreateFlag[] {
  const p = spec.profile;
  const flags: CreateFlag[] = [];
  for (const m of spec.mounts) {
    flags.push(['--mount', m.mask ? maskMount(m) : m.volume !== undefined ? volumeMount(m.volume, m.target, m.readOnly) : m.pinned !== undefined ? pinnedMount(m.pinned, m.target, m.readOnly) : bindMount(m.source, m.target, m.readOnly)]);
  }
  flags.push(['--workdir', spec.workdir ?? p.workdir]);
  const env = floorEnv(p);
  for (const [name, value] of Object.entries(env)) flags.push(['--env', `${name}=${value}`]);
  // Bare names: the docker CLI then adds no proxy value of its own config for them.
  for (const name of DOCKER_CLIENT_PROXY_VARS) if (!Object.hasOwn(env, name)) flags.push(['--env', name]);
  for (const [key, value] of Object.entries(spec.labels)) flags.push(['--label', `${key}=${value}`]);
  if (p.runtime) flags.push(['--runtime', p.runtime]);
  return flags;
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
 *   in (a profile validated by `ProfileSchema` never does: this is a second line of defence);
 *   `invalid-mount` for a profile with mounts on Podman ({@link refusePodmanMounts}). For
 *   `spec.engine` `podman`: the same floor plus {@link podmanFlags}, tmpfs ownership by `U`, and
 *   catatonit instead of `--init` ({@link podmanInit}).
 */
export function buildRunArgv(spec: ContainerSpec): readonly string[] {
  return launcherArgv(spec, ['run', '--interactive', '--sig-proxy=false'], spec.profile.compile ? COMPILE_LAUNCHER : LAUNCHER);
}

/**
 * Builds the arguments after `docker` for the `docker create` of an interactive run with a
 * terminal (issue 11): `create --interactive --tty` with exactly {@link buildRunArgv}'s floor,
 * snippet tmpfs, content flags and entrypoint, and the TTY launcher (launcher.ts `TTY_LAUNCHER`).
 * Created, not run: `docker run -i -t` refuses a stdin that is not a terminal ("the input device
 * is not a TTY"); `docker start --attach --interactive` (ttyStart.ts `buildTtyStartArgv`) takes a pipe.
 * @throws SandboxError as {@link buildRunArgv}
 */
export function buildTtyCreateArgv(spec: ContainerSpec): readonly string[] {
  return launcherArgv(spec, ['create', '--interactive', '--tty'], spec.profile.compile ? TTY_COMPILE_LAUNCHER : TTY_LAUNCHER);
}

/** The launcher paths' argv: `head` (run or create), the floor, the snippet tmpfs, the content flags and `sh -c launcher`. */
function launcherArgv(spec: ContainerSpec, head: readonly string[], launcher: string): readonly string[] {
  assertSpec(spec, false);
  refusePodmanMounts(spec);
  const p = spec.profile;
  const [uid, gid] = p.user.split(':') as [string, string];
  // Exec like the workdir: a snippet with a shebang may be the command itself (`["${file}"]`).
  const snippetTmpfs = tmpfs(SNIPPET_DIR, p.limits.tmpfsMiB, { exec: true, uid, gid, engine: spec.engine });
  return forEngine(spec, [
    ...head,
    ...floorFlags(spec).flat(), '--tmpfs', snippetTmpfs, ...contentFlags(spec).flat(),
    '--entrypoint', 'sh', '--', p.image, '-c', launcher, snippetPath(spec),
    ...compileWords(p, spec.programFile ?? snippetPath(spec)), ...programArgv(p, spec.programFile ?? snippetPath(spec)),
  ]);
}

/**
 * The flags of {@link buildCreateArgv}, each with its value, in argv order: everything between
 * `create` and the `--` before the image (the floor, the snippet directory's read-only bind mount,
 * the content flags and `--entrypoint ''`), before Podman's init substitution ({@link podmanInit}).
 * Loosening.ts compares two profiles by these pairs instead of parsing an argv back.
 * @returns e.g. `[['--name', 'x'], ['--pull', 'never'], ['--init'], …, ['--entrypoint', '']]`
 * @throws SandboxError `invalid-profile` as {@link buildRunArgv}
 */
export function createFlags(spec: ContainerSpec): CreateFlag[] {
  assertSpec(spec, true);
  refusePodmanMounts(spec);
  return [...floorFlags(spec), ['--mount', bindMount(spec.snippetHostDir!, SNIPPET_DIR, true)], ...contentFlags(spec), ['--entrypoint', '']];
}

/**
 * Builds the arguments after `docker` for `docker create` on the direct fallback (images without
 * `sh`, local engine only): the same floor, the snippet directory bind-mounted read-only at
 * {@link SNIPPET_DIR}, and the profile's command, then `spec.args`, as the whole argv (`--entrypoint ''`).
 * The flags are {@link createFlags}'s (also used to compare profiles, loosening.ts).
 * @throws SandboxError `invalid-profile` as {@link buildRunArgv}
 */
export function buildCreateArgv(spec: ContainerSpec): readonly string[] {
  // A compile step needs the launcher (sh): the direct path would run a program never built.
  if (spec.profile.compile) {
    throw new SandboxError('start-failed', `The image "${spec.profile.image}" has no "sh", which a profile with "compile" needs to build the program before it runs, so nothing ran.`, 'Use an image with sh (and the compiler) for this profile.');
  }
  const flags = createFlags(spec);
  const p = spec.profile;
  return forEngine(spec, ['create', ...flags.flat(), '--', p.image, ...programArgv(p, spec.programFile ?? snippetPath(spec)), ...(spec.args ?? [])]);
}

/** A finished argv for the spec's engine: Podman's init process in place of `--init` ({@link podmanInit}). */
function forEngine(spec: ContainerSpec, argv: readonly string[]): readonly string[] {
  return spec.engine === 'podman' ? podmanInit(argv, spec.initPath) : argv;
}

/**
 * Builds the arguments after `docker` for an install container (issue 22, deps/install.ts):
 * `docker run --sig-proxy=false` (no stdin) with the whole floor ({@link floorFlags}: non-root, no
 * capabilities, no-new-privileges, read-only root, tmpfs /tmp and HOME, the profile's limits), the
 * content flags (the set's volume, writable, is its only persistent writable path; the profile's
 * environment plus the registry variables the caller put in it) and `command` as the whole argv
 * (`--entrypoint command[0] -- IMAGE command[1..]`). The network is `spec.network`.
 * `opts.stdin`: `--interactive`, for an installer that reads its input (an npm lockfile) from stdin.
 * @throws SandboxError `invalid-profile` as {@link buildRunArgv}
 */
export function buildInstallArgv(spec: ContainerSpec, command: readonly [string, ...string[]], opts: { readonly stdin?: boolean } = {}): readonly string[] {
  assertSpec(spec, false);
  refusePodmanMounts(spec);
  return forEngine(spec, ['run', '--sig-proxy=false', ...(opts.stdin ? ['--interactive'] : []), ...floorFlags(spec).flat(), ...contentFlags(spec).flat(), '--entrypoint', command[0], '--', spec.profile.image, ...command.slice(1)]);
}
