/**
 * What the engine is, for display: product, version and default runtime, asked once per process
 * and engine (`engineIdentity`), never on a run's critical path. The version comes from
 * {@link engineVersion} (`/version`), the runtime from `/info` (`docker info`), both over
 * control.ts (Engine API, CLI fallback). Everything the engine says is untrusted and passes
 * `engineText` before anyone shows it.
 */
import { docker } from './cli';
import type { DockerOptions, EngineVersion } from './contracts';
import { apiFailure, cliFlavor, control } from './control';
import { describeEndpoint, resolveEndpoint } from './endpoint';
import { engineKey, engineTarget, engineText, targetText, type EngineTarget } from './engineTarget';
import { classifyEngineFailure } from './failures';

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
  const cli = async () => {
    const r = await docker(opts, ['info', '--format', '{{json .}}'], IDENTITY_TIMEOUT_MS).catch(() => undefined);
    return r?.exitCode === 0 ? parseRuntime(r.stdout) : '';
  };
  // Any API failure (not only an unreachable API) falls back to the CLI: the runtime is display only.
  return control(
    opts,
    async (c) => {
      const r = await c.request('GET', '/info', IDENTITY_TIMEOUT_MS).catch(() => undefined);
      return r?.status === 200 ? parseRuntime(r.body) : cli();
    },
    cli,
  ).catch(cli);
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
  // A run awaits this list (runner.ts `checkRuntime`): never longer than its control timeout per call.
  const ms = Math.min(IDENTITY_TIMEOUT_MS, opts.controlTimeoutMs ?? IDENTITY_TIMEOUT_MS);
  const cli = async () => {
    const r = await docker(opts, ['info', '--format', '{{json .}}'], ms).catch(() => undefined);
    return r?.exitCode === 0 ? parseRuntimes(r.stdout) : undefined;
  };
  return control(
    opts,
    async (c) => {
      const r = await c.request('GET', '/info', ms).catch(() => undefined);
      return r?.status === 200 ? parseRuntimes(r.body) : cli();
    },
    cli,
  ).catch(cli);
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

/** The engine `opts` reaches, for messages: `context "NAME" (HOST)`, a host, or the configured context. */
export function engineLabel(opts: DockerOptions): string {
  return describeEndpoint(resolveEndpoint(opts), opts);
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
