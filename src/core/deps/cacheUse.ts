/**
 * When each dependency set was last used by this user (issue 22's least-recently-used pruning):
 * a small JSON file in the state directory (stateDir.ts), `{ "<set key>": <ms since the epoch> }`,
 * written after every install or cache hit. Engine volumes carry no access time, so the order
 * comes from here; a set this file does not know (used by another user or client) counts as used
 * when it was published (its name volume's creation time). Best effort: a file that cannot be
 * read or written only makes pruning fall back to the publication order; it never fails a run.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../stateDir';

/** The file's name in the state directory. */
export const CACHE_USE_FILE = 'dependency-sets-used.json';
/** Most sets remembered (the least recently used are forgotten first). */
const MAX_ENTRIES = 2000;

/**
 * Last use (ms since the epoch) of each set key this user recorded; {} when there is no file or it is unreadable.
 * @param dir FOR TESTS: the state directory (default `stateDir()`)
 */
export function setUses(dir = stateDir()): Record<string, number> {
  try {
    const data = JSON.parse(readFileSync(join(dir, CACHE_USE_FILE), 'utf8')) as unknown;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
    return Object.fromEntries(Object.entries(data).filter(([k, v]) => /^[0-9a-f]{64}$/.test(k) && typeof v === 'number' && Number.isFinite(v)));
  } catch {
    return {};
  }
}

/**
 * Records that set `key` (64 hex digits) was used at `now` (ms). Never throws.
 * @param dir FOR TESTS: the state directory (default `stateDir()`)
 */
export function noteSetUse(key: string, now = Date.now(), dir = stateDir()): void {
  try {
    const uses = { ...setUses(dir), [key]: now };
    const kept = Object.entries(uses).sort((a, b) => b[1] - a[1]).slice(0, MAX_ENTRIES);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `${CACHE_USE_FILE}.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(kept)), { mode: 0o600 });
    renameSync(tmp, join(dir, CACHE_USE_FILE));
  } catch {
    // Best effort (see the module comment).
  }
}

/** A published set as pruning sees it. */
export interface CachedSet {
  /** The set key (64 hex digits). */
  readonly key: string;
  /** The name volume that publishes it. */
  readonly name: string;
  /** The data volume. */
  readonly data: string;
  /** Installed size, KiB (the install measured it). */
  readonly kib: number;
  /** Last use, ms since the epoch ({@link setUses}, else its publication). */
  readonly usedAt: number;
}

/**
 * Which sets to remove so the rest fit in `capMiB`: the least recently used first, never one in
 * `keep` (e.g. the set just installed). Pure.
 * @returns the sets to remove, in removal order
 */
export function setsOverCap(sets: readonly CachedSet[], capMiB: number, keep: ReadonlySet<string> = new Set()): CachedSet[] {
  let total = sets.reduce((n, s) => n + s.kib, 0);
  const out: CachedSet[] = [];
  for (const s of [...sets].sort((a, b) => a.usedAt - b.usedAt)) {
    if (total <= capMiB * 1024) break;
    if (keep.has(s.key)) continue;
    out.push(s);
    total -= s.kib;
  }
  return out;
}
