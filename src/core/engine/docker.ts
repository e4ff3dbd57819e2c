/**
 * Thin wrapper over the docker CLI, run with execa and argv arrays only (never a shell), plus the
 * mapping of engine failures to typed {@link SandboxError}s with one-sentence fixes.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type Options } from 'execa';
import { describeEndpoint, resolveEndpoint, type Endpoint } from './endpoint';
import { apiErrorMessage, EngineApiUnavailable, engineClient, type ApiResponse, type EngineApiClient } from './engineApi';
import { commandFor, engineTarget, engineText, targetText } from './engineTarget';
import { engineProduct, installDockerFix, startEngineFix, type EngineNames } from './engineHints';
import { SandboxError } from '../errors';
import { cliKind } from './engineKind';
import { settingId } from '../layout';
import { currentStartTime } from './procLiveness';

/** How to reach the engine. */
export interface DockerOptions {
  /** The docker CLI executable (default `docker` on PATH). A machine-level setting, never a workspace one. */
  readonly dockerPath?: string;
  /**
   * Extra environment for the docker CLI (e.g. `DOCKER_HOST`, `DOCKER_CONTEXT`), merged over this
   * process's environment. It reaches the CLI only, never the container. Machine-level, like `dockerPath`.
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The docker context to use (setting `sandboxRunner.dockerContext`, CLI `--context`). It reaches
   * the CLI as `DOCKER_CONTEXT` and wins over an inherited `DOCKER_HOST` (see endpoint.ts).
   * Machine-level, like `dockerPath`.
   */
  readonly context?: string;
  /**
   * The engine address, e.g. `ssh://me@build-host` or `unix:///run/user/1000/docker.sock` (setting
   * `sandboxRunner.dockerHost`). It reaches the CLI as `DOCKER_HOST` and wins over `context`.
   * Machine-level, like `dockerPath`.
   */
  readonly host?: string;
  /** Longest a control command may take, ms (default {@link CONTROL_TIMEOUT_MS}). */
  readonly controlTimeoutMs?: number;
  /**
   * How control calls (inspect, kill, remove, version) reach the engine: `auto` (default) uses
   * the Engine API when the CLI is Docker's and the endpoint resolves (a `unix://` socket directly,
   * anything else through `docker system dial-stdio`), else the CLI; `cli` always uses the CLI;
   * `dial-stdio` forces the dial-stdio transport even for a socket (tests, measurements).
   */
  readonly controlTransport?: 'auto' | 'cli' | 'dial-stdio';
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

/**
 * The error for a docker binary that could not be spawned; the fix names the platform's install
 * (engineHints.ts `installDockerFix`). On Windows the default `docker` is found as `docker.exe`
 * on PATH (libuv's spawn tries `.com` and `.exe`; no shell, so a `docker.cmd` shim is not found).
 * @param platform FOR TESTS: the client OS (default `process.platform`)
 */
export function dockerMissing(opts: DockerOptions, errno: string, platform: NodeJS.Platform = process.platform): SandboxError {
  return new SandboxError(
    'docker-missing',
    `The docker CLI "${dockerBinary(opts)}" could not be started (${errno}).`,
    installDockerFix(platform),
  );
}

/**
 * The names that tell which engine product `opts` reach (engineHints.ts `engineProduct`): the
 * chosen context (not the built-in "default") and the host it resolves to; `explicit` when
 * anything but the default chose it.
 */
export function engineNames(opts: DockerOptions): EngineNames {
  const target = engineTarget(opts);
  const endpoint = resolveEndpoint(opts);
  const named = target.kind === 'context' && target.name !== 'default' && target.name !== 'configured' ? target.name : undefined;
  return { context: endpoint?.context ?? named, host: endpoint?.host ?? (target.kind === 'host' ? target.name : undefined), explicit: (target.explicit && named !== undefined) || target.kind === 'host' };
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
  const engine = engineEnv(opts);
  const cwd = engineWorkDir(startedContainer(args));
  if (!opts.env && !engine && Object.keys(unset).length === 0) return { ...SPAWN_OPTIONS, cwd };
  // execa merges `env` over process.env; an undefined value removes the variable (Node drops it).
  return { ...SPAWN_OPTIONS, cwd, env: { ...opts.env, ...engine, ...unset } };
}

/**
 * The CLI environment entries for `opts.host` / `opts.context`: `DOCKER_HOST` (and no
 * `DOCKER_CONTEXT`) for a host, else `DOCKER_CONTEXT` (and no inherited `DOCKER_HOST`, which the
 * CLI would prefer) for a context; undefined when neither is set. See endpoint.ts for the order.
 */
export function engineEnv(opts: DockerOptions): Record<string, string | undefined> | undefined {
  if (opts.host) return { DOCKER_HOST: opts.host, DOCKER_CONTEXT: undefined };
  if (opts.context) return { DOCKER_CONTEXT: opts.context, DOCKER_HOST: undefined };
  return undefined;
}

/** The full environment of a docker CLI process for `opts` (this process's, plus `opts.env` and {@link engineEnv}). */
export function cliEnvironment(opts: DockerOptions): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env, ...opts.env, ...engineEnv(opts) };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/**
 * The process's engine work root, kept on `globalThis` so every bundled copy of this module (the
 * extension's bundles, each test file's) uses the same one: a container started by one copy (a
 * warm pool) is diagnosed by another (its conmon `oom` file must be found).
 */
const SCRATCH = Symbol.for('sandbox-runner.engineWorkRoot');
const scratchState = ((globalThis as { [SCRATCH]?: { root?: string; exitHooked?: boolean } })[SCRATCH] ??= {});

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
  let scratchRoot = scratchState.root;
  if (!scratchRoot || !existsSync(scratchRoot)) {
    // Owner pid and start time in the name: `reapOrphans` removes the folder of a dead owner.
    scratchRoot = scratchState.root = mkdtempSync(join(tmpdir(), `sandbox-runner-engine-${process.pid}-${currentStartTime()}-`));
    const root = scratchRoot;
    if (!scratchState.exitHooked) {
      scratchState.exitHooked = true;
      process.once('exit', () => rmSync(scratchState.root ?? root, { recursive: true, force: true }));
    }
  }
  if (container === undefined || !CONTAINER_NAME.test(container)) return scratchRoot;
  const dir = join(scratchRoot, container);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
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
  const root = scratchState.root;
  return CONTAINER_NAME.test(container) && !!root && existsSync(join(root, container, 'oom'));
}

/** Removes a container's {@link engineWorkDir} subdirectory (after the container is gone). */
export function disposeEngineWorkDir(container: string): void {
  const root = scratchState.root;
  if (CONTAINER_NAME.test(container) && root) rmSync(join(root, container), { recursive: true, force: true });
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

/** The fix for an engine that refused this user, by client OS. */
const PERMISSION_FIX: Readonly<Record<'linux' | 'darwin' | 'win32', string>> = {
  linux: 'Add your user to the "docker" group and log in again, or use a rootless Docker context.',
  darwin: 'Check that the engine\'s socket belongs to you (Docker Desktop, Colima and Rancher Desktop create it in your home directory), or choose your own engine\'s context.',
  win32: 'Add your user to the "docker-users" group (Docker Desktop creates it) and sign out and in again, then try again.',
};

/**
 * The `daemon-unreachable` error for the engine of `opts`: named when something chose it, with
 * the platform's way to start it (engineHints.ts) or, for an engine no product name fits, its
 * `docker info` command.
 */
function engineUnreachable(opts: DockerOptions, platform: NodeJS.Platform, detail: string): SandboxError {
  const target = engineTarget(opts);
  const start = startEngineFix(engineProduct(engineNames(opts), platform), platform);
  const check = `"${commandFor(opts, ['info'])}"`;
  if (!target.explicit) {
    return new SandboxError('daemon-unreachable', 'The Docker engine is not reachable.', start ?? `Start the Docker engine and try again (${check}).`, detail);
  }
  return new SandboxError(
    'daemon-unreachable',
    `The Docker engine of ${targetText(target)} is not reachable.`,
    start ? `${start.replace(/, then try again\.$/, '')} (${check} tells when it answers), then try again.` : `Check that this engine is running and reachable (${check}), or choose another one, then try again.`,
    detail,
  );
}

/**
 * Maps a failed docker CLI call to a typed error (daemon down, permission denied, missing image,
 * or a generic engine error carrying the engine's message).
 * @param what what was attempted, e.g. "create the container"
 * @param image the image involved, for the missing-image message
 * @param opts the engine the call went to: a missing image is named as missing on that engine
 *   (its context or host), and the fix pulls it there
 * @param platform FOR TESTS: the client OS whose fixes are named (default `process.platform`):
 *   "start Docker Desktop" on macOS and Windows, the docker service on Linux, Colima, Rancher
 *   Desktop, a Podman machine or OrbStack when the context or host names one (engineHints.ts)
 */
export function classifyEngineFailure(
  stderr: string, what: string, image?: string, opts: DockerOptions = {}, platform: NodeJS.Platform = process.platform,
): SandboxError {
  // The CLI's own usage hint ("Run 'docker run --help' …") suggests a typing mistake: never shown.
  const detail = tail(stderr.replace(/^(Run|See) '\S+ [a-z-]+ --help'.*$/gim, ''));
  // Windows: `open //./pipe/docker_engine: Access is denied.`
  if (/permission denied.*docker.*sock|permission denied while trying to connect|pipe[\\/]\S*: access is denied/i.test(stderr)) {
    return new SandboxError(
      'permission-denied',
      `The Docker engine refused this user (permission denied on its ${platform === 'win32' ? 'named pipe' : 'socket'}).`,
      PERMISSION_FIX[platform === 'win32' || platform === 'darwin' ? platform : 'linux'],
      detail,
    );
  }
  const missingContext = /context "([^"\n]{1,200})": context not found/i.exec(stderr);
  if (missingContext) {
    return new SandboxError(
      'daemon-unreachable',
      `The docker context "${engineText(missingContext[1]!, 200)}" does not exist.`,
      `List the contexts with "docker context ls" and choose one that exists (--context, ${settingId('dockerContext')} or DOCKER_CONTEXT), then try again.`,
      detail,
    );
  }
  if (/cannot connect to the docker daemon|is the docker daemon running|error during connect|connect: no such file|connection refused|cannot find the file specified/i.test(stderr)) {
    return engineUnreachable(opts, platform, detail);
  }
  // Podman: `Error: <image>: image not known`.
  if (image && /no such image|unable to find image|pull access denied|manifest unknown|not found: manifest|image not known/i.test(stderr)) {
    return new SandboxError(
      'image-missing',
      `The image "${image}" is not present on the Docker engine of ${targetText(engineTarget(opts))}, and runs never pull implicitly.`,
      `Pull it once with "${commandFor(opts, ['pull', image])}" and run again.`,
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

/** What a docker CLI binary is, from its `--version` output (never from its file name). */
export type CliFlavor = 'docker' | 'podman' | 'other';

/**
 * Classifies `<cli> --version` output: Podman prints "podman version 4.3.1" (a docker → podman
 * wrapper adds "Emulate Docker CLI using podman" on stderr); Docker's CLI "Docker version 28.2.2, build …".
 */
export function classifyVersionOutput(text: string): CliFlavor {
  if (/podman/i.test(text)) return 'podman';
  if (/^Docker version \d/m.test(text)) return 'docker';
  return 'other';
}

/**
 * Which CLI `opts` runs: engineKind.ts `cliKind` (the one detector; cached, `<cli> --version`
 * first). A binary that cannot be spawned counts as "other" (the CLI call that follows reports it).
 */
export function cliFlavor(opts: DockerOptions): Promise<CliFlavor> {
  return cliKind(opts).catch(() => 'other' as const);
}

/**
 * Starts the one-time work of the first control call (CLI flavor, endpoint) without waiting, so
 * that it overlaps with `docker run`. Safe to call any number of times.
 */
export function prepareControl(opts: DockerOptions): void {
  if (opts.controlTransport !== 'cli') void cliFlavor(opts);
}

/** The `DOCKER_*` part of the CLI environment that decides what `dial-stdio` reaches (client cache key). */
function dialKey(opts: DockerOptions, env: Record<string, string>): string {
  const picked = Object.entries(env).filter(([k]) => k.startsWith('DOCKER_') || k === 'HOME').sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([dockerBinary(opts), picked]);
}

/**
 * The Engine API client for control calls on `opts`'s engine, or undefined when control calls
 * go through the CLI: `controlTransport: 'cli'`, a CLI that is not Docker's (Podman: no
 * `system dial-stdio`, and its containers may not be where a socket leads), or an endpoint that
 * does not resolve (a missing context: the CLI reports it).
 */
export async function controlApi(opts: DockerOptions): Promise<EngineApiClient | undefined> {
  if (opts.controlTransport === 'cli') return undefined;
  const endpoint = resolveEndpoint(opts);
  if (!endpoint) return undefined;
  if ((await cliFlavor(opts)) !== 'docker') return undefined;
  if (endpoint.socketPath && opts.controlTransport !== 'dial-stdio') {
    return engineClient(`unix:${endpoint.socketPath}`, { kind: 'unix', socketPath: endpoint.socketPath });
  }
  const env = cliEnvironment(opts);
  return engineClient(`dial:${dialKey(opts, env)}`, { kind: 'dial-stdio', binary: dockerBinary(opts), env });
}

/**
 * Runs a control call through the Engine API when {@link controlApi} gives a client and the
 * engine is reachable over it; otherwise (or on {@link EngineApiUnavailable}) through the CLI.
 */
async function control<T>(opts: DockerOptions, api: (c: EngineApiClient, timeoutMs: number) => Promise<T>, cli: () => Promise<T>): Promise<T> {
  const client = await controlApi(opts);
  if (client) {
    try {
      return await api(client, opts.controlTimeoutMs ?? CONTROL_TIMEOUT_MS);
    } catch (e) {
      if (!(e instanceof EngineApiUnavailable)) throw e;
    }
  }
  return cli();
}

/** A name or id as one URL path segment (image references keep their "/", ":" and "@"). */
function segment(name: string): string {
  return encodeURIComponent(name).replace(/%2F/gi, '/').replace(/%3A/gi, ':').replace(/%40/g, '@');
}

/** The typed error for an engine's error answer, worded as for the CLI's "Error response from daemon". */
function apiFailure(r: ApiResponse, what: string, image?: string, opts?: DockerOptions): SandboxError {
  return classifyEngineFailure(`Error response from daemon: ${apiErrorMessage(r)}`, what, image, opts);
}

/** The engine `opts` reaches, for messages: `context "NAME" (HOST)`, a host, or the configured context. */
export function engineLabel(opts: DockerOptions): string {
  return describeEndpoint(resolveEndpoint(opts), opts);
}

/** The endpoint `opts` reaches (see endpoint.ts), or undefined for a missing context. */
export function engineEndpoint(opts: DockerOptions): Endpoint | undefined {
  return resolveEndpoint(opts);
}

/**
 * Removes a container and its anonymous volumes (`docker rm -f -v`; API
 * `DELETE /containers/{name}?force=1&v=1`), which ends every process in it.
 * "No such container" counts as success, from the API only once the CLI agrees: the API client
 * resolves the endpoint itself (endpoint.ts) and the CLI started the container, so when they
 * disagree (a `dockerPath` wrapper or shim that picks another engine) a 404 of the API must not
 * leave the CLI's container behind. The extra CLI call happens only on a 404.
 * @throws SandboxError when the engine cannot remove it
 */
export async function removeContainer(opts: DockerOptions, name: string): Promise<void> {
  const cli = async () => {
    const r = await docker(opts, ['rm', '-f', '-v', name]);
    if (r.exitCode === 0 || /no such container/i.test(r.stderr)) return disposeEngineWorkDir(name);
    throw classifyEngineFailure(r.stderr, `remove container ${name}`);
  };
  await control(
    opts,
    async (c, t) => {
      const r = await c.request('DELETE', `/containers/${segment(name)}?force=1&v=1`, t);
      if (r.status < 300) return disposeEngineWorkDir(name);
      if (r.status === 404) return cli();
      throw apiFailure(r, `remove container ${name}`);
    },
    cli,
  );
}

/**
 * A container's inspect JSON, as `docker container inspect` prints it for one container
 * (PascalCase: `Id`, `Name`, `State`, `Config`, `HostConfig`, `Mounts`, …).
 */
export type ContainerInspect = Readonly<Record<string, unknown>> & {
  readonly Id?: string;
  readonly Image?: string;
  readonly State?: Readonly<Record<string, unknown>>;
  readonly Config?: Readonly<Record<string, unknown>> & { readonly Env?: readonly string[]; readonly Labels?: Readonly<Record<string, string>> | null };
  readonly HostConfig?: Readonly<Record<string, unknown>>;
  readonly Mounts?: readonly Readonly<Record<string, unknown>>[];
};

/** An image's inspect JSON, as `docker image inspect` prints it for one image (`Id`, `Config`, …). */
export type ImageInspect = Readonly<Record<string, unknown>> & {
  readonly Id?: string;
  readonly Config?: Readonly<Record<string, unknown>> & {
    readonly Env?: readonly string[] | null;
    readonly Volumes?: Readonly<Record<string, unknown>> | null;
    readonly Labels?: Readonly<Record<string, string>> | null;
  } | null;
};

/** The one object of a `docker … inspect` array, or undefined. */
function firstInspected(stdout: string): Record<string, unknown> | undefined {
  const list = JSON.parse(stdout || '[]') as unknown;
  const first = Array.isArray(list) ? (list[0] as unknown) : undefined;
  return first && typeof first === 'object' ? (first as Record<string, unknown>) : undefined;
}

/**
 * A container's full inspect JSON (API `GET /containers/{name}/json`; CLI `docker container inspect`).
 * @throws SandboxError when the container does not exist ("No such container") or the engine fails
 */
export async function inspectContainer(opts: DockerOptions, name: string): Promise<ContainerInspect> {
  return control(
    opts,
    async (c, t) => {
      const r = await c.request('GET', `/containers/${segment(name)}/json`, t);
      if (r.status !== 200 || typeof r.body !== 'object' || !r.body) throw apiFailure(r, `inspect container ${name}`);
      return r.body as ContainerInspect;
    },
    async () => {
      const r = await docker(opts, ['container', 'inspect', name]);
      const first = r.exitCode === 0 ? firstInspected(r.stdout) : undefined;
      if (!first) throw classifyEngineFailure(r.stderr, `inspect container ${name}`);
      return first as ContainerInspect;
    },
  );
}

/**
 * An image's full inspect JSON (API `GET /images/{image}/json`; CLI `docker image inspect`).
 * @throws SandboxError `image-missing` when the image is not on the engine, or an engine error
 */
export async function inspectImage(opts: DockerOptions, image: string): Promise<ImageInspect> {
  return control(
    opts,
    async (c, t) => {
      const r = await c.request('GET', `/images/${segment(image)}/json`, t);
      if (r.status !== 200 || typeof r.body !== 'object' || !r.body) throw apiFailure(r, `inspect image ${image}`, image, opts);
      return r.body as ImageInspect;
    },
    async () => {
      const r = await docker(opts, ['image', 'inspect', image]);
      const first = r.exitCode === 0 ? firstInspected(r.stdout) : undefined;
      if (!first) throw classifyEngineFailure(r.stderr, `inspect image ${image}`, image, opts);
      return first as ImageInspect;
    },
  );
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

/** The {@link ContainerState} of an inspect JSON's `.State`. */
export function containerState(inspect: ContainerInspect): ContainerState {
  const s = (inspect.State ?? {}) as {
    Status?: string; ExitCode?: number; OOMKilled?: boolean; Error?: string; StartedAt?: string; Pid?: number;
  };
  return {
    status: s.Status ?? 'unknown',
    exitCode: s.ExitCode ?? -1,
    // Podman 4.3 reports false after an OOM kill; its conmon's `oom` file says so instead.
    oomKilled: s.OOMKilled === true || conmonSawOom(String(inspect.Name ?? '').replace(/^\//, '')),
    error: s.Error ?? '',
    started: !!s.StartedAt && !s.StartedAt.startsWith('0001-'),
    pid: Number.isInteger(s.Pid) && s.Pid! > 0 ? s.Pid! : 0,
  };
}

/**
 * Reads a container's state.
 * @throws SandboxError when the container does not exist or the engine fails
 */
export async function inspectState(opts: DockerOptions, name: string): Promise<ContainerState> {
  return containerState(await inspectContainer(opts, name));
}

/**
 * The host pid of a running container's init process (`.State.Pid`), or 0 when it is not running.
 * @throws SandboxError when the container does not exist or the engine fails
 */
export async function inspectPid(opts: DockerOptions, name: string): Promise<number> {
  return (await inspectState(opts, name)).pid;
}

/**
 * Sends a signal to a container's init process (`docker kill --signal`; API
 * `POST /containers/{name}/kill?signal=`), which docker-init forwards to the program's process
 * group (TINI_KILL_PROCESS_GROUP, see argv.ts).
 * @returns true when the engine delivered it (false: not running, gone, or the engine failed)
 */
export async function signalContainer(opts: DockerOptions, name: string, signal: NodeJS.Signals): Promise<boolean> {
  return control(
    opts,
    async (c, t) => (await c.request('POST', `/containers/${segment(name)}/kill?signal=${signal}`, t)).status === 204,
    async () => (await docker(opts, ['kill', '--signal', signal, name]).catch(() => undefined))?.exitCode === 0,
  ).catch(() => false);
}

/**
 * The VOLUMEs an image declares (they would be writable and outlive the run).
 * @throws SandboxError `image-missing` when the image is not present on the engine, or an engine error
 */
export async function imageVolumes(opts: DockerOptions, image: string): Promise<string[]> {
  const volumes = (await inspectImage(opts, image)).Config?.Volumes;
  return volumes ? Object.keys(volumes) : [];
}

/** A container as listed by {@link listContainers}: its name (no leading "/") and labels. */
export interface ListedContainer {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * Containers in any state carrying every label filter (API `GET /containers/json?all=1&filters=`;
 * CLI `docker ps -a --filter label=…`).
 * @param labelFilters `docker ps --filter label=` values, e.g. `sandbox-runner=1`
 * @param labelKeys the labels to read on the CLI path ("" when absent); the API returns all
 * @throws SandboxError when the engine cannot be reached
 */
export async function listContainers(opts: DockerOptions, labelFilters: readonly string[], labelKeys: readonly string[]): Promise<ListedContainer[]> {
  return control(
    opts,
    async (c, t) => {
      const filters = encodeURIComponent(JSON.stringify({ label: labelFilters }));
      const r = await c.request('GET', `/containers/json?all=1&filters=${filters}`, t);
      if (r.status !== 200 || !Array.isArray(r.body)) throw apiFailure(r, 'list sandbox containers');
      return (r.body as { Names?: string[]; Labels?: Record<string, string> | null }[]).map((x) => {
        const labels: Record<string, string> = {};
        for (const k of labelKeys) labels[k] = x.Labels?.[k] ?? '';
        return { name: (x.Names?.[0] ?? '').replace(/^\//, ''), labels: { ...x.Labels, ...labels } };
      });
    },
    async () => {
      // `{{.Label "k"}}` gives one label's value ("" when absent), printed as a JSON string: a
      // value may hold line breaks and tabs (the engine stores any string), which printed raw
      // forged whole extra lines, i.e. containers with labels of their choosing (measured on
      // Docker 20.10 and Podman 4.3). Podman's `ps` has no `.Label`: its `.Labels` is a map, read with `index`.
      const podman = (await cliFlavor(opts)) === 'podman';
      const format = ['{{.Names}}', ...labelKeys.map((k) => (podman ? `{{json (index .Labels "${k}")}}` : `{{json (.Label "${k}")}}`))].join('\t');
      const args = ['ps', '-a', '--no-trunc', ...labelFilters.flatMap((f) => ['--filter', `label=${f}`]), '--format', format];
      const r = await docker(opts, args);
      if (r.exitCode !== 0) throw classifyEngineFailure(r.stderr, 'list sandbox containers');
      const out: ListedContainer[] = [];
      for (const line of r.stdout.split('\n')) {
        if (!line.trim()) continue;
        const [name = '', ...values] = line.split('\t');
        const labels: Record<string, string> = {};
        labelKeys.forEach((k, i) => (labels[k] = jsonString(values[i])));
        out.push({ name: name.trim(), labels });
      }
      return out;
    },
  );
}

/** A JSON string as the CLI's `{{json …}}` prints it, decoded; "" for anything else (never throws). */
function jsonString(text: string | undefined): string {
  try {
    const v: unknown = JSON.parse(text ?? '');
    return typeof v === 'string' ? v : '';
  } catch {
    return '';
  }
}

/** Which engine ran the code, for headers and summaries. Engine text: show it as plain text only. */
export interface EngineVersion {
  /** e.g. "Docker Engine", "Docker Desktop 4.37.1", "Podman Engine". */
  readonly name: string;
  /** The engine's version, e.g. "20.10.24+dfsg1", "4.3.1". */
  readonly version: string;
  /** The engine's API version, e.g. "1.41" ("" when unknown). */
  readonly apiVersion: string;
  /** The engine's OS and architecture, e.g. "linux", "amd64" ("" when unknown). */
  readonly os: string;
  readonly arch: string;
  /** Where it runs: `context "NAME" (HOST)` or the host (see {@link engineLabel}). */
  readonly endpoint: string;
  /** How it was asked: the Engine API or the CLI. */
  readonly via: 'api' | 'cli';
}

interface VersionJson {
  Platform?: { Name?: string };
  Components?: { Name?: string; Version?: string; Details?: { ApiVersion?: string } }[];
  Version?: string; ApiVersion?: string; APIVersion?: string; Os?: string; Arch?: string; OsArch?: string;
}

/** An {@link EngineVersion} from a `/version` answer (Docker's, or Podman's compat or CLI JSON). */
export function parseEngineVersion(v: VersionJson, endpoint: string, via: 'api' | 'cli', podmanCli = false): EngineVersion {
  const podman = podmanCli || (v.Components ?? []).some((c) => /podman/i.test(c.Name ?? ''));
  const [osArchOs = '', osArchArch = ''] = (v.OsArch ?? '').split('/');
  return {
    // Podman's compat API puts "linux/amd64/debian-12" in Platform.Name: its Components say Podman.
    name: podman ? 'Podman Engine' : v.Platform?.Name?.trim() || 'Docker Engine',
    version: v.Version ?? '',
    apiVersion: v.ApiVersion ?? v.APIVersion ?? '',
    os: v.Os ?? osArchOs,
    arch: v.Arch ?? osArchArch,
    endpoint,
    via,
  };
}

/**
 * Which engine `opts` reaches (API `GET /version`; CLI `version --format json`, whose `Server`,
 * or for a local Podman `Client`, part is read).
 * @throws SandboxError when the engine cannot be reached
 */
export async function engineVersion(opts: DockerOptions): Promise<EngineVersion> {
  const endpoint = engineLabel(opts);
  return control(
    opts,
    async (c, t) => {
      const r = await c.request('GET', '/version', t);
      if (r.status !== 200 || typeof r.body !== 'object' || !r.body) throw apiFailure(r, 'read the engine version');
      return parseEngineVersion(r.body as VersionJson, endpoint, 'api');
    },
    async () => {
      const r = await docker(opts, ['version', '--format', 'json']);
      let parsed: { Server?: VersionJson | null; Client?: VersionJson } | undefined;
      try {
        parsed = JSON.parse(r.stdout) as typeof parsed;
      } catch {
        parsed = undefined;
      }
      const podman = (await cliFlavor(opts)) === 'podman';
      const server = parsed?.Server ?? (podman ? parsed?.Client : undefined);
      if (!server) throw classifyEngineFailure(r.stderr, 'read the engine version');
      return parseEngineVersion(server, endpoint, 'cli', podman);
    },
  );
}
