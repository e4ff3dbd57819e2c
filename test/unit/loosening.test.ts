import assert from 'node:assert/strict';
import { compareToBaseline, looseningFingerprint, ProfileSchema, workspaceLoosenings } from '../../src/core';

const base = ProfileSchema.parse({ image: 'img', command: ['${file}'] });

describe('workspace loosening (unit)', () => {
  it('finds nothing when a workspace only tightens', () => {
    const tighter = ProfileSchema.parse({ image: 'other', command: ['${file}'], limits: { memoryMiB: 64, timeoutSeconds: 5, pids: 16 }, runtime: 'runsc' });
    const r = compareToBaseline('p', tighter, base);
    assert.deepEqual(r.loosenings, []);
    assert.ok(r.addedArgs.includes('--memory 64m'));
  });

  it('lists each loosening by key, with the docker arguments that differ', () => {
    const looser = ProfileSchema.parse({
      image: 'img', command: ['${file}'], network: 'bridge', limits: { memoryMiB: 4096, outputBytes: 1e8 },
      mounts: [{ source: '/home/u/data', target: '/data', mode: 'rw' }],
    });
    const r = compareToBaseline('p', looser, base);
    assert.deepEqual(r.loosenings.map((l) => l.key), [
      'sandboxRunner.profiles.p.network',
      'sandboxRunner.profiles.p.limits.memoryMiB',
      'sandboxRunner.profiles.p.limits.outputBytes',
      'sandboxRunner.profiles.p.mounts.0',
    ]);
    assert.deepEqual(r.addedArgs, ['--network bridge', '--memory 4096m', '--memory-swap 4096m', '--mount type=bind,src=/home/u/data,dst=/data']);
    assert.deepEqual(r.removedArgs, ['--network none', '--memory 512m', '--memory-swap 512m']);
  });

  it('compares a workspace profile with the same-named user/built-in profile, and global defaults with user-only ones', () => {
    const reports = workspaceLoosenings(
      [
        { source: 'user', value: { python: { limits: { timeoutSeconds: 120 } } } },
        { source: 'workspace', value: { python: { limits: { timeoutSeconds: 60 } }, shell: { network: 'bridge' }, fresh: { image: 'x', command: ['${file}'], limits: { pids: 1000 } } } },
      ],
      { limitDefaults: { outputBytes: 1 << 22 } },
      {},
    );
    assert.equal(reports.get('python')?.loosenings.length, 1, 'tighter timeout, but the workspace raised the global output bound');
    assert.match(reports.get('python')!.loosenings[0]!.description, /outputBytes/);
    assert.deepEqual(reports.get('shell')?.loosenings.map((l) => l.description), ['network: none → bridge', 'outputBytes: 1048576 → 4194304 bytes per stream']);
    assert.ok(reports.get('fresh')?.loosenings.some((l) => l.key.endsWith('limits.pids')));
  });

  it('fingerprints change when the workspace swaps the image or command of a loosened profile', () => {
    const looser = (image: string, command: string[]) =>
      compareToBaseline('p', ProfileSchema.parse({ image, command, network: 'bridge' }), base);
    const a = looseningFingerprint(looser('img', ['${file}']));
    assert.notEqual(a, looseningFingerprint(looser('evil/img', ['${file}'])));
    assert.notEqual(a, looseningFingerprint(looser('img', ['sh', '${file}'])));
  });

  it('fingerprints change when the loosening grows', () => {
    const a = compareToBaseline('p', ProfileSchema.parse({ image: 'img', command: ['${file}'], network: 'bridge' }), base);
    const b = compareToBaseline('p', ProfileSchema.parse({ image: 'img', command: ['${file}'], network: 'bridge', limits: { cpus: 4 } }), base);
    assert.notEqual(looseningFingerprint(a), looseningFingerprint(b));
    assert.equal(looseningFingerprint(a), looseningFingerprint(compareToBaseline('p', ProfileSchema.parse({ image: 'img', command: ['${file}'], network: 'bridge' }), base)));
  });
});
