/**
 * The orphan sweep's part for dependency sets (issue 22): a data volume that no name volume
 * publishes (its install failed, was cancelled, or its process died before publishing) is never
 * mounted, and is removed here once it is older than {@link UNPUBLISHED_MIN_AGE_MS} and its owner
 * (the process that created it, by its owner labels, ownership/liveness.ts) is provably gone.
 * Published sets, volumes of live or unknown owners and volumes a container still uses (the engine
 * refuses) are kept, with the reason.
 */
import { docker } from '../engine/cli';
import type { DockerOptions } from '../engine/contracts';
import { DEPS_DATA_LABEL, DEPS_KEY_LABEL } from '../ownership/labels';
import { containerLiveness, type LeaseView, type ProcessProbe } from '../ownership/liveness';

/**
 * Youngest unpublished data volume the sweep removes, ms. Its owner must be gone as well; the age
 * keeps a volume whose install just ended out of reach while its owner's liveness settles.
 */
export const UNPUBLISHED_MIN_AGE_MS = 10 * 60_000;

const VOLUME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** What the volume sweep did. */
export interface VolumeSweepReport {
  readonly removed: string[];
  readonly kept: { readonly name: string; readonly reason: string }[];
}

/**
 * Removes the unpublished dependency data volumes of dead owners on the engine of `opts`.
 * @param minAgeMs youngest volume removed (default {@link UNPUBLISHED_MIN_AGE_MS}; tests pass 0)
 * @param nowMs the time to age volumes against (default now)
 * @returns the report; an engine that cannot list volumes gives an empty one (the container sweep reports the engine)
 */
export async function sweepUnpublishedSets(
  opts: DockerOptions, probe: ProcessProbe, leases: LeaseView, minAgeMs = UNPUBLISHED_MIN_AGE_MS, nowMs = Date.now(),
): Promise<VolumeSweepReport> {
  const list = async (label: string) => {
    const r = await docker(opts, ['volume', 'ls', '-q', '--filter', `label=${label}`]);
    return r.exitCode === 0 ? r.stdout.split('\n').map((s) => s.trim()).filter((s) => VOLUME.test(s)) : undefined;
  };
  const names = await list(DEPS_DATA_LABEL);
  const all = await list(DEPS_KEY_LABEL);
  if (!names || !all) return { removed: [], kept: [] };
  const rows = async (vols: readonly string[]) => {
    if (vols.length === 0) return [];
    const r = await docker(opts, ['volume', 'inspect', '--', ...vols]);
    return r.exitCode === 0 ? (JSON.parse(r.stdout || '[]') as { Name?: string; CreatedAt?: string; Labels?: Record<string, string> | null }[]) : [];
  };
  // Referenced by a name volume: published (or being published), never swept.
  const published = new Set((await rows(names)).map((v) => v.Labels?.[DEPS_DATA_LABEL]).filter((d): d is string => !!d));
  const candidates = all.filter((v) => !names.includes(v) && !published.has(v));
  const removed: string[] = [];
  const kept: { name: string; reason: string }[] = [];
  for (const v of await rows(candidates)) {
    if (!v.Name) continue;
    const created = Date.parse(v.CreatedAt ?? '');
    if (!Number.isFinite(created) || nowMs - created < minAgeMs) {
      kept.push({ name: v.Name, reason: `it is an unpublished dependency volume younger than ${Math.round(minAgeMs / 60_000)} minutes` });
      continue;
    }
    const owner = containerLiveness(v.Labels ?? {}, probe, leases);
    if (owner.state !== 'dead') {
      kept.push({ name: v.Name, reason: owner.reason });
      continue;
    }
    const r = await docker(opts, ['volume', 'rm', v.Name]);
    if (r.exitCode === 0) removed.push(v.Name);
    else kept.push({ name: v.Name, reason: r.stderr.trim().split('\n')[0]!.slice(0, 200) });
  }
  return { removed, kept };
}
