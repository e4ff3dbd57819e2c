/**
 * Which engine a set of {@link DockerOptions} reaches, resolved the way the docker CLI resolves it,
 * without spawning a process: this runs before every control call, so after the first call it
 * costs two `stat`s and a map lookup (well under 1 ms).
 *
 * Precedence (docker CLI 28, `cli/command/cli.go` `resolveContextName`, checked on this machine):
 *  1. `opts.host` (the product's `dockerHost` setting; reaches the CLI as `DOCKER_HOST`);
 *  2. `opts.context` (`dockerContext` / `--context`; reaches the CLI as `DOCKER_CONTEXT`, with
 *     any inherited `DOCKER_HOST` removed so that the explicit context wins);
 *  3. `DOCKER_HOST` from the environment (`opts.env` over `process.env`);
 *  4. `DOCKER_CONTEXT` from the environment;
 *  5. `currentContext` of `$DOCKER_CONFIG/config.json` (default `~/.docker/config.json`);
 *  6. the platform's default: `unix:///var/run/docker.sock`, on Windows `npipe:////./pipe/docker_engine`
 *     (docker CLI `opts/hosts_unix.go` / `hosts_windows.go`).
 *
 * An empty variable counts as unset (the CLI treats it so). The context named "default" is the
 * CLI's built-in one: the default endpoint. Any other context's endpoint is `Endpoints.docker.Host`
 * in `$DOCKER_CONFIG/contexts/meta/<sha256(name)>/meta.json`; a missing context resolves to
 * `undefined` (the CLI fails on it with its own message, so callers fall back to the CLI).
 *
 * Docker Desktop's contexts resolve like any other: `desktop-linux` is
 * `unix:///Users/<me>/.docker/run/docker.sock` on macOS (a local socket) and
 * `npipe:////./pipe/dockerDesktopLinuxEngine` on Windows, where an `npipe://` host is a named pipe
 * local to this client, reached directly as Node's `socketPath` (`\\.\pipe\NAME`), as a
 * `unix://` socket is elsewhere.
 */
import type * as Crypto from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, posix, win32 } from 'node:path';
import type { DockerOptions } from './contracts';

/** The engine endpoint the docker CLI uses when nothing else is configured (Linux, macOS). */
export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';

/** The engine endpoint the docker CLI uses when nothing else is configured on Windows (docker CLI `DefaultNamedPipe`). */
export const DEFAULT_WINDOWS_DOCKER_HOST = 'npipe:////./pipe/docker_engine';

/** The docker CLI's default engine endpoint on `platform` ({@link DEFAULT_WINDOWS_DOCKER_HOST} on `win32`, else {@link DEFAULT_DOCKER_HOST}). */
export function defaultDockerHost(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? DEFAULT_WINDOWS_DOCKER_HOST : DEFAULT_DOCKER_HOST;
}

/** Where an endpoint came from (rule 1–6 of the module comment). */
export type EndpointSource = 'option-host' | 'option-context' | 'env-host' | 'env-context' | 'config-context' | 'default';

/** The engine a {@link DockerOptions} reaches. */
export interface Endpoint {
  /** The engine address as the CLI uses it, e.g. `unix:///var/run/docker.sock`, `ssh://me@box`, `tcp://h:2376`. */
  readonly host: string;
  /** The context name when a context chose it (never "default"). */
  readonly context?: string;
  readonly source: EndpointSource;
  /**
   * The absolute socket path for a `unix://` host, or on Windows the named pipe (`\\.\pipe\NAME`)
   * of an `npipe://` host: a path Node's `socketPath` reaches directly. Else undefined (reach
   * the engine through `docker system dial-stdio`).
   */
  readonly socketPath?: string;
}

/** The variables of the docker CLI's environment that decide its endpoint. */
type EngineVars = Readonly<Record<'DOCKER_HOST' | 'DOCKER_CONTEXT' | 'DOCKER_CONFIG' | 'HOME' | 'USERPROFILE', string | undefined>>;

/**
 * The engine variables the docker CLI sees for `opts` (`opts.env` over `process.env`, before
 * `spawnOptions` applies host/context). Read one by one: copying `process.env` costs ~0.1 ms.
 */
function baseEnv(opts: DockerOptions): EngineVars {
  const get = (k: string) => opts.env?.[k] ?? process.env[k];
  return {
    DOCKER_HOST: get('DOCKER_HOST'), DOCKER_CONTEXT: get('DOCKER_CONTEXT'), DOCKER_CONFIG: get('DOCKER_CONFIG'),
    HOME: get('HOME'), USERPROFILE: get('USERPROFILE'),
  };
}

/**
 * The docker CLI's configuration directory: `DOCKER_CONFIG`, else `.docker` in the home directory
 * as the CLI finds it (`$HOME`; on Windows `%USERPROFILE%`, docker `pkg/homedir`, which ignores a
 * `HOME` set by Git Bash or MSYS), else this process's home directory.
 * @param env the CLI's environment
 */
export function dockerConfigDir(env: Readonly<Record<string, string | undefined>> = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = (platform === 'win32' ? env.USERPROFILE : env.HOME) || homedir();
  return env.DOCKER_CONFIG || (platform === 'win32' ? win32 : posix).join(home, '.docker');
}

/** `sha256(name)` in hex: the folder of a context's metadata (docker CLI `store.contextdirOf`). */
export function contextDir(name: string): string {
  // node:crypto is required here, on first use: this module is in the extension's activation
  // bundle, and loading node:crypto would add milliseconds to every activation.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createHash } = require('node:crypto') as typeof Crypto;
  return createHash('sha256').update(name).digest('hex');
}

/** A `unix://` host's absolute socket path, else undefined. */
export function unixSocketPath(host: string): string | undefined {
  const m = /^unix:\/\/(\/.*)$/.exec(host);
  return m ? m[1] : undefined;
}

/**
 * An `npipe://` host's named pipe as Windows names it, else undefined:
 * `npipe:////./pipe/docker_engine` → `\\.\pipe\docker_engine` (docker CLI syntax: `npipe://` then
 * the pipe path with `/` or `\`; Node's `net.connect({ path })` takes the `\\.\pipe\` form).
 */
export function namedPipePath(host: string): string | undefined {
  const m = /^npipe:\/\/[\\/]{2}\.[\\/]pipe[\\/]([^\\/\s]{1,240})$/i.exec(host);
  return m ? `\\\\.\\pipe\\${m[1]}` : undefined;
}

/**
 * The path Node reaches the engine of `host` through directly on `platform`: a `unix://` socket
 * (not on Windows: Docker Desktop there serves named pipes), a named pipe on Windows; else undefined.
 */
export function endpointSocketPath(host: string, platform: NodeJS.Platform = process.platform): string | undefined {
  return platform === 'win32' ? namedPipePath(host) : unixSocketPath(host);
}

/** Modification time of a file in ms, or -1 when it is missing (cache validation). */
function mtime(path: string): number {
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  } catch {
    return -1;
  }
}

/** Reads a JSON file, or undefined when it is missing or malformed. */
function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The endpoint of a named context, read from its meta.json.
 * @returns the host, or undefined when the context does not exist or has no docker endpoint
 */
export function contextHost(configDir: string, name: string): string | undefined {
  const meta = readJson(join(configDir, 'contexts', 'meta', contextDir(name), 'meta.json')) as
    | { Endpoints?: { docker?: { Host?: unknown } } }
    | undefined;
  const host = meta?.Endpoints?.docker?.Host;
  return typeof host === 'string' && host ? host : undefined;
}

/** The context name that decides the endpoint (rules 2, 4, 5), or undefined for a host rule. */
function contextName(opts: DockerOptions, env: EngineVars, configDir: string): { name: string; source: EndpointSource } | undefined {
  if (opts.context) return { name: opts.context, source: 'option-context' };
  if (env.DOCKER_HOST) return undefined;
  if (env.DOCKER_CONTEXT) return { name: env.DOCKER_CONTEXT, source: 'env-context' };
  const config = readJson(join(configDir, 'config.json')) as { currentContext?: unknown } | undefined;
  const current = config?.currentContext;
  return typeof current === 'string' && current ? { name: current, source: 'config-context' } : undefined;
}

function resolveUncached(opts: DockerOptions, env: EngineVars, configDir: string, platform: NodeJS.Platform): Endpoint | undefined {
  const make = (host: string, source: EndpointSource, context?: string): Endpoint =>
    ({ host, source, socketPath: endpointSocketPath(host, platform), ...(context ? { context } : {}) });
  if (opts.host) return make(opts.host, 'option-host');
  const ctx = contextName(opts, env, configDir);
  if (!ctx) return env.DOCKER_HOST ? make(env.DOCKER_HOST, 'env-host') : make(defaultDockerHost(platform), 'default');
  // The built-in "default" context: DOCKER_HOST when set (only reachable here without an explicit
  // context, since spawnOptions removes DOCKER_HOST for one), else the default socket.
  if (ctx.name === 'default') return make(defaultDockerHost(platform), ctx.source);
  const host = contextHost(configDir, ctx.name);
  return host ? make(host, ctx.source, ctx.name) : undefined;
}

interface CacheEntry {
  readonly configMtime: number;
  /** The chosen context's meta.json ("" without a context) and its mtime when cached. */
  readonly metaPath: string;
  readonly metaMtime: number;
  readonly endpoint: Endpoint | undefined;
}
const cache = new Map<string, CacheEntry>();

/**
 * The engine `opts` reaches (see the module comment for the rules).
 * Cached per options and environment; a change to config.json or to the chosen context's
 * meta.json (`docker context use`, `docker context create/update/rm`) is seen on the next call.
 * @param platform FOR TESTS: the client OS whose defaults apply (default `process.platform`)
 * @returns the endpoint, or undefined when the chosen context does not exist (the CLI then fails
 *   with its own message)
 */
export function resolveEndpoint(opts: DockerOptions, platform: NodeJS.Platform = process.platform): Endpoint | undefined {
  const env = baseEnv(opts);
  const configDir = dockerConfigDir(env, platform);
  const key = JSON.stringify([opts.host ?? '', opts.context ?? '', env.DOCKER_HOST ?? '', env.DOCKER_CONTEXT ?? '', configDir, platform]);
  const configMtime = mtime(join(configDir, 'config.json'));
  const hit = cache.get(key);
  if (hit && hit.configMtime === configMtime && (!hit.metaPath || hit.metaMtime === mtime(hit.metaPath))) return hit.endpoint;
  const ctx = opts.host ? undefined : contextName(opts, env, configDir);
  const metaPath = ctx && ctx.name !== 'default' ? join(configDir, 'contexts', 'meta', contextDir(ctx.name), 'meta.json') : '';
  const metaMtime = metaPath ? mtime(metaPath) : -1;
  const endpoint = resolveUncached(opts, env, configDir, platform);
  cache.set(key, { configMtime, metaPath, metaMtime, endpoint });
  return endpoint;
}

/**
 * A short human name for an endpoint, for headers and messages: `context "NAME" (HOST)` or the
 * host alone. The host is configuration text: callers that render markup must escape it.
 */
export function describeEndpoint(endpoint: Endpoint | undefined, opts: DockerOptions = {}): string {
  if (!endpoint) return opts.context ? `context "${opts.context}"` : 'the configured Docker context';
  return endpoint.context ? `context "${endpoint.context}" (${endpoint.host})` : endpoint.host;
}
