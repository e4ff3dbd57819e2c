/**
 * What the engine is, for display: product, version and default runtime, asked once per process
 * and engine (`engineIdentity`), never on a run's critical path. Everything the engine says is
 * untrusted and passes `engineText` before anyone shows it.
 */
import { docker, type DockerOptions } from './docker';
import { engineKey, engineTarget, engineText, targetText, type EngineTarget } from './engineTarget';

/** What the engine says it is. */
export interface EngineIdentity {
  readonly target: EngineTarget;
  /** The product, e.g. "Docker Engine", "Docker Desktop 4.30.0 (149282)", "Podman" ("" when unknown). */
  readonly name: string;
  /** The engine's version ("" when unknown). */
  readonly version: string;
  /** The engine's default OCI runtime, e.g. "runc", "crun" ("" when unknown). */
  readonly runtime: string;
}

interface VersionPart {
  Version?: unknown;
  APIVersion?: unknown;
  OsArch?: unknown;
  Context?: unknown;
  Platform?: { Name?: unknown };
  Components?: Array<{ Name?: unknown; Version?: unknown }>;
}

/**
 * The product and version from `docker version --format '{{json .}}'` (Docker: `Server.Platform.Name`,
 * else the "Engine" component; Podman: a component named Podman, or Podman's own `APIVersion`/`OsArch`
 * fields, with or without a `Server` part), plus the client's context. Engine text is cleaned
 * with {@link engineText}. Never throws: unreadable output gives empty fields.
 */
export function parseVersion(stdout: string): { name: string; version: string; context?: string } {
  let doc: { Client?: VersionPart; Server?: VersionPart | null };
  try {
    doc = JSON.parse(stdout.trim().split('\n').find((l) => l.startsWith('{')) ?? '{}') as typeof doc;
  } catch {
    return { name: '', version: '' };
  }
  const client = doc.Client ?? {};
  const server = doc.Server ?? undefined;
  const context = typeof client.Context === 'string' && client.Context ? engineText(client.Context, 200) : undefined;
  const components = Array.isArray(server?.Components) ? server.Components : [];
  const podmanComponent = components.find((c) => /podman/i.test(String(c?.Name ?? '')));
  const podmanShape = (p: VersionPart | undefined) => !!p && p.APIVersion !== undefined && p.OsArch !== undefined && !Array.isArray(p.Components);
  let name = '';
  let version = engineText(server?.Version ?? '');
  if (podmanComponent) {
    name = 'Podman';
    version = engineText(podmanComponent.Version ?? server?.Version ?? '');
  } else if (podmanShape(server ?? undefined) || (!server && podmanShape(client))) {
    name = 'Podman';
    version = engineText((server ?? client).Version ?? '');
  } else if (server) {
    const platform = engineText(server.Platform?.Name ?? '');
    name = platform || (components.some((c) => c?.Name === 'Engine') ? 'Docker Engine' : 'Docker-compatible engine');
  }
  return { name, version, ...(context ? { context } : {}) };
}

/** The default runtime from `docker info --format '{{json .}}'` (`DefaultRuntime`) or Podman's (`host.ociRuntime.name`). Never throws. */
export function parseRuntime(stdout: string): string {
  try {
    const info = JSON.parse(stdout) as { DefaultRuntime?: unknown; host?: { ociRuntime?: { name?: unknown } } };
    return engineText(info.DefaultRuntime ?? info.host?.ociRuntime?.name ?? '');
  } catch {
    return '';
  }
}

/**
 * One line saying which engine: `context "default" · Docker Engine 20.10.24 · runtime runc`.
 * Parts the engine did not report are left out. Plain text (every part went through {@link engineText}).
 */
export function describeEngine(id: EngineIdentity): string {
  const what = [id.name, id.version].filter(Boolean).join(' ');
  return [targetText(id.target), what, id.runtime ? `runtime ${id.runtime}` : ''].filter(Boolean).join(' · ');
}

interface CachedIdentity {
  readonly promise: Promise<EngineIdentity | undefined>;
  value?: EngineIdentity;
}
const identities = new Map<string, CachedIdentity>();

/** Longest wait for the identity calls, ms (they are never awaited by a run). */
const IDENTITY_TIMEOUT_MS = 15_000;

/**
 * What the engine of `opts` is: one `docker version --format '{{json .}}'` and one
 * `docker info --format '{{json .}}'` (for the default runtime), in parallel. Cached per process
 * and {@link engineKey}; a failed lookup (engine down) is not cached. Start it early and show it
 * when ready: a run never waits for it.
 * @returns the identity, or undefined when the engine did not answer `version`
 * Never rejects.
 */
export function engineIdentity(opts: DockerOptions): Promise<EngineIdentity | undefined> {
  const key = engineKey(opts);
  const cached = identities.get(key);
  if (cached) return cached.promise;
  const entry: { promise?: Promise<EngineIdentity | undefined>; value?: EngineIdentity } = {};
  entry.promise = (async () => {
    const [version, info] = await Promise.all([
      docker(opts, ['version', '--format', '{{json .}}'], IDENTITY_TIMEOUT_MS).catch(() => undefined),
      docker(opts, ['info', '--format', '{{json .}}'], IDENTITY_TIMEOUT_MS).catch(() => undefined),
    ]);
    if (!version || version.exitCode !== 0) {
      identities.delete(key);
      return undefined;
    }
    const parsed = parseVersion(version.stdout);
    const target = engineTarget(opts);
    const id: EngineIdentity = {
      // The CLI's own answer names the context it used (a current context the config may hide).
      target: target.kind === 'context' && parsed.context ? { ...target, name: parsed.context } : target,
      name: parsed.name,
      version: parsed.version,
      runtime: info?.exitCode === 0 ? parseRuntime(info.stdout) : '',
    };
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
