/**
 * The engine's contracts: how to reach an engine ({@link DockerOptions}), what a CLI call returns,
 * and the inspect shapes every engine call parses (one {@link ContainerInspect}, one
 * {@link ImageInspect}). Types and constants only, no implementation: the many modules that only
 * pass `DockerOptions` along import this file, never the CLI wrapper (cli.ts) or the control calls.
 */

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

/** One entry of a container's `Mounts`. */
export interface InspectMount {
  readonly Type?: string;
  readonly Name?: string;
  readonly Source?: string;
  readonly Destination?: string;
  readonly Driver?: string;
  readonly RW?: boolean;
}

/**
 * A container's inspect JSON, as `docker container inspect` prints it for one container
 * (PascalCase, the same shape as the Engine API's `GET /containers/{id}/json`). Only the fields
 * the runner reads are typed; the rest is kept as given.
 */
export type ContainerInspect = Readonly<Record<string, unknown>> & {
  readonly Id?: string;
  readonly Name?: string;
  readonly Image?: string;
  readonly State?: Readonly<Record<string, unknown>> & {
    readonly Status?: string; readonly Pid?: number; readonly ExitCode?: number; readonly OOMKilled?: boolean; readonly Error?: string; readonly StartedAt?: string;
  };
  readonly Config?: Readonly<Record<string, unknown>> & {
    readonly Env?: readonly string[] | null;
    readonly Labels?: Readonly<Record<string, string>> | null;
    readonly Image?: string;
    readonly Entrypoint?: unknown;
    readonly Cmd?: unknown;
  };
  readonly HostConfig?: Readonly<Record<string, unknown>>;
  readonly Mounts?: readonly InspectMount[] | null;
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

/** A container as listed by {@link listContainers}: its name (no leading "/") and labels. */
export interface ListedContainer {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
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

/** The CLI flavour whose flags `buildCreateArgv` emits. */
export type EngineKind = 'docker' | 'podman';

/**
 * What a docker-compatible CLI is (never decided from its file name): `docker`, `podman`, or
 * `other` (neither says so: e.g. nerdctl; treated as the docker CLI for flags, but control calls
 * stay on the CLI, docker.ts).
 */
export type CliKind = EngineKind | 'other';
