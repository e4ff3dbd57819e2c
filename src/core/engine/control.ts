/**
 * The one way a control call (inspect, kill, remove, list, version, info, resize) reaches the
 * engine: the Engine API when the CLI is Docker's and the endpoint resolves (a `unix://` socket
 * directly, anything else through `docker system dial-stdio`), else the CLI. Every caller passes
 * both ways to {@link control}; none asks {@link controlApi} and falls back by itself.
 */
import { SandboxError } from '../errors';
import { byCodeUnits } from '../textOrder';
import { CONTROL_TIMEOUT_MS, type DockerOptions } from './contracts';
import { resolveEndpoint } from './endpoint';
import { apiErrorMessage, EngineApiUnavailable, engineClient, type ApiResponse, type EngineApiClient } from './engineApi';
import { cliKind, type CliKind } from './engineKind';
import { classifyEngineFailure } from './failures';
import { cliEnvironment } from './spawnEnv';
import { dockerBinary } from './cli';

/**
 * Which CLI `opts` runs: engineKind.ts `cliKind` (the one detector; cached, `<cli> --version`
 * first). A binary that cannot be spawned counts as "other" (the CLI call that follows reports it).
 */
export function cliFlavor(opts: DockerOptions): Promise<CliKind> {
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
  const picked = Object.entries(env).filter(([k]) => k.startsWith('DOCKER_') || k === 'HOME').sort(([a], [b]) => byCodeUnits(a, b));
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
 * Any other error of `api` is thrown as it is.
 * @param api the call over the Engine API client, with the control timeout (ms)
 * @param cli the same call through the CLI (or the engine's other way, e.g. Podman's conmon FIFO)
 */
export async function control<T>(opts: DockerOptions, api: (c: EngineApiClient, timeoutMs: number) => Promise<T>, cli: () => Promise<T>): Promise<T> {
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
export function segment(name: string): string {
  return encodeURIComponent(name).replace(/%2F/gi, '/').replace(/%3A/gi, ':').replace(/%40/g, '@');
}

/** The typed error for an engine's error answer, worded as for the CLI's "Error response from daemon". */
export function apiFailure(r: ApiResponse, what: string, image?: string, opts?: DockerOptions): SandboxError {
  return classifyEngineFailure(`Error response from daemon: ${apiErrorMessage(r)}`, what, image, opts);
}
