import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareToBaseline, looseningFingerprint, routeLoosening, workspaceLoosenings } from '../../src/core/admission/loosening';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import type { ProfileLayer } from '../../src/core/profiles/profileResolution';
import { profileOf } from '../support/profiles';

const base = profileOf();

describe('workspace loosening (unit)', () => {
  it('finds nothing when a workspace only tightens', () => {
    const tighter = ProfileSchema.parse({ image: 'other', command: ['${file}'], limits: { memoryMiB: 64, timeoutSeconds: 5, pids: 16 }, runtime: 'runsc' });
    const r = compareToBaseline('p', tighter, base);
    assert.deepEqual(r.loosenings, []);
    assert.ok(r.addedArgs.includes('--memory 64m'));
  });

  it('lineEndings "keep" is no loosening and changes no docker argument', () => {
    const keep = profileOf({ lineEndings: 'keep' });
    const r = compareToBaseline('p', keep, base);
    assert.deepEqual(r.loosenings, []);
    assert.deepEqual([r.addedArgs, r.removedArgs], [[], []]);
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
    const a = compareToBaseline('p', profileOf({ network: 'bridge' }), base);
    const b = compareToBaseline('p', profileOf({ network: 'bridge', limits: { cpus: 4 } }), base);
    assert.notEqual(looseningFingerprint(a), looseningFingerprint(b));
    assert.equal(looseningFingerprint(a), looseningFingerprint(compareToBaseline('p', profileOf({ network: 'bridge' }), base)));
  });

  it('a different user is a loosening when the profile has bind mounts, and only then', () => {
    const mount = { source: '/home/u/proj', target: '/proj' };
    const withMount = profileOf({ mounts: [mount] });
    const asUser = (user: string, mounts: unknown[] = [mount]) =>
      compareToBaseline('p', profileOf({ mounts, user }), withMount);
    const r = asUser('1000:1000');
    assert.deepEqual(r.loosenings, [{ key: 'sandboxRunner.profiles.p.user', description: 'user: 65534:65534 → 1000:1000 with bind mounts' }]);
    assert.equal(r.addedArgs[0], '--user 1000:1000');
    assert.deepEqual(asUser('65534:65534').loosenings, [], 'the same user with the same mount loosens nothing');
    assert.deepEqual(asUser('1000:1000', []).loosenings, [], 'without a mount a UID reaches no host file');
    // Through the workspace layer: the user's own profile mounts a directory, the workspace only changes user.
    const reports = workspaceLoosenings([
      { source: 'user', value: { proj: { image: 'img', command: ['${file}'], mounts: [mount] } } },
      { source: 'workspace', value: { proj: { user: '1000:1000' } } },
    ]);
    assert.deepEqual(reports.get('proj')?.loosenings.map((l) => l.key), ['sandboxRunner.profiles.proj.user']);
  });

  describe('mount sources through symlinks', () => {
    let dir: string;
    let link: string;
    before(() => {
      dir = realpathSync(mkdtempSync(join(tmpdir(), 'sr-loosening-')));
      for (const d of ['a', 'b']) mkdirSync(join(dir, d));
      link = join(dir, 'link');
      symlinkSync(join(dir, 'a'), link);
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    const layers = (source: string, mode = 'ro', user?: Record<string, unknown>) => [
      { source: 'user' as const, value: user ?? {} },
      { source: 'workspace' as const, value: { proj: { image: 'img', command: ['${file}'], mounts: [{ source, target: '/data', mode }] } } },
    ];

    it('reports raw → resolved and builds the docker arguments from the resolved path', () => {
      const r = workspaceLoosenings(layers(link)).get('proj')!;
      assert.deepEqual(r.loosenings.map((l) => l.description), [`new ro bind mount of host path ${link} → ${join(dir, 'a')} at /data`]);
      assert.deepEqual(r.addedArgs, [`--mount type=bind,src=${join(dir, 'a')},dst=/data,readonly`]);
      const direct = workspaceLoosenings(layers(join(dir, 'b'))).get('proj')!;
      assert.deepEqual(direct.loosenings.map((l) => l.description), [`new ro bind mount of host path ${join(dir, 'b')} at /data`], 'no arrow without a symlink');
    });

    it('retargeting the symlink changes the fingerprint, so consent is asked again', () => {
      const before = looseningFingerprint(workspaceLoosenings(layers(link)).get('proj')!);
      unlinkSync(link);
      symlinkSync(join(dir, 'b'), link);
      try {
        const after = workspaceLoosenings(layers(link)).get('proj')!;
        assert.notEqual(looseningFingerprint(after), before);
        assert.ok(after.addedArgs.some((a) => a.includes(`src=${join(dir, 'b')},`)), after.addedArgs.join(' '));
      } finally {
        unlinkSync(link);
        symlinkSync(join(dir, 'a'), link);
      }
    });

    it('compares where mounts lead: a link to the user\'s own mount is no new mount, but making it writable is', () => {
      const own = { proj: { image: 'img', command: ['${file}'], mounts: [{ source: join(dir, 'a'), target: '/data', mode: 'ro' }] } };
      assert.equal(workspaceLoosenings(layers(link, 'ro', own)).get('proj'), undefined);
      const rw = workspaceLoosenings(layers(link, 'rw', own)).get('proj')!;
      assert.deepEqual(rw.loosenings.map((l) => l.description), [`bind mount ${link} → ${join(dir, 'a')} becomes writable (ro → rw)`]);
    });

    it('keeps the path as written when it does not exist (the run refuses it)', () => {
      const missing = join(dir, 'missing');
      const r = workspaceLoosenings(layers(missing)).get('proj')!;
      assert.deepEqual(r.loosenings.map((l) => l.description), [`new ro bind mount of host path ${missing} at /data`]);
      assert.deepEqual(r.addedArgs, [`--mount type=bind,src=${missing},dst=/data,readonly`]);
    });

    it('compareToBaseline stays pure: without a resolver it compares the paths as written', () => {
      const p = profileOf({ mounts: [{ source: link, target: '/data' }] });
      assert.deepEqual(compareToBaseline('p', p, base).addedArgs, [`--mount type=bind,src=${link},dst=/data,readonly`]);
      assert.deepEqual(compareToBaseline('p', p, base, () => '/x').addedArgs, ['--mount type=bind,src=/x,dst=/data,readonly']);
    });
  });
});

describe('workspace re-routing into another profile (unit)', () => {
  // The user's own loose profile: network and a read-write mount, for their own trusted tools.
  const user: ProfileLayer = {
    source: 'user',
    value: {
      net: { image: 'tools/net:1', command: ['python3', '${file}'], network: 'bridge', mounts: [{ source: '/srv/user-project', target: '/work', mode: 'rw' }] },
      tight: { image: 'tools/tight:1', command: ['python3', '${file}'], limits: { memoryMiB: 128, timeoutSeconds: 5 } },
    },
  };
  const py = { languageId: 'python', fileName: '/repo/evil.py' };
  const ws = (value: unknown): ProfileLayer => ({ source: 'workspace', value });

  it('a workspace adding "languages": ["python"] to the user\'s loose profile needs consent', () => {
    const layers = [user, ws({ net: { languages: ['python'] } })];
    // Today's decision: the profile itself is unchanged by the workspace, so nothing is reported.
    assert.equal(workspaceLoosenings(layers).get('net'), undefined);
    const r = routeLoosening({ layers }, py);
    assert.ok(r, 'the re-route into "net" must need consent');
    assert.equal(r.profileName, 'net');
    assert.deepEqual(r.loosenings.map((l) => l.description), [
      'workspace settings send this file to profile "net" instead of "python"',
      'network: none → bridge',
      'new rw bind mount of host path /srv/user-project at /work',
    ]);
    assert.ok(r.addedArgs.includes('--network bridge'));
    // Without the workspace layer the same file needs nothing.
    assert.equal(routeLoosening({ layers: [user] }, py), undefined);
  });

  it('a workspace setting defaultProfile to the user\'s loose profile needs consent', () => {
    const txt = { languageId: 'plaintext', fileName: '/repo/notes.txt' };
    const r = routeLoosening({ layers: [user, ws(undefined)], defaultProfile: 'net', baselineDefaultProfile: undefined }, txt);
    assert.ok(r);
    assert.equal(r.loosenings[0]!.key, 'sandboxRunner.defaultProfile');
    assert.match(r.loosenings[0]!.description, /to profile "net" instead of no profile/);
    assert.ok(r.loosenings.some((l) => l.description === 'network: none → bridge'));
    // Over the user's own default "python": the same.
    const over = routeLoosening({ layers: [user], defaultProfile: 'net', baselineDefaultProfile: 'python' }, txt);
    assert.match(over?.loosenings[0]?.description ?? '', /to profile "net" instead of "python"/);
    // The user's own default, unchanged by the workspace: the user chose it.
    assert.equal(routeLoosening({ layers: [user], defaultProfile: 'net', baselineDefaultProfile: 'net' }, txt), undefined);
  });

  it('consent is asked again when the workspace also swaps that profile\'s image or command', () => {
    const plain = routeLoosening({ layers: [user, ws({ net: { languages: ['python'] } })] }, py)!;
    const image = routeLoosening({ layers: [user, ws({ net: { languages: ['python'], image: 'evil/img:1' } })] }, py)!;
    const command = routeLoosening({ layers: [user, ws({ net: { languages: ['python'], command: ['sh', '-c', 'curl x', '${file}'] } })] }, py)!;
    assert.equal(image.image, 'evil/img:1');
    assert.notEqual(looseningFingerprint(image), looseningFingerprint(plain));
    assert.notEqual(looseningFingerprint(command), looseningFingerprint(plain));
  });

  it('a workspace that only tightens, or re-routes into a tighter profile, needs no consent', () => {
    assert.equal(routeLoosening({ layers: [user, ws({ tight: { languages: ['python'] } })] }, py), undefined);
    assert.equal(routeLoosening({ layers: [user, ws({ shell: { extensions: ['.py'], languages: ['python'] } })] }, py), undefined);
    assert.equal(routeLoosening({ layers: [user, ws({ python: { limits: { memoryMiB: 64 } } })] }, py), undefined);
    assert.equal(routeLoosening({ layers: [user], defaultProfile: 'tight' }, { languageId: 'plaintext', fileName: 'a.txt' }), undefined);
    // An explicit choice of the user's profile by name is the user's own decision.
    assert.equal(routeLoosening({ layers: [user, ws({ net: { languages: ['python'] } })] }, { ...py, name: 'net' }), undefined);
  });

  it('still reports a workspace that loosens the profile the file resolves to anyway', () => {
    const r = routeLoosening({ layers: [user, ws({ python: { network: 'bridge' } })] }, py);
    assert.deepEqual(r?.loosenings.map((l) => l.description), ['network: none → bridge']);
  });

  it('a workspace swapping the image or command of the user\'s profile with network or mounts needs consent', () => {
    const layers = (over: Record<string, unknown>) => [user, ws({ net: over })];
    const q = { name: 'net' };
    assert.deepEqual(routeLoosening({ layers: layers({ image: 'evil/img:1' }) }, q)?.loosenings.map((l) => l.key), ['sandboxRunner.profiles.net.image']);
    assert.deepEqual(routeLoosening({ layers: layers({ command: ['sh', '${file}'] }) }, q)?.loosenings.map((l) => l.key), ['sandboxRunner.profiles.net.command']);
    // Issue 23: a compile step runs with the same grants before the command.
    assert.deepEqual(routeLoosening({ layers: layers({ compile: ['sh', '-c', 'curl x', '${file}'] }) }, q)?.loosenings.map((l) => l.key), ['sandboxRunner.profiles.net.compile']);
    // env and modulePathEnv choose what the program loads as surely as the command does (attack3):
    // NODE_OPTIONS=--import=data:…, LD_PRELOAD, PYTHONPATH to a sitecustomize.py in the workspace mount.
    assert.deepEqual(routeLoosening({ layers: layers({ env: { NODE_OPTIONS: '--import=data:text/javascript,fetch("http://x")' } }) }, q)?.loosenings.map((l) => l.key), ['sandboxRunner.profiles.net.env.NODE_OPTIONS']);
    assert.deepEqual(routeLoosening({ layers: layers({ modulePathEnv: 'LD_PRELOAD' }) }, q)?.loosenings.map((l) => l.key), ['sandboxRunner.profiles.net.modulePathEnv']);
    const wsRo: ProfileLayer = { source: 'user', value: { py: { image: 'tools/py:1', command: ['python3', '${file}'], workspace: 'ro', env: { A: '1' } } } };
    assert.deepEqual(routeLoosening({ layers: [wsRo, ws({ py: { env: { PYTHONPATH: '/workspace/repo/evil' } } })] }, { name: 'py' })?.loosenings.map((l) => l.key), ['sandboxRunner.profiles.py.env.PYTHONPATH']);
    // The same swap on a profile with neither network nor mounts changes nothing the floor holds.
    assert.equal(routeLoosening({ layers: [user, ws({ tight: { image: 'evil/img:1', command: ['sh', '${file}'] } })] }, { name: 'tight' }), undefined);
  });
});
