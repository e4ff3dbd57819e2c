/**
 * Removing installed dependency sets (issue 22): `sandbox-run --prune-deps` and "Clear Dependency
 * Cache" remove every volume with the set-key label on the engine ({@link pruneDependencySets});
 * after an install, the least recently used sets past `dependencies.cacheMaxMiB` go
 * ({@link pruneOverCap}). Name volumes first (so no run picks a set whose data is going), then
 * data volumes. The engine refuses to remove a volume a container uses (a run or an install in
 * progress): such a volume is kept, with the engine's reason.
 */
import { docker } from '../engine/cli';
import type { DockerOptions } from '../engine/contracts';
import { SandboxError } from '../errors';
import { setsOverCap, setUses, type CachedSet } from './cacheUse';
import { DEPS_DATA_LABEL, DEPS_KEY_LABEL, DEPS_KIB_LABEL } from './install';

/** An engine volume name as this product writes them. */
const VOLUME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** What a prune did. */
export interface PruneReport {
  readonly removed: readonly string[];
  readonly kept: readonly { readonly name: string; readonly reason: string }[];
}

/**
 * Removes every dependency set on the engine of `opts` that no container uses.
 * @throws SandboxError `engine-error` when the engine cannot list volumes
 */
export async function pruneDependencySets(opts: DockerOptions): Promise<PruneReport> {
  const list = async (label: string) => {
    const r = await docker(opts, ['volume', 'ls', '-q', '--filter', `label=${label}`]);
    if (r.exitCode !== 0) throw new SandboxError('engine-error', `The engine did not list its volumes: ${r.stderr.trim().slice(0, 300)}`, 'Check the engine (docker info), then run again.');
    return r.stdout.split('\n').map((s) => s.trim()).filter((s) => /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(s));
  };
  const names = await list(DEPS_DATA_LABEL);
  const data = (await list(DEPS_KEY_LABEL)).filter((v) => !names.includes(v));
  const removed: string[] = [];
  const kept: { name: string; reason: string }[] = [];
  for (const v of [...names, ...data]) {
    const r = await docker(opts, ['volume', 'rm', v]);
    if (r.exitCode === 0) removed.push(v);
    else kept.push({ name: v, reason: r.stderr.trim().split('\n')[0]!.slice(0, 200) });
  }
  return { removed, kept };
}

/** What an LRU prune did: the volumes removed and kept, how many sets went and their installed size, KiB. */
export interface LruReport extends PruneReport {
  readonly removedSets: number;
  readonly removedKiB: number;
}

/**
 * Removes the least recently used published sets until the rest fit in `capMiB` (issue 22,
 * `dependencies.cacheMaxMiB`): each set's name volume first, then its data volume; a set a
 * container uses is kept (the engine refuses its data volume; its name volume is then gone, so it
 * is not mounted again and `--prune-deps` or the orphan sweep removes the data later). Sizes come
 * from the install's label (`DEPS_KIB_LABEL`), the order from cacheUse.ts.
 * @param keep set keys never removed (the set just installed)
 * @param only FOR TESTS: consider only these set keys (other clients' sets on a shared engine stay)
 * @throws SandboxError `engine-error` when the engine cannot list its volumes
 */
export async function pruneOverCap(opts: DockerOptions, capMiB: number, keep: ReadonlySet<string> = new Set(), only?: ReadonlySet<string>): Promise<LruReport> {
  const r = await docker(opts, ['volume', 'ls', '-q', '--filter', `label=${DEPS_DATA_LABEL}`]);
  if (r.exitCode !== 0) throw new SandboxError('engine-error', `The engine did not list its volumes: ${r.stderr.trim().slice(0, 300)}`, 'Check the engine (docker info), then run again.');
  const names = r.stdout.split('\n').map((s) => s.trim()).filter((s) => VOLUME.test(s));
  if (names.length === 0) return { removed: [], kept: [], removedSets: 0, removedKiB: 0 };
  const inspected = await docker(opts, ['volume', 'inspect', '--', ...names]);
  const rows = inspected.exitCode === 0 ? (JSON.parse(inspected.stdout || '[]') as { Name?: string; CreatedAt?: string; Labels?: Record<string, string> | null }[]) : [];
  const uses = setUses();
  const sets: CachedSet[] = rows.flatMap((v) => {
    const key = v.Labels?.[DEPS_KEY_LABEL] ?? '';
    const data = v.Labels?.[DEPS_DATA_LABEL] ?? '';
    if (!v.Name || !/^[0-9a-f]{64}$/.test(key) || !VOLUME.test(data) || (only && !only.has(key))) return [];
    const published = Date.parse(v.CreatedAt ?? '');
    return [{ key, name: v.Name, data, kib: Number(v.Labels?.[DEPS_KIB_LABEL] ?? 0) || 0, usedAt: uses[key] ?? (Number.isFinite(published) ? published : 0) }];
  });
  const removed: string[] = [];
  const kept: { name: string; reason: string }[] = [];
  let removedKiB = 0;
  let removedSets = 0;
  for (const s of setsOverCap(sets, capMiB, keep)) {
    const byName = await docker(opts, ['volume', 'rm', s.name]);
    if (byName.exitCode !== 0) {
      kept.push({ name: s.name, reason: byName.stderr.trim().split('\n')[0]!.slice(0, 200) });
      continue;
    }
    removed.push(s.name);
    removedKiB += s.kib;
    removedSets++;
    const byData = await docker(opts, ['volume', 'rm', s.data]);
    if (byData.exitCode === 0) removed.push(s.data);
    else kept.push({ name: s.data, reason: byData.stderr.trim().split('\n')[0]!.slice(0, 200) });
  }
  return { removed, kept, removedSets, removedKiB };
}
