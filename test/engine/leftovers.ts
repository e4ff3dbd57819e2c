/**
 * Which product containers a finished test (or the whole engine run) left behind. Declares no
 * tests and no hooks, so the root hook plugin (leftovers.hooks.ts), loaded before mocha defines
 * its globals, can use it as the suites do (through helpers.ts `productContainers`).
 */
import { LABELS, PRODUCT_FILTER } from '../../src/core/ownership/labels';
import { awaitRemovals } from '../../src/core/container/removals';
import type { WarmPool } from '../../src/core/run/warm';
import { containerNames, engineCli, engineKind } from '../support/engine';

/**
 * Where the warm path's one pool per mocha process is kept (helpers.ts creates it): each suite
 * file is bundled with its own copy of the helpers, so the pool lives on `globalThis`.
 */
export const POOL_KEY = Symbol.for('sandbox-runner.test.warm-pool');

/** The warm path's shared pool of this mocha process, if one was made. */
export function sharedPool(): WarmPool | undefined {
  return (globalThis as { [POOL_KEY]?: WarmPool })[POOL_KEY];
}

/** Where the root hook plugin (leftovers.hooks.ts) keeps the pids of every process this test process spawned. */
export const SPAWNED_KEY = Symbol.for('sandbox-runner.test.spawned-pids');

/** Pids of the processes this test process spawned (a `sandbox-run` child owns its containers), as recorded by the root hook plugin. */
export function spawnedPids(): ReadonlySet<number> {
  return (globalThis as { [SPAWNED_KEY]?: Set<number> })[SPAWNED_KEY] ?? new Set();
}

/**
 * Product containers (any state) on the engine under test left behind by `ownerPid` (default:
 * this test process), or with `'mine'` by this process and every process it spawned (the engine
 * may be shared with other clients, issue 25: their containers are never counted). Warm containers waiting in this process's pool
 * are not leftovers; everything else is. The pool's preparations and the background removals
 * (removals.ts) are awaited first: a run's result comes before its container's removal ends.
 * @throws when the engine CLI fails
 */
export async function productContainers(ownerPid: number | 'mine' = process.pid): Promise<string[]> {
  const pool = sharedPool();
  await pool?.settled();
  await awaitRemovals();
  const idle = new Set(pool?.idleNames() ?? []);
  if (ownerPid !== 'mine') return (await containerNames(`label=${LABELS.ownerPid}=${ownerPid}`)).filter((n) => !idle.has(n));
  // One listing of every product container with its owner, filtered here: the suites spawn
  // thousands of processes (every engine CLI call is one), far too many for a `docker ps` each.
  const owners = new Set([process.pid, ...spawnedPids()].map(String));
  // Docker's `ps` reads one label with `.Label`; Podman's has none (its `.Labels` is a map, read
  // with `index`), and fails the whole listing on the first row otherwise.
  const label = engineKind() === 'podman' ? `{{index .Labels "${LABELS.ownerPid}"}}` : `{{.Label "${LABELS.ownerPid}"}}`;
  const r = await engineCli(['ps', '-a', '--filter', PRODUCT_FILTER, '--format', `{{.Names}}\t${label}`], { stdin: 'ignore', timeout: 30_000 });
  return String(r.stdout).split('\n').filter(Boolean).map((line) => line.split('\t')).filter(([n, pid]) => n && owners.has(pid ?? '') && !idle.has(n)).map(([n]) => n!);
}
