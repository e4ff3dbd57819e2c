import assert from 'node:assert/strict';
import { withPreferredRuntime } from '../../src/core/profiles/preferRuntime';
import { profileOf } from '../support/profiles';

// Issue 25: sandboxRunner.preferRuntime (machine-scoped).
describe('preferred runtime (unit)', () => {
  it('gives a profile without a runtime the preferred one only where the engine offers it; a profile\'s own runtime wins', () => {
    const plain = profileOf();
    assert.equal(withPreferredRuntime(plain, 'runsc', ['runc', 'runsc']).runtime, 'runsc');
    assert.equal(withPreferredRuntime(plain, 'runsc', ['runc']), plain);
    assert.equal(withPreferredRuntime(plain, 'runsc', undefined), plain);
    assert.equal(withPreferredRuntime(plain, '', ['runc', 'runsc']), plain);
    assert.equal(withPreferredRuntime(plain, 'kata', ['kata']), plain, 'only a runtime a profile could name');
    const own = profileOf({ runtime: 'runsc' });
    assert.equal(withPreferredRuntime(own, 'runsc', ['runc']), own);
  });
});
