/**
 * The end-of-suite check of the (host) and (multiroot) suites, run as a mocha root after-all hook
 * (../lib/mochaSuite.ts `afterAll`), so after every test whatever its file's name.
 */
import * as assert from 'node:assert/strict';
import { cleanUp, ownContainers } from './helpers';

/** Fails, naming them, when a container created by this extension host is left; removes them either way. */
export async function noContainerLeft(): Promise<void> {
  const left = await ownContainers();
  await cleanUp();
  assert.deepEqual(left, [], `containers left behind by the host suites: ${left.join(', ')}`);
  console.log(`      after all tests: no container of this extension host (owner pid ${process.pid}) is left`);
}
