/**
 * The ONE place that knows how the benchmark runs a snippet on the warm-start path (a container
 * pre-created and started per profile, blocked until it gets the code on stdin).
 *
 * Wired to src/core/warm.ts (commit 0716b36, "Warm start: a per-profile pool…"):
 *   const pool = new WarmPool({ docker, onLog });
 *   pool.prepare(name, profile); await pool.ready(name, profile);   // untimed
 *   await runInSandbox({ ...req, warm: pool });                       // timed
 *   pool.idleNames()                                                  // which container is warm
 *   await pool.dispose();
 * Everything is looked up dynamically (no compile-time dependency on the pool's API), so if the
 * core has no `WarmPool` export the benchmark still builds and reports the cold core's ratio as
 * `warm_ratio`, marked "(no warm path yet)". If the API changes, adjust `createWarmRunner` only.
 * BENCH_WARM_EXPORT names a different export; BENCH_WARM=off forces the "no warm path" branch.
 */
import * as core from '../../src/core';
import type { Profile, RunRequest, RunResult } from '../../src/core';
import { log, sleep } from './stats';

export interface WarmRunner {
  /** How the warm path was found, for the table. */
  readonly label: string;
  /**
   * Untimed: resolves when a warm container for this profile is ready (false when the pool
   * could not make one, so the next run will be cold).
   */
  ready(profileName: string, profile: Profile): Promise<boolean>;
  /** Timed: one run on the warm path; `warm` says whether it really took a warm container (undefined: unknown). */
  run(req: RunRequest): Promise<{ result: RunResult; warm: boolean | undefined }>;
  dispose(): Promise<void>;
}

type AnyFn = (...args: unknown[]) => unknown;
type Bag = Record<string, unknown>;

function fn(obj: Bag, name: string): AnyFn | undefined {
  const f = obj[name];
  return typeof f === 'function' ? (f as AnyFn).bind(obj) : undefined;
}

/** The warm path if the core has one, else undefined. */
export async function createWarmRunner(
  docker: RunRequest['docker'],
  experiment: { deferReplacement?: boolean } = {},
): Promise<WarmRunner | undefined> {
  if (process.env.BENCH_WARM === 'off') return undefined;
  const exportName = process.env.BENCH_WARM_EXPORT ?? 'WarmPool';
  const Pool = (core as unknown as Bag)[exportName];
  if (typeof Pool !== 'function') return undefined;

  const pool = new (Pool as new (opts: unknown) => Bag)({ docker, onLog: (m: string) => log(`warm pool: ${m}`) });
  const prepare = fn(pool, 'prepare');
  const ready = fn(pool, 'ready');
  const idleNames = fn(pool, 'idleNames');
  const dispose = fn(pool, 'dispose');
  if (!prepare || !ready) throw new Error(`core.${exportName} has no prepare()/ready(): update scripts/bench/warm.ts`);
  // Experiment (--explain only): hold back the replacement that take() starts at once until the
  // run has resolved, to see what the background create/start costs the run it overlaps.
  let deferring = false;
  const deferred: unknown[][] = [];
  if (experiment.deferReplacement) {
    pool.prepare = (...args: unknown[]) => {
      if (deferring) deferred.push(args);
      else prepare(...args);
    };
  }
  return {
    label: `core.${exportName}, runInSandbox({ warm: pool })` + (experiment.deferReplacement ? ' [replacement deferred]' : ''),
    ready: async (name, profile) => {
      prepare(name, profile);
      const ok = (await ready(name, profile)) === true;
      if (!ok) await sleep(100);
      return ok;
    },
    run: async (req) => {
      const before = idleNames ? new Set(idleNames() as string[]) : undefined;
      deferring = !!experiment.deferReplacement;
      try {
        const result = await core.runInSandbox({ ...req, warm: pool } as unknown as RunRequest);
        return { result, warm: before ? before.has(result.containerName) : undefined };
      } finally {
        deferring = false;
        for (const args of deferred.splice(0)) prepare(...args);
      }
    },
    dispose: async () => {
      await dispose?.();
    },
  };
}
