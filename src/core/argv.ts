/**
 * The docker CLI argv for one run, built as data (pure: no I/O). Every flag of the isolation
 * floor (`../shared/design/isolation.md`) is emitted here and nowhere else; profiles only choose
 * values inside the floor.
 */
import { COLD_LAUNCHER, WARM_LAUNCHER } from './launcher';
import { FILE_PLACEHOLDER, type Profile } from './profile';

/** In-container directory where the snippet file is bind-mounted read-only. */
export const SNIPPET_DIR = '/sandbox';
/** In-container HOME: a tmpfs owned by the run's user; caches go below it. */
export const SANDBOX_HOME = '/home/sandbox';

/** A bind mount whose host path was validated and resolved through symlinks (see `mounts.ts`). */
export interface ResolvedMount {
  /** Absolute, symlink-free host path. */
  readonly source: string;
  /** Absolute container path. */
  readonly target: string;
  readonly readOnly: boolean;
}

/** Everything `docker create` needs for one run. */
export interface ContainerSpec {
  /** Unique container name, e.g. `sandbox-runner-<uuid>`. */
  readonly name: string;
  readonly profile: Profile;
  /**
   * Host directory holding only the snippet file; mounted read-only at {@link SNIPPET_DIR}.
   * Ignored when `delivery` is `stdin`.
   */
  readonly snippetHostDir: string;
  /**
   * How the code reaches the container. `bind` (default): the read-only bind mount above.
   * `stdin` (warm start): the container is created with `--interactive`, {@link SNIPPET_DIR} is an
   * exec tmpfs, and a fixed launcher (`sh -c` WARM_LAUNCHER, see launcher.ts) copies standard
   * input into the snippet file, then execs the profile's command with standard input from /dev/null.
   */
  readonly delivery?: 'bind' | 'stdin';
  /**
   * `bind` delivery only: start the program through the cold launcher (`sh -c` COLD_LAUNCHER, see
   * launcher.ts), which reports on stderr whether the command was found before it execs it.
   * Default true; false runs the command directly (images without `sh`).
   */
  readonly launcher?: boolean;
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

/** The in-container path of the snippet file. */
export function snippetPath(spec: Pick<ContainerSpec, 'snippetFileName'>): string {
  return `${SNIPPET_DIR}/${spec.snippetFileName}`;
}

/** The program argv: the profile's command with {@link FILE_PLACEHOLDER} replaced (no shell involved). */
export function programArgv(profile: Profile, inContainerFile: string): string[] {
  return profile.command.map((arg) => arg.split(FILE_PLACEHOLDER).join(inContainerFile));
}

/**
 * Builds the arguments after `docker` for `docker create`.
 * Flags and their source, all from isolation.md: one container per run (`--name`, `--pull never`,
 * `--init`, `--restart no`, `--no-healthcheck`, `--log-driver none`); privileges (`--user`,
 * `--cap-drop ALL`, `--security-opt no-new-privileges`, `--ipc private`, `--cgroupns private`);
 * resources (`--memory` = `--memory-swap`, `--cpus`, `--pids-limit`, `--ulimit nofile/core/fsize`,
 * `--shm-size`);
 * filesystem (`--read-only`, tmpfs for /tmp, HOME and the workdir, read-only bind of the snippet);
 * network (`--network none` unless the profile opts into `bridge`); environment (only the
 * profile's variables, as `--env NAME=VALUE`, plus HOME, XDG_CACHE_HOME, TMPDIR and
 * TINI_KILL_PROCESS_GROUP for the init process); labels; and the launcher (see launcher.ts).
 * @returns a new argv array; never contains a shell string.
 */
export function buildCreateArgv(spec: ContainerSpec): readonly string[] {
  const p = spec.profile;
  const { limits } = p;
  const [uid, gid] = p.user.split(':') as [string, string];
  const memory = `${limits.memoryMiB}m`;
  const fileSizeBytes = limits.fileSizeMiB * MiB;
  const workdirMounted = spec.mounts.some((m) => m.target === p.workdir);

  const argv: string[] = [
    'create',
    '--name', spec.name,
    '--pull', 'never',
    '--init',
    '--restart', 'no',
    '--no-healthcheck',
    '--log-driver', 'none',
    '--user', `${uid}:${gid}`,
    '--cap-drop', 'ALL',
    '--security-opt', 'no-new-privileges',
    '--ipc', 'private',
    '--cgroupns', 'private',
    '--network', p.network,
    '--memory', memory,
    '--memory-swap', memory,
    '--cpus', String(limits.cpus),
    '--pids-limit', String(limits.pids),
    '--ulimit', 'nofile=1024:1024',
    '--ulimit', 'core=0:0',
    '--ulimit', `fsize=${fileSizeBytes}:${fileSizeBytes}`,
    '--shm-size', `${limits.shmMiB}m`,
    '--read-only',
    '--tmpfs', tmpfs('/tmp', limits.tmpfsMiB, { exec: false }),
    '--tmpfs', tmpfs(SANDBOX_HOME, limits.tmpfsMiB, { exec: false, uid, gid }),
  ];
  if (!workdirMounted) argv.push('--tmpfs', tmpfs(p.workdir, limits.tmpfsMiB, { exec: true, uid, gid }));
  const warm = spec.delivery === 'stdin';
  // Exec like the workdir: a snippet with a shebang may be the command itself (`["${file}"]`).
  if (warm) argv.push('--interactive', '--tmpfs', tmpfs(SNIPPET_DIR, limits.tmpfsMiB, { exec: true, uid, gid }));
  else argv.push('--mount', bindMount(spec.snippetHostDir, SNIPPET_DIR, true));
  for (const m of spec.mounts) argv.push('--mount', bindMount(m.source, m.target, m.readOnly));
  argv.push('--workdir', p.workdir);

  const env: Record<string, string> = {
    HOME: SANDBOX_HOME,
    XDG_CACHE_HOME: `${SANDBOX_HOME}/.cache`,
    TMPDIR: '/tmp',
    ...p.env,
    // docker-init (tini) forwards a signal to the program's whole process group, as a terminal's
    // Ctrl-C does, instead of to its direct child only (`sh -c 'python3 …'` would never see it).
    TINI_KILL_PROCESS_GROUP: '1',
  };
  for (const [name, value] of Object.entries(env)) argv.push('--env', `${name}=${value}`);
  for (const [key, value] of Object.entries(spec.labels)) argv.push('--label', `${key}=${value}`);
  if (p.runtime) argv.push('--runtime', p.runtime);

  const program = programArgv(p, snippetPath(spec));
  if (warm) argv.push('--', p.image, 'sh', '-c', WARM_LAUNCHER, snippetPath(spec), ...program);
  else if (spec.launcher !== false) argv.push('--', p.image, 'sh', '-c', COLD_LAUNCHER, snippetPath(spec), ...program);
  else argv.push('--', p.image, ...program);
  return argv;
}
