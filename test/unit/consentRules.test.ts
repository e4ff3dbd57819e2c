import assert from 'node:assert/strict';
import { CONSENT_RULES, ruleLoosenings, type RuleKind } from '../../src/core/admission/consentRules';
import { compareToBaseline } from '../../src/core/admission/loosening';
import { profileSchema, ProfileSchema, type Profile } from '../../src/core/profiles/profileSchema';

const base = ProfileSchema.parse({ image: 'img:1', command: ['python3', '${file}'] });
const granted = ProfileSchema.parse({ image: 'img:1', command: ['python3', '${file}'], network: 'bridge' });
const withMount = ProfileSchema.parse({ image: 'img:1', command: ['python3', '${file}'], mounts: [{ source: '/home/u/data', target: '/data' }] });

/** The keys `compareToBaseline` reports for `effective` (baseline `from`, defaults to `base`) merged over `from`. */
function keys(over: Record<string, unknown>, from: Profile = base): string[] {
  const effective = ProfileSchema.parse({ ...from, ...over });
  return compareToBaseline('p', effective, from).loosenings.map((l) => l.key);
}

describe('consent rules, one per profile key (unit)', () => {
  it('the table has exactly the profile schema\'s top-level keys', () => {
    const schemaKeys = Object.keys(profileSchema()._zod.def.shape).sort();
    assert.deepEqual(Object.keys(CONSENT_RULES).sort(), schemaKeys);
  });

  it('each rule names a kind', () => {
    const kinds = new Set<RuleKind>(['free', 'wider', 'withMounts', 'withGrants']);
    for (const [name, rule] of Object.entries(CONSENT_RULES)) assert.ok(kinds.has(rule.kind), name);
  });

  it('"wider": a loosening asks consent, a tightening does not', () => {
    assert.deepEqual(keys({ network: 'bridge' }), ['sandboxRunner.profiles.p.network']);
    assert.deepEqual(keys({ network: 'none' }, granted), []);
    assert.deepEqual(keys({ limits: { ...base.limits, memoryMiB: base.limits.memoryMiB * 2 } }), ['sandboxRunner.profiles.p.limits.memoryMiB']);
    assert.deepEqual(keys({ limits: { ...base.limits, memoryMiB: 64 } }), []);
    assert.deepEqual(keys({ mounts: [{ source: '/home/u/other', target: '/o', mode: 'ro' }] }), ['sandboxRunner.profiles.p.mounts.0']);
    assert.deepEqual(keys({ mounts: [] }, withMount), []);
    assert.deepEqual(keys({ workspace: 'ro' }), ['sandboxRunner.profiles.p.workspace']);
    assert.deepEqual(keys({ dependencies: ['requests'] }), ['sandboxRunner.profiles.p.dependencies']);
    assert.deepEqual(keys({ dependencies: [] }, ProfileSchema.parse({ ...base, dependencies: ['requests'] })), []);
    const gvisor = ProfileSchema.parse({ ...base, runtime: 'runsc' });
    assert.deepEqual(keys({ runtime: undefined }, gvisor), ['sandboxRunner.profiles.p.runtime']);
    assert.deepEqual(keys({ runtime: 'runsc' }), []);
  });

  it('"withMounts": another user with bind mounts asks consent, without mounts it does not', () => {
    assert.deepEqual(keys({ user: '1000:1000' }, withMount), ['sandboxRunner.profiles.p.user']);
    assert.deepEqual(keys({ user: '1000:1000' }), []);
  });

  it('"withGrants": a change of a profile with grants asks consent, of one without grants does not', () => {
    const changes: Record<string, unknown> = {
      image: 'evil:1', command: ['sh', '${file}'], compile: ['cc', '${file}', '-o', '${out}'],
      env: { LD_PRELOAD: '/tmp/x.so' }, modulePathEnv: 'PYTHONPATH',
    };
    for (const [name, value] of Object.entries(changes)) {
      assert.deepEqual(keys({ [name]: value }, granted), [`sandboxRunner.profiles.p.${name === 'env' ? 'env.LD_PRELOAD' : name}`], name);
      assert.deepEqual(keys({ [name]: value }, withMount).length, 1, `${name} with a mount`);
      assert.deepEqual(keys({ [name]: value }), [], `${name} without grants`);
    }
    // A variable the workspace removes from such a profile (e.g. PYTHONNOUSERSITE) is a change too.
    const withEnv = ProfileSchema.parse({ ...granted, env: { PYTHONSAFEPATH: '1' } });
    assert.deepEqual(keys({ env: {} }, withEnv), ['sandboxRunner.profiles.p.env.PYTHONSAFEPATH']);
  });

  it('"free": workdir, line endings, languages, extensions and shebangs never ask consent by themselves', () => {
    assert.deepEqual(keys({ workdir: '/w', lineEndings: 'keep', languages: ['x'], extensions: ['.x'], shebangs: ['x'] }, granted), []);
    for (const [name, rule] of Object.entries(CONSENT_RULES)) {
      if (rule.kind === 'free') assert.ok(['workdir', 'lineEndings', 'languages', 'extensions', 'shebangs'].includes(name), name);
    }
  });

  it('ruleLoosenings lists loosenings in table order', () => {
    const effective = ProfileSchema.parse({ ...granted, runtime: undefined, dependencies: ['x'], image: 'evil:1', limits: { ...base.limits, pids: 1000 } });
    const names = ruleLoosenings({ key: 'k', effective, baseline: granted, realEffective: effective, realBaseline: granted, granted: true }).map((l) => l.key);
    assert.deepEqual(names, ['k.limits.pids', 'k.image', 'k.dependencies']);
  });
});
