import assert from 'node:assert/strict';
import { blockingIssues, pickProfile, resolveProfiles } from '../../src/core/profiles/profileResolution';
import { BUILTIN_PROFILES } from '../../src/core/profiles/defaults';
import { DEFAULT_LIMITS } from '../../src/core/profiles/limits';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';

describe('profiles (unit)', () => {
  it('resolves the built-in profiles, python with default limits', () => {
    const set = resolveProfiles([]);
    assert.deepEqual(set.issues, []);
    assert.deepEqual(set.profiles.map((p) => p.name), ['bash', 'c', 'cpp', 'go', 'java', 'node', 'perl', 'php', 'python', 'r', 'ruby', 'rust', 'shell', 'typescript']);
    const python = set.profiles.find((p) => p.name === 'python')!;
    assert.equal(python.profile.image, 'python:3.12-slim');
    assert.equal(python.profile.env.PYTHONUNBUFFERED, '1');
    assert.equal(python.profile.network, 'none');
    assert.equal(python.profile.user, '65534:65534');
    assert.deepEqual(python.profile.limits, { ...DEFAULT_LIMITS });
  });

  it('merges a workspace profile over the built-in of the same name, limits key by key', () => {
    const set = resolveProfiles([
      { source: 'workspace', value: { python: { image: 'local/python:1', limits: { pids: 64 } } } },
    ]);
    const python = pickProfile(set, { name: 'python' })!;
    assert.equal(python.source, 'workspace');
    assert.equal(python.profile.image, 'local/python:1');
    assert.equal(python.profile.limits.pids, 64);
    assert.equal(python.profile.limits.memoryMiB, DEFAULT_LIMITS.memoryMiB);
    assert.deepEqual(python.profile.command, BUILTIN_PROFILES.python!.command);
  });

  it('merges env key by key over the built-in, so setting env on python keeps PYTHONUNBUFFERED (issue 12)', () => {
    const set = resolveProfiles([
      { source: 'user', value: { python: { env: { FOO: 'user', PYTHONDONTWRITEBYTECODE: '0' } } } },
      { source: 'workspace', value: { python: { env: { BAR: 'ws' } } } },
    ]);
    const python = pickProfile(set, { name: 'python' })!;
    assert.deepEqual(python.profile.env, { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '0', FOO: 'user', BAR: 'ws' });
  });

  it('still reports a malformed env over a built-in (not an object) instead of merging it', () => {
    const set = resolveProfiles([{ source: 'user', value: { python: { env: ['X=1'] } } }]);
    assert.ok(set.issues.some((i) => i.key === 'sandboxRunner.profiles.python.env'));
  });

  it('returns every error of a profile, each naming the full setting key and what is allowed', () => {
    const set = resolveProfiles([
      {
        source: 'workspace',
        value: {
          bad: {
            image: '--privileged',
            command: ['python3'],
            limits: { memoryMiB: 0, pids: 'unlimited', cpus: -1, timeoutSeconds: 1e9 },
            network: 'host',
            user: '0:0',
            env: { 'BAD-NAME': 'x', OK: 'a\0b' },
            mounts: [{ source: 'relative/path', target: '/etc/x' }],
            workdir: '/proc/x',
            runtime: 'runc',
            extra: true,
          },
        },
      },
    ]);
    assert.equal(set.profiles.find((p) => p.name === 'bad'), undefined);
    const byKey = new Map(set.issues.map((i) => [i.key, i.message]));
    const expected: Record<string, RegExp> = {
      'sandboxRunner.profiles.bad.image': /image reference/,
      'sandboxRunner.profiles.bad.command': /\$\{file\}/,
      'sandboxRunner.profiles.bad.limits.memoryMiB': /from 16 to 65536 \(MiB\)/,
      'sandboxRunner.profiles.bad.limits.pids': /whole number from 8 to 4096/,
      'sandboxRunner.profiles.bad.limits.cpus': /from 0.01 to 64/,
      'sandboxRunner.profiles.bad.limits.timeoutSeconds': /seconds/,
      'sandboxRunner.profiles.bad.network': /"none".*"bridge"/,
      'sandboxRunner.profiles.bad.user': /non-root/,
      'sandboxRunner.profiles.bad.env.BAD-NAME': /A-Za-z_/,
      'sandboxRunner.profiles.bad.env.OK': /NUL/,
      'sandboxRunner.profiles.bad.mounts.0.source': /absolute host path/,
      'sandboxRunner.profiles.bad.mounts.0.target': /outside \/proc/,
      'sandboxRunner.profiles.bad.workdir': /absolute container path/,
      'sandboxRunner.profiles.bad.runtime': /runsc/,
      'sandboxRunner.profiles.bad.extra': /not a known setting/,
    };
    for (const [key, pattern] of Object.entries(expected)) {
      assert.match(byKey.get(key) ?? '(no issue)', pattern, key);
    }
    assert.equal(set.invalid[0]?.issues.length, set.issues.length);
  });

  it('rejects malformed layers and profile names without dropping the valid profiles', () => {
    const set = resolveProfiles([
      { source: 'user', value: ['not', 'an', 'object'] },
      { source: 'workspace', value: { 'bad name!': { image: 'x', command: ['${file}'] }, notObject: 3 } },
    ]);
    assert.equal(set.profiles.length, Object.keys(BUILTIN_PROFILES).length);
    assert.deepEqual(
      set.issues.map((i) => i.key),
      ['sandboxRunner.profiles', 'sandboxRunner.profiles.bad name!', 'sandboxRunner.profiles.notObject'],
    );
  });

  it('an invalid profile that lists the file\'s extension or language blocks the run it was meant for, not others', () => {
    // Meant to tighten .py runs (memoryMiB below the minimum): falling back to the built-in would run looser.
    const set = resolveProfiles([
      { source: 'workspace', value: { py3: { image: 'x', command: ['python3', '${file}'], extensions: ['.PY'], languages: ['python'], limits: { memoryMiB: 1 } } } },
    ]);
    const byFile = pickProfile(set, { fileName: '/w/a.py' })!;
    assert.equal(byFile.name, 'python');
    assert.deepEqual(blockingIssues(set, byFile.name, { fileName: '/w/a.py' }).map((i) => i.key), ['sandboxRunner.profiles.py3.limits.memoryMiB']);
    assert.equal(blockingIssues(set, 'python', { languageId: 'python', fileName: 'untitled' }).length, 1);
    // Another file, or an explicit profile choice, is not what it was meant for.
    assert.deepEqual(blockingIssues(set, 'shell', { fileName: '/w/a.sh' }), []);
    assert.deepEqual(blockingIssues(set, 'python', { name: 'python', fileName: '/w/a.py' }), []);
    // A user-level invalid profile does not block a run a valid workspace profile was chosen for.
    const layered = resolveProfiles([
      { source: 'user', value: { mine: { image: 'x', command: ['sh'], extensions: ['.py'], limits: { memoryMiB: 1 } } } },
      { source: 'workspace', value: { ws: { image: 'x', command: ['python3', '${file}'], extensions: ['.py'] } } },
    ]);
    assert.equal(pickProfile(layered, { fileName: 'a.py' })?.name, 'ws');
    assert.deepEqual(blockingIssues(layered, 'ws', { fileName: 'a.py' }), []);
  });

  it('refuses root in every spelling the user field allows', () => {
    for (const user of ['0:0', '0:1000', '1000:0', 'root', 'nobody:nogroup', '1000', '-1:-1']) {
      const r = ProfileSchema.safeParse({ image: 'x', command: ['${file}'], user });
      assert.equal(r.success, false, user);
    }
    assert.equal(ProfileSchema.safeParse({ image: 'x', command: ['${file}'], user: '1000:1000' }).success, true);
  });

  it('picks by name, then language id, then extension, preferring workspace over built-in', () => {
    const set = resolveProfiles([
      { source: 'workspace', value: { mine: { image: 'x', command: ['sh', '${file}'], extensions: ['.py'] } } },
    ]);
    assert.equal(pickProfile(set, { languageId: 'python' })?.name, 'python');
    assert.equal(pickProfile(set, { fileName: '/a/b/c.PY' })?.name, 'mine');
    assert.equal(pickProfile(set, { fileName: 'x.sh' })?.name, 'shell');
    assert.equal(pickProfile(set, { fileName: 'x.swift' }), undefined);
    assert.equal(pickProfile(set, { name: 'nope' }), undefined);
  });
});

describe('global limit defaults (unit)', () => {
  it('apply to every profile that does not set the limit, and are validated with it', () => {
    const set = resolveProfiles(
      [{ source: 'workspace', value: { python: { limits: { timeoutSeconds: 5 } } } }],
      undefined,
      { limitDefaults: { timeoutSeconds: 60, outputBytes: 4096 } },
    );
    assert.equal(pickProfile(set, { name: 'python' })?.profile.limits.timeoutSeconds, 5);
    assert.equal(pickProfile(set, { name: 'python' })?.profile.limits.outputBytes, 4096);
    assert.equal(pickProfile(set, { name: 'shell' })?.profile.limits.timeoutSeconds, 60);
    const bad = resolveProfiles([], undefined, { limitDefaults: { timeoutSeconds: 0 } });
    assert.equal(bad.profiles.length, 0);
    assert.ok(bad.issues.some((i) => i.key === 'sandboxRunner.profiles.shell.limits.timeoutSeconds'));
  });
});

describe('profile paths and values in normal form (unit)', () => {
  it('refuses container paths that are not in normal form, so reserved targets cannot be spelled around', () => {
    for (const target of ['//sandbox', '/tmp/', '/home/sandbox/.', '/data//x', '/a/./b']) {
      const r = ProfileSchema.safeParse({ image: 'i', command: ['${file}'], mounts: [{ source: '/srv/x', target }] });
      assert.equal(r.success, false, target);
    }
    assert.equal(ProfileSchema.safeParse({ image: 'i', command: ['${file}'], mounts: [{ source: '/srv/x', target: '/data/x' }] }).success, true);
  });

  it('caps environment values at 32768 characters', () => {
    const ok = ProfileSchema.safeParse({ image: 'i', command: ['${file}'], env: { A: 'x'.repeat(32768) } });
    const tooLong = resolveProfiles([{ source: 'user', value: { p: { image: 'i', command: ['${file}'], env: { A: 'x'.repeat(32769) } } } }]);
    assert.equal(ok.success, true);
    assert.match(tooLong.issues.find((i) => i.key === 'sandboxRunner.profiles.p.env.A')?.message ?? '', /at most 32768 characters/);
  });
});
