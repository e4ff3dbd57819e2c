/**
 * What the engine is, for display: product, version and default runtime, asked once per process
 * and engine (`engineIdentity`), never on a run's critical path. The version comes from docker.ts
 * `engineVersion` (Engine API, CLI fallback), the runtime from `/info` (`docker info`).
 * Everything the engine says is untrusted and passes `engineText` before anyone shows it.
 */
import { controlApi, docker, engineVersion, type DockerOptions } from './docker';
import { engineKey, engineTarget, engineText, targetText, type EngineTarget } from './engineTarget';

/** What the engine says it is (every field plain text, through {@link engineText}). */
export interface EngineIdentity {
  readonly target: EngineTarget;
  /** The product, e.g. "Docker Engine", "Docker Desktop 4.30.0 (149282)", "Podman Engine" ("" when unknown). */
  readonly name: string;
  /** The engine's version ("" when unknown). */
  readonly version: string;
  /** The engine's default OCI runtime, e.g. "runc", "crun" ("" when unknown). */
  readonly runtime: string;
}

/** The default runtime from an info document: Docker's `DefaultRuntime` or Podman's `host.ociRuntime.name`. Never throws. */
export function parseRuntime(info: unknown): string {
  try {
    const doc = (typeof info === 'string' ? JSON.parse(info) : info) as { DefaultRuntime?: unknown; host?: { ociRuntime?: { name?: unknown } } } | null;
    return engineText(doc?.DefaultRuntime ?? doc?.host?.ociRuntime?.name ?? '');
  } catch {
    return '';
  }
}

/** Longest wait for one identity call, ms (they are never awaited by a run). */
const IDENTITY_TIMEOUT_MS = 15_000;

/** The engine's default runtime: API `GET /info`, else `docker info --format '{{json .}}'`; "" when unknown. */
async function defaultRuntime(opts: DockerOptions): Promise<string> {
  const client = await controlApi(opts).catch(() => undefined);
  if (client) {
    const r = await client.request('GET', '/info', IDENTITY_TIMEOUT_MS).catch(() => undefined);
    if (r?.status === 200) return parseRuntime(r.body);
  }
  const r = await docker(opts, ['info', '--format', '{{json .}}'], IDENTITY_TIMEOUT_MS).catch(() => undefined);
  return r?.exitCode === 0 ? parseRuntime(r.stdout) : '';
}

/** The runtime names an info document lists (Docker's `Runtimes` keys), each through {@link engineText}; undefined when it lists none. Never throws. */
export function parseRuntimes(info: unknown): string[] | undefined {
  try {
    const doc = (typeof info === 'string' ? JSON.parse(info) : info) as { Runtimes?: unknown } | null;
    const runtimes = doc?.Runtimes;
    if (!runtimes || typeof runtimes !== 'object' || Array.isArray(runtimes)) return undefined;
    const names = Object.keys(runtimes).map((k) => engineText(k)).filter(Boolean).sort();
    return names.length > 0 ? names : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The OCI runtimes the engine of `opts` offers (`GET /info` `Runtimes`, else `docker info`), asked
 * fresh each time (a daemon reload may register one). Undefined when the engine does not say
 * (then the engine itself refuses an unknown runtime at create). Never rejects.
 */
export async function engineRuntimes(opts: DockerOptions): Promise<string[] | undefined> {
  const client = await controlApi(opts).catch(() => undefined);
  if (client) {
    const r = await client.request('GET', '/info', IDENTITY_TIMEOUT_MS).catch(() => undefined);
    if (r?.status === 200) return parseRuntimes(r.body);
  }
  const r = await docker(opts, ['info', '--format', '{{json .}}'], IDENTITY_TIMEOUT_MS).catch(() => undefined);
  return r?.exitCode === 0 ? parseRuntimes(r.stdout) : undefined;
}

/**
 * One line saying which engine: `context "default" · Docker Engine 20.10.24 · runtime runc`.
 * Parts the engine did not report are left out. Plain text (every part went through {@link engineText}).
 * @param runtime the runtime a run actually used (a profile's `runtime`, RunResult `runtime`),
 *   named instead of the engine's default (issue 25: a runsc run was reported as runc)
 */
export function describeEngine(id: EngineIdentity, runtime?: string): string {
  const what = [id.name, id.version].filter(Boolean).join(' ');
  // Podman has no docker contexts or hosts (a run that names one is refused, engineKind.ts): its own engine on this machine.
  const where = /^Podman\b/.test(id.name) ? 'Podman on this machine' : targetText(id.target);
  const used = runtime || id.runtime;
  return [where, what, used ? `runtime ${used}` : ''].filter(Boolean).join(' · ');
}

interface CachedIdentity {
  readonly promise: Promise<EngineIdentity | undefined>;
  value?: EngineIdentity;
}
const identities = new Map<string, CachedIdentity>();

/**
 * What the engine of `opts` is: `engineVersion` and the default runtime, in parallel. Cached per
 * process and `engineKey`; a failed lookup (engine down) is not cached. Start it early and show
 * it when ready: a run never waits for it.
 * @returns the identity, or undefined when the engine did not answer the version call
 * Never rejects.
 */
export function engineIdentity(opts: DockerOptions): Promise<EngineIdentity | undefined> {
  const key = engineKey(opts);
  const cached = identities.get(key);
  if (cached) return cached.promise;
  const entry: { promise?: Promise<EngineIdentity | undefined>; value?: EngineIdentity } = {};
  entry.promise = (async () => {
    const [version, runtime] = await Promise.all([engineVersion(opts).catch(() => undefined), defaultRuntime(opts).catch(() => '')]);
    if (!version) {
      identities.delete(key);
      return undefined;
    }
    const id: EngineIdentity = { target: engineTarget(opts), name: engineText(version.name), version: engineText(version.version), runtime };
    entry.value = id;
    return id;
  })();
  identities.set(key, entry as CachedIdentity);
  return entry.promise;
}

/** The identity of the engine of `opts` if a lookup already finished, else undefined (starts none). */
export function knownEngineIdentity(opts: DockerOptions): EngineIdentity | undefined {
  return identities.get(engineKey(opts))?.value;
}
