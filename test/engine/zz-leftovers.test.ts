import assert from 'node:assert/strict';
import { productContainers, requireEngine } from './helpers';

// Loaded last (mocha sorts files): after every engine suite, nothing of ours may remain.
describe('after all engine suites (engine)', () => {
  it('no container with the product label remains', async () => {
    await requireEngine();
    assert.deepEqual(await productContainers('any'), []);
  });
});
