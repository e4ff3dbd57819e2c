/**
 * Thin wrapper over the docker CLI, run with execa and argv arrays only (never a shell), plus the
 * mapping of engine failures to typed {@link SandboxError}s with one-sentence fixes.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type Options } from 'execa';
import { SandboxError } from './errors';
import { currentStartTime } from './labels';

/** How to reach the engine. */
export interface DockerOptions {
  /** The docker CLI executable (default `docker` on PATH). A machine-level setting, never a workspace one. */
  readonly dockerPath?: string;
  /**
   * Extra environment for the docker CLI (e.g. `DOCKER_HOST`, `DOCKER_CONTEXT`), merged over this
   * process's environment. It reaches the CLI only, never the container. Machine-level, like `dockerPath`.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Longest a control command may take, ms (default {@link CONTROL_TIMEOUT_MS}). */
  readonly controlTimeoutMs?: number;
}

/** Output of a finished docker CLI call. */
export interface DockerOutput {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Longest a control command (create/inspect/rm/ps) may take before it counts as a hung engine, ms. */
export const CONTROL_TIMEOUT_MS = 60_000;

/** The docker executable for `opts`. */
export function dockerBinary(opts: DockerOptions): string {
  return opts.dockerPath || 'docker';
}

/** The error for a docker binary that could not be spawned. */
export function dockerMissing(opts: DockerOptions, errno: string): SandboxError {
  return new SandboxError(
    'docker-missing',
    `The docker CLI "${dockerBinary(opts)}" could not be started (${errno}).`,
    'Install Docker (docker.io or Docker Desktop) and put "docker" on PATH, or (in VS Code) set sandboxRunner.dockerPath in your user settings.',
  );
}

/** Spawn options shared by every call: no stdin, no shell, an isolated process group. */
export const SPAWN_OPTIONS = {
  stdin: 'ignore',
  reject: false,
  shell: false,
  // Own process group: a terminal's Ctrl-C reaches only the runner, which then removes the container.
  detached: true,
  // Runs that outlive the caller are removed by the orphan sweep; the CLI process itself must die with us.
  cleanup: true,
} as const satisfies Options;

/**
 * {@link SPAWN_OPTIONS} plus the CLI environment of `opts`.
 * @param args the docker arguments, when known: every bare `--env NAME` (no "=") in them is removed
 *   from the CLI's environment, so the CLI copies no value of its own into the container for that
 *   name (it would take `NAME` from its environment otherwise). `buildCreateArgv` passes the Docker
 *   client proxy names that way, which also stops the CLI adding its config's `proxies` for them.
 *   Trade-off: that call does not see the proxy variables itself (a `tcp://` DOCKER_HOST reached
 *   through an HTTP proxy from the environment is then reached directly for `docker create`).
 */
export function spawnOptions(opts: DockerOptions, args: readonly string[] = []) {
  const unset: Record<string, undefined> = {};
  for (let i = 0; i < args.length - 1; i++) {
    if (args[i] === '--') break;
    if ((args[i] === '--env' || args[i] === '-e') && !args[i + 1]!.includes('=')) unset[args[i + 1]!] = undefined;
  }
  const hasUnset = Object.keys(unset).length > 0;
  const cwd = engineWorkDir(startedContainer(args));
  if (!opts.env && !hasUnset) return { ...SPAWN_OPTIONS, cwd };
  // execa merges `env` over process.env; an undefined value removes the variable (Node drops it).
  return { ...SPAWN_OPTIONS, cwd, env: { ...opts.env, ...unset } };
}

let scratchRoot: string | undefined;

/**
 * The working directory every engine CLI call runs in: a private (0700) directory of this
 * process under the OS temp dir, removed when the process exits; for a call that starts a
 * container, that container's own subdirectory. Podman's conmon writes an empty `oom` file into
 * its caller's working directory when the kernel's OOM killer hit the container (and leaves it
 * there: Podman 4.3 then still reports `OOMKilled: false`), so it must never land in the user's
 * folder, and {@link conmonSawOom} reads it as the OOM signal. The docker CLI ignores its cwd.
 * A process killed with SIGKILL leaves its directory: `reapOrphans` removes it once the owner is
 * provably gone (`removeStaleEngineDirs`, reaper.ts).
 * @param container a container name (`[A-Za-z0-9][A-Za-z0-9_.-]*`), or undefined for the root
 * @returns an absolute path that exists when this returns
 */
export function engineWorkDir(container?: string): string {
  if (!scratchRoot || !existsSync(scratchRoot)) {
    // Owner pid and start time in the name: `reapOrphans` removes the folder of a dead owner.
    scratchRoot = mkdtempSync(join(tmpdir(), `sandbox-runner-engine-${process.pid}-${currentStartTime()}-`));
    const root = scratchRoot;
    if (!exitHooked) {
      exitHooked = true;
      process.once('exit', () => rmSync(scratchRoot ?? root, { recursive: true, force: true }));
    }
  }
  if (container === undefined || !CONTAINER_NAME.test(container)) return scratchRoot;
  const dir = join(scratchRoot, container);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
let exitHooked = false;
const CONTAINER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Name of an {@link engineWorkDir} root: owner pid, owner start time (clock ticks), random suffix. */
export const ENGINE_DIR_NAME = /^sandbox-runner-engine-([1-9]\d{0,9})-(\d{1,20}|unknown)-[A-Za-z0-9]{6}$/;

/** The container a `start [--attach] NAME` or `run … --name NAME` argv starts, if any. */
function startedContainer(args: readonly string[]): string | undefined {
  if (args[0] === 'start') return args[args.length - 1];
  if (args[0] === 'run') {
    const i = args.indexOf('--name');
    if (i > 0 && (args.indexOf('--') < 0 || i < args.indexOf('--'))) return args[i + 1];
  }
  return undefined;
}

/**
 * True when Podman's conmon recorded an OOM kill of `container` (its `oom` file in the
 * container's {@link engineWorkDir}). Never true on Docker (nothing writes there).
 */
export function conmonSawOom(container: string): boolean {
  return CONTAINER_NAME.test(container) && !!scratchRoot && existsSync(join(scratchRoot, container, 'oom'));
}

/** Removes a container's {@link engineWorkDir} subdirectory (after the container is gone). */
export function disposeEngineWorkDir(container: string): void {
  if (CONTAINER_NAME.test(container) && scratchRoot) rmSync(join(scratchRoot, container), { recursive: true, force: true });
}

/**
 * Runs one docker CLI command to completion.
 * @param args arguments after `docker`
 * @param timeoutMs longest wait, ms (default `opts.controlTimeoutMs`, else {@link CONTROL_TIMEOUT_MS})
 * @throws SandboxError `docker-missing` when the binary cannot be spawned, `engine-error` on a hung call
 */
export async function docker(opts: DockerOptions, args: readonly string[], timeoutMs = opts.controlTimeoutMs ?? CONTROL_TIMEOUT_MS): Promise<DockerOutput> {
  const r = await execa(dockerBinary(opts), args, { ...spawnOptions(opts, args), timeout: timeoutMs });
  if (r.timedOut) {
    throw new SandboxError(
      'engine-error',
      `"docker ${args[0]}" did not answer within ${Math.round(timeoutMs / 1000)} s.`,
      'Check that the Docker engine is healthy (docker info) and try again.',
    );
  }
  const errno = spawnErrno(r);
  if (errno) throw dockerMissing(opts, errno);
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}

/** The errno of a failed spawn (ENOENT, EACCES), if the process never started. */
export function spawnErrno(r: { failed: boolean; exitCode?: number; code?: string; cause?: unknown }): string | undefined {
  if (!r.failed || r.exitCode !== undefined) return undefined;
  const cause = r.cause as { code?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? cause.code : r.code;
  return code && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/** The last `max` characters of `text`, trimmed, for error details. */
export function tail(text: string, max = 2000): string {
  const t = text.trim();
  return t.length > max ? '…' + t.slice(-max) : t;
}

/**
 * Maps a failed docker CLI call to a typed error (daemon down, permission denied, missing image,
 * or a generic engine error carrying the engine's message).
 * @param what what was attempted, e.g. "create the container"
 * @param image the image involved, for the missing-image message
 */
export function classifyEngineFailure(stderr: string, what: string, image?: string): SandboxError {
  const detail = tail(stderr);
  if (/permission denied.*docker.*sock|permission denied while trying to connect/i.test(stderr)) {
    return new SandboxError(
      'permission-denied',
      'The Docker engine refused this user (permission denied on its socket).',
      'Add your user to the "docker" group and log in again, or use a rootless Docker context.',
      detail,
    );
  }
  if (/cannot connect to the docker daemon|is the docker daemon running|error during connect|connect: no such file|connection refused/i.test(stderr)) {
    return new SandboxError(
      'daemon-unreachable',
      'The Docker engine is not reachable.',
      'Start Docker (for example "sudo systemctl start docker" or Docker Desktop) and try again.',
      detail,
    );
  }
  // Podman: `Error: <image>: image not known`.
  if (image && /no such image|unable to find image|pull access denied|manifest unknown|not found: manifest|image not known/i.test(stderr)) {
    return new SandboxError(
      'image-missing',
      `The image "${image}" is not present locally, and runs never pull implicitly.`,
      `Pull it once with "docker pull ${image}" and run again.`,
      detail,
    );
  }
  if (/unknown or invalid runtime name/i.test(stderr)) {
    return new SandboxError(
      'engine-error',
      'The profile asks for an OCI runtime the Docker engine does not have.',
      'Install and register the runtime with the engine (for gVisor: runsc, see its docs), or remove "runtime" from the profile.',
      detail,
    );
  }
  const firstLine = detail.split('\n').find((l) => l.trim()) ?? 'no error message';
  return new SandboxError(
    'engine-error',
    `Docker could not ${what}: ${firstLine.replace(/^Error response from daemon:\s*/i, '').replace(/([^.!?])$/, '$1.')}`,
    'Check the profile and the engine (docker info), then try again.',
    detail,
  );
}

/**
 * Removes a container and its anonymous volumes (`docker rm -f -v`), which ends every process in it.
 * "No such container" counts as success.
 * @throws SandboxError when the engine cannot remove it
 */
export async function removeContainer(opts: DockerOptions, name: string): Promise<void> {
  const r = await docker(opts, ['rm', '-f', '-v', name]);
  if (r.exitCode === 0 || /no such container/i.test(r.stderr)) return disposeEngineWorkDir(name);
  throw classifyEngineFailure(r.stderr, `remove container ${name}`);
}

/** The parts of `docker inspect`'s `.State` the runner reads. */
export interface ContainerState {
  readonly status: string;
  readonly exitCode: number;
  /** The OOM killer hit a process of the container (`OOMKilled`, or Podman's {@link conmonSawOom}). */
  readonly oomKilled: boolean;
  /** The engine's error for a failed start (e.g. executable not found), or "". */
  readonly error: string;
  /** True when the process was ever started (`StartedAt` is set). */
  readonly started: boolean;
  /** The host pid of the container's init process while it runs (`Pid`), else 0. */
  readonly pid: number;
}

/**
 * Reads a container's state.
 * @throws SandboxError when the container does not exist or the engine fails
 */
export async function inspectState(opts: DockerOptions, name: string): Promise<ContainerState> {
  const r = await docker(opts, ['container', 'inspect', '--format', '{{json .State}}', name]);
  if (r.exitCode !== 0) throw classifyEngineFailure(r.stderr, `inspect container ${name}`);
  const s = JSON.parse(r.stdout) as {
    Status?: string; ExitCode?: number; OOMKilled?: boolean; Error?: string; StartedAt?: string; Pid?: number;
  };
  return {
    status: s.Status ?? 'unknown',
    exitCode: s.ExitCode ?? -1,
    // Podman 4.3 reports false after an OOM kill; its conmon's `oom` file says so instead.
    oomKilled: s.OOMKilled === true || conmonSawOom(name),
    error: s.Error ?? '',
    started: !!s.StartedAt && !s.StartedAt.startsWith('0001-'),
    pid: Number.isInteger(s.Pid) && s.Pid! > 0 ? s.Pid! : 0,
  };
}

/**
 * The host pid of a running container's init process (`.State.Pid`), or 0 when it is not running.
 * @throws SandboxError when the container does not exist or the engine fails
 */
export async function inspectPid(opts: DockerOptions, name: string): Promise<number> {
  const r = await docker(opts, ['container', 'inspect', '--format', '{{.State.Pid}}', name]);
  if (r.exitCode !== 0) throw classifyEngineFailure(r.stderr, `inspect container ${name}`);
  const pid = Number(r.stdout.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : 0;
}

/**
 * Sends a signal to a container's init process (`docker kill --signal`), which docker-init
 * forwards to the program's process group (TINI_KILL_PROCESS_GROUP, see argv.ts).
 * @returns true when the engine delivered it (false: not running, gone, or the engine failed)
 */
export async function signalContainer(opts: DockerOptions, name: string, signal: NodeJS.Signals): Promise<boolean> {
  const r = await docker(opts, ['kill', '--signal', signal, name]).catch(() => undefined);
  return r?.exitCode === 0;
}

/**
 * The VOLUMEs an image declares (they would be writable and outlive the run).
 * @throws SandboxError `image-missing` when the image is not present locally, or an engine error
 */
export async function imageVolumes(opts: DockerOptions, image: string): Promise<string[]> {
  const r = await docker(opts, ['image', 'inspect', '--format', '{{json .Config.Volumes}}', image]);
  if (r.exitCode !== 0) throw classifyEngineFailure(r.stderr, `inspect image ${image}`, image);
  const volumes = JSON.parse(r.stdout || 'null') as Record<string, unknown> | null;
  return volumes ? Object.keys(volumes) : [];
}
