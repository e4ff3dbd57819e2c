/**
 * Runs last (files load in name order): nothing but warm containers is left, a warm container is
 * waiting (so the runner's after-exit check — deactivate removes it — proves something), and the
 * hostile fake docker never ran. Writes the report runHostTests.ts reads after the host exits.
 */
import * as assert from 'node:assert/strict';
import { assertFakeDockerNeverRan, nonWarmContainers, waitForWarm, writeReport } from './helpers';

describe('end of the trust suite (trust host)', function () {
  it('leaves only warm containers, at least one of them waiting, for deactivate to remove', async function () {
    const left = await nonWarmContainers();
    assert.deepEqual(left, [], `containers other than warm ones left behind: ${left.join(', ')}`);
    const warm = await waitForWarm('python');
    console.log(`      warm container waiting at the end of the suite: ${warm} (owner pid ${process.pid})`);
  });

  it('the hostile workspace\'s dockerPath never ran', function () {
    assertFakeDockerNeverRan('at the end of the suite');
    writeReport({ finished: true });
  });
});
