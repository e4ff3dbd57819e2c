/**
 * Which engine the runner talks to: the docker options for a chosen context or host
 * (`engineOptions`), the engine's name in messages and fixes (`engineTarget`, `commandFor`), a
 * cache key per engine (`engineKey`), and the one filter for engine-reported or configured text
 * (`engineText`). No engine call here (see engine.ts for the identity).
 */
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { DockerOptions } from './docker';

/** The docker executable of `opts` (as docker.ts `dockerBinary`, kept here so this module imports no engine code). */
const binary = (opts: DockerOptions) => opts.dockerPath || 'docker';

/** What a user chose: the docker CLI, and at most one of a context and a host. */
export interface EngineChoice {
  /** The docker CLI executable (default `docker`). */
  readonly dockerPath?: string;
  /** A docker context name (`docker context ls`), e.g. "colima". */
  readonly context?: string;
  /** An engine address (`DOCKER_HOST` syntax), e.g. "ssh://me@build-host" or "unix:///run/docker.sock". */
  readonly host?: string;
}

/** A docker context name as the docker CLI accepts it (docker/cli `store` name rule), at most 100 characters. */
const CONTEXT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}$/;
/** An engine address: a scheme the docker CLI knows, then printable ASCII without spaces, at most 500 characters. */
const HOST_ADDRESS = /^(unix|tcp|ssh|npipe|fd|http|https):\/\/[\x21-\x7e]{0,480}$/;

/** Why `name` is not a usable docker context name, or undefined when it is. */
export function contextNameProblem(name: string): string | undefined {
  return CONTEXT_NAME.test(name) ? undefined : 'is not a docker context name (letters, digits, "_", ".", "+" and "-", starting with a letter or digit)';
}

/** Why `host` is not a usable engine address, or undefined when it is. */
export function hostProblem(host: string): string | undefined {
  return HOST_ADDRESS.test(host) ? undefined : 'is not an engine address such as unix:///var/run/docker.sock, ssh://user@host or tcp://host:2376';
}

/**
 * The docker options for `choice`. A context is passed as `DOCKER_CONTEXT` with `DOCKER_HOST`
 * emptied, and a host as `DOCKER_HOST` with `DOCKER_CONTEXT` emptied (the docker CLI treats an
 * empty variable as unset, and an inherited `DOCKER_HOST` would otherwise win over
 * `DOCKER_CONTEXT`: docker/cli `resolveContextName`). Neither: the environment and the CLI's
 * current context decide, as for `docker` in a terminal. When both are given the context wins
 * (callers report the conflict). Values are not validated here (see {@link contextNameProblem}).
 * @returns options with `context`/`host` set and the matching `env`
 */
export function engineOptions(choice: EngineChoice): DockerOptions {
  const base = choice.dockerPath ? { dockerPath: choice.dockerPath } : {};
  if (choice.context) return { ...base, context: choice.context, env: { DOCKER_CONTEXT: choice.context, DOCKER_HOST: '' } };
  if (choice.host) return { ...base, host: choice.host, env: { DOCKER_HOST: choice.host, DOCKER_CONTEXT: '' } };
  return base;
}

/** Which engine, as a user names it: a context or a host address. */
export interface EngineTarget {
  readonly kind: 'context' | 'host';
  /** The context name or host address, as configured (shown through {@link engineText}). */
  readonly name: string;
  /**
   * True when it was chosen for this process (options, `DOCKER_HOST`, `DOCKER_CONTEXT`, or a
   * current context other than "default"): a command shown to the user must then name it.
   */
  readonly explicit: boolean;
}

/** `value` unless empty (the docker CLI treats an empty variable as unset). */
const set = (value: string | undefined) => (value ? value : undefined);

/** The docker CLI's config directory (`$DOCKER_CONFIG`, else `~/.docker`). */
function dockerConfigDir(env: NodeJS.ProcessEnv): string {
  return set(env.DOCKER_CONFIG) ?? join(homedir(), '.docker');
}

/**
 * The `currentContext` of the docker CLI config (`docker context use`), or undefined. Reads
 * only that field; the file (which may hold registry credentials) is never kept or shown.
 */
function currentContext(env: NodeJS.ProcessEnv): string | undefined {
  try {
    const path = join(dockerConfigDir(env), 'config.json');
    if (statSync(path).size > 1024 * 1024) return undefined;
    const value = (JSON.parse(readFileSync(path, 'utf8')) as { currentContext?: unknown }).currentContext;
    return typeof value === 'string' && value ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The engine `opts` reach, in the docker CLI's order: the options' host or context, then
 * `DOCKER_HOST`, `DOCKER_CONTEXT` (from `opts.env` over `env`), then the config's current
 * context, else the context "default". Reads the docker config file at most once per call; never throws.
 * @param env the process environment (a parameter for tests)
 */
export function engineTarget(opts: DockerOptions, env: NodeJS.ProcessEnv = process.env): EngineTarget {
  if (opts.context) return { kind: 'context', name: opts.context, explicit: true };
  if (opts.host) return { kind: 'host', name: opts.host, explicit: true };
  const host = set(opts.env && 'DOCKER_HOST' in opts.env ? opts.env.DOCKER_HOST : env.DOCKER_HOST);
  if (host) return { kind: 'host', name: host, explicit: true };
  const context = set(opts.env && 'DOCKER_CONTEXT' in opts.env ? opts.env.DOCKER_CONTEXT : env.DOCKER_CONTEXT) ?? currentContext(env);
  return context && context !== 'default' ? { kind: 'context', name: context, explicit: true } : { kind: 'context', name: 'default', explicit: false };
}

/** `context "colima"` or `host "ssh://build"`, for sentences (plain text). */
export function targetText(target: EngineTarget): string {
  return `${target.kind} "${engineText(target.name, 200)}"`;
}

/**
 * The docker CLI command that does `args` on the engine of `opts`, for a fix shown to the user:
 * `docker --context colima pull x`, `docker --host ssh://b pull x`, or plain `docker pull x`
 * when nothing chose the engine. Text only: never run.
 */
export function commandFor(opts: DockerOptions, args: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  const target = engineTarget(opts, env);
  const select = target.explicit ? [target.kind === 'context' ? '--context' : '--host', target.name] : [];
  return [binary(opts), ...select, ...args].map((a) => engineText(a, 500)).join(' ');
}

/** Longest engine-reported field shown, in characters. */
export const MAX_ENGINE_TEXT = 80;

/**
 * Engine-reported or configured text reduced to what a label may show: letters, digits, space
 * and `._+:/@()~,=-` (so no markup, codicon, escape sequence, line break or bidi control can
 * survive); anything else becomes "?", runs of spaces one space, and the result is cut to
 * `max` characters with "…". Never throws.
 */
export function engineText(value: unknown, max = MAX_ENGINE_TEXT): string {
  const text = String(value ?? '').replace(/[^A-Za-z0-9 ._+:/@()~,=-]/g, '?').replace(/ +/g, ' ').trim();
  return text.length > max ? text.slice(0, Math.max(0, max - 1)) + '…' : text;
}

/**
 * A key that changes whenever the engine `opts` reach may change: the CLI, the options' and the
 * environment's context and host, and the docker config's modification time (`docker context use`).
 * Used to cache per process and engine (identity, the mount probe).
 */
export function engineKey(opts: DockerOptions, env: NodeJS.ProcessEnv = process.env): string {
  let configTime = 0;
  try {
    configTime = statSync(join(dockerConfigDir(env), 'config.json')).mtimeMs;
  } catch {
    // no config file: the default context
  }
  const pick = (name: string) => (opts.env && name in opts.env ? opts.env[name] : env[name]) ?? '';
  return JSON.stringify([binary(opts), opts.context ?? '', opts.host ?? '', pick('DOCKER_HOST'), pick('DOCKER_CONTEXT'), pick('DOCKER_CONFIG'), configTime]);
}

