/**
 * Which engine the runner talks to: the docker options for a chosen context or host
 * (`engineOptions`), the engine's name in messages and fixes (`engineTarget`, `commandFor`), a
 * cache key per engine (`engineKey`), and the one filter for engine-reported or configured text
 * (`engineText`). No engine call here (see engine.ts for the identity).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { DockerOptions } from './contracts';
import { dockerConfigDir, resolveEndpoint } from './endpoint';

/** The docker executable of `opts` (as docker.ts `dockerBinary`, kept here so this module imports no engine code). */
const binary = (opts: DockerOptions) => opts.dockerPath || 'docker';

/** What a user chose: the docker CLI, and a context or a host (a host wins when both are given). */
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
 * The docker options for `choice`: `context` and `host` are passed as they are, and docker.ts
 * `spawnOptions` turns them into the CLI's `DOCKER_CONTEXT` / `DOCKER_HOST` (endpoint.ts has the
 * order: a host wins over a context; an explicit context wins over an inherited `DOCKER_HOST`).
 * Neither: the environment and the CLI's current context decide, as for `docker` in a terminal.
 * Values are not validated here (see {@link contextNameProblem}).
 */
export function engineOptions(choice: EngineChoice): DockerOptions {
  return {
    ...(choice.dockerPath ? { dockerPath: choice.dockerPath } : {}),
    ...(choice.context ? { context: choice.context } : {}),
    ...(choice.host ? { host: choice.host } : {}),
  };
}

/** Which engine, as a user names it: a context or a host address. */
export interface EngineTarget {
  readonly kind: 'context' | 'host';
  /** The context name or host address, as configured (shown through {@link engineText}). */
  readonly name: string;
  /**
   * True when something chose it (options, `DOCKER_HOST`, `DOCKER_CONTEXT`, a current context):
   * a command shown to the user must then name it.
   */
  readonly explicit: boolean;
}

/**
 * The engine `opts` reach, as the docker CLI resolves it (endpoint.ts `resolveEndpoint`): a
 * context by its name, a host by its address, nothing chosen as the context "default". A context
 * that does not exist is still named by the name given. Never throws.
 */
export function engineTarget(opts: DockerOptions): EngineTarget {
  const endpoint = resolveEndpoint(opts);
  if (!endpoint) {
    const named = opts.host ? undefined : opts.context || opts.env?.DOCKER_CONTEXT || process.env.DOCKER_CONTEXT;
    return named ? { kind: 'context', name: named, explicit: true } : { kind: 'context', name: 'configured', explicit: false };
  }
  if (endpoint.context) return { kind: 'context', name: endpoint.context, explicit: true };
  if (endpoint.source === 'option-context' || endpoint.source === 'env-context' || endpoint.source === 'config-context') {
    return { kind: 'context', name: 'default', explicit: true };
  }
  if (endpoint.source === 'default') return { kind: 'context', name: 'default', explicit: false };
  return { kind: 'host', name: endpoint.host, explicit: true };
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
export function commandFor(opts: DockerOptions, args: readonly string[]): string {
  const target = engineTarget(opts);
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
 * environment's context and host, the docker config's modification time (`docker context use`)
 * and the endpoint they resolve to (endpoint.ts; a context's meta.json edited in place).
 * Used to cache per process and engine (identity, the mount probe).
 */
export function engineKey(opts: DockerOptions, env: NodeJS.ProcessEnv = process.env): string {
  let configTime = 0;
  try {
    configTime = statSync(join(dockerConfigDir({ ...env, ...opts.env }), 'config.json')).mtimeMs;
  } catch {
    // no config file: the default context
  }
  const pick = (name: string) => (opts.env && name in opts.env ? opts.env[name] : env[name]) ?? '';
  // The resolved host too: `docker context update NAME --docker host=…` changes the engine of a
  // context chosen by name (option or DOCKER_CONTEXT) without touching config.json.
  const resolved = resolveEndpoint(opts)?.host ?? '';
  return JSON.stringify([binary(opts), opts.context ?? '', opts.host ?? '', pick('DOCKER_HOST'), pick('DOCKER_CONTEXT'), pick('DOCKER_CONFIG'), configTime, resolved]);
}

