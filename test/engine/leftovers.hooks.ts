/**
 * Root hook plugin of the engine suites: every engine mocha run in package.json loads it with
 * `--require out/test/engine/leftovers.hooks.js` (test:engine, test:engine:warm,
 * test:engine:remote, test:engine:podman cold and warm). Its `afterAll` runs on mocha's root suite
 * after every test file of the run, whatever the files are called (it replaces zz-leftovers.test.ts,
 * which relied on name sorting to run last): no container with the product label may remain on
 * the engine under test. A failure fails the run ("after all" hook in "{root}").
 * Mocha loads this before it defines `describe`/`after`: it imports nothing that declares them.
 */
import assert from 'node:assert/strict';
import type { Context } from 'mocha';
import { requireEngine } from '../support/engine';
import { productContainers } from './leftovers';

export const mochaHooks = {
  /** After all engine suites: no product container remains (warm ones still idle in the suites' own pool excepted). */
  async afterAll(this: Context): Promise<void> {
    this.timeout(60_000);
    await requireEngine();
    const left = await productContainers('any');
    assert.deepEqual(left, [], `after all engine suites, containers with the product label remain: ${left.join(', ')}`);
    console.log('  after all engine suites: no container with the product label remains');
  },
};
