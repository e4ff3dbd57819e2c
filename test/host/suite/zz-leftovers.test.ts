/** Runs last (files load in name order): nothing this extension host started is left over. */
import * as assert from 'node:assert/strict';
import { cleanUp, ownContainers } from './helpers';

describe('leftovers (host)', function () {
  it('no container created by this extension host is left', async function () {
    const left = await ownContainers();
    await cleanUp();
    assert.deepEqual(left, [], `containers left behind by the host suites: ${left.join(', ')}`);
  });
});
