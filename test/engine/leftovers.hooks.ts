/**
 * Root hook plugin of the engine suites: every engine mocha run in package.json loads it with
 * `--require out/test/engine/leftovers.hooks.js` (test:engine, test:engine:warm,
 * test:engine:remote, test:engine:podman cold and warm). Its `afterAll` runs on mocha's root suite
 * after every test file of the run, whatever the files are called (it replaces zz-leftovers.test.ts,
 * which relied on name sorting to run last): no container with the product label may remain on
 * the engine under test that this process or a process it spawned (a `sandbox-run` child) owns.
 * Other clients may share the engine (another suite, a `sandbox-run --reap` loop; issue 25): their
 * containers are not counted. Spawned pids are recorded by wrapping `child_process.spawn` when this
 * plugin loads (execa and the suites' bundles call it through the module object). A failure fails
 * the run ("after all" hook in "{root}").
 * Mocha loads this before it defines `describe`/`after`: it imports nothing that declares them.
 */
import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import type { Context } from 'mocha';
import { requireEngine } from '../support/engine';
import { productContainers, SPAWNED_KEY } from './leftovers';

const spawned = new Set<number>();
(globalThis as { [SPAWNED_KEY]?: Set<number> })[SPAWNED_KEY] = spawned;
const spawn = childProcess.spawn;
childProcess.spawn = function (this: unknown, ...args: unknown[]) {
  const child = (spawn as (...a: unknown[]) => childProcess.ChildProcess).apply(this, args);
  if (child.pid) spawned.add(child.pid);
  return child;
} as typeof childProcess.spawn;

export const mochaHooks = {
  /** After all engine suites: no product container of this process or its children remains (warm ones still idle in the suites' own pool excepted). */
  async afterAll(this: Context): Promise<void> {
    this.timeout(60_000);
    await requireEngine();
    const left = await productContainers('mine');
    assert.deepEqual(left, [], `after all engine suites, containers with the product label of this run remain: ${left.join(', ')}`);
    console.log('  after all engine suites: no container with the product label of this run remains');
  },
};
