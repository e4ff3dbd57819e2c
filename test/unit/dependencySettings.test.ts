import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CACHE_USE_FILE, noteSetUse, setsOverCap, setUses } from '../../src/core/deps/cacheUse';
import { DEFAULT_DEPENDENCY_SETTINGS, parseDependencySettings, type DependencySettings } from '../../src/core/profiles/dependencySettings';
import { declaredDependencies, installEnvironment, installFingerprint, installSource } from '../../src/core/deps/declared';
import { cliInstallSettings } from '../../src/cli/dependencies';
import type { CliValues } from '../../src/cli/options';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { isSandboxError } from '../../src/core/errors';

const name = (k: keyof DependencySettings) => `sandboxRunner.dependencies.${k}`;

describe('dependency install settings (unit)', () => {
  it('defaults to issue 22\'s values when nothing is set', () => {
    const r = parseDependencySettings(() => undefined, name);
    assert.deepEqual(r.settings, { network: 'bridge', pipIndexUrl: '', npmRegistry: '', installTimeoutSeconds: 300, maxSetMiB: 1024, cacheMaxMiB: 4096 });
    assert.deepEqual(r.issues, []);
  });

  it('takes valid values', () => {
    const values: DependencySettings = { network: 'mirror-net', pipIndexUrl: 'http://mirror:8080/simple', npmRegistry: 'https://npm.example/', installTimeoutSeconds: 60, maxSetMiB: 10, cacheMaxMiB: 64 };
    const r = parseDependencySettings((k) => values[k], name);
    assert.deepEqual(r.settings, values);
    assert.deepEqual(r.issues, []);
  });

  it('refuses bad values naming the key, and keeps the default for them', () => {
    const bad: Record<string, unknown> = { network: 'host', pipIndexUrl: 'ftp://x', npmRegistry: 'https://a b', installTimeoutSeconds: 0, maxSetMiB: 1.5, cacheMaxMiB: 'big' };
    const r = parseDependencySettings((k) => bad[k], name);
    assert.deepEqual(r.settings, DEFAULT_DEPENDENCY_SETTINGS);
    assert.equal(r.issues.length, 6);
    for (const i of r.issues) assert.match(i.message, /^sandboxRunner\.dependencies\.\w+ must be /, i.message);
    assert.match(r.issues[0]!.message, /other than "host"/);
    for (const n of ['a:b', 'a,b', '-x', 'container:abc', '']) assert.equal(parseDependencySettings((k) => (k === 'network' ? n : undefined), name).issues.length, 1, n);
  });

  it('reads the CLI options as the same settings, naming the option', () => {
    const v = { 'install-network': 'n1', 'install-timeout': '20', 'max-set-mib': '5', 'cache-max-mib': '100' } as unknown as CliValues;
    assert.deepEqual(cliInstallSettings(v), { ...DEFAULT_DEPENDENCY_SETTINGS, network: 'n1', installTimeoutSeconds: 20, maxSetMiB: 5, cacheMaxMiB: 100 });
    assert.throws(() => cliInstallSettings({ 'max-set-mib': 'lots' } as unknown as CliValues), (e) => isSandboxError(e) && /^--max-set-mib must be a whole number/.test(e.message));
    assert.throws(() => cliInstallSettings({ 'install-network': 'host' } as unknown as CliValues), (e) => isSandboxError(e) && /^--install-network must be/.test(e.message));
  });

  it('gives the install container the registry variables, the settings over the environment', () => {
    const env = { PIP_INDEX_URL: 'http://env/simple', PIP_TRUSTED_HOST: 'env', HOME: '/root', npm_config_registry: 'http://npm.env/' };
    assert.deepEqual(installEnvironment({ pipIndexUrl: '', npmRegistry: '' }, env), { PIP_INDEX_URL: 'http://env/simple', PIP_TRUSTED_HOST: 'env', npm_config_registry: 'http://npm.env/' });
    assert.equal(installEnvironment({ pipIndexUrl: 'http://set/simple', npmRegistry: '' }, env)['PIP_INDEX_URL'], 'http://set/simple');
    assert.match(installSource('pip', {}), /pypi\.org/);
    assert.equal(installSource('pip', { PIP_INDEX_URL: 'http://i/simple' }), 'http://i/simple');
  });
});

describe('declared dependencies (unit)', () => {
  const python = ProfileSchema.parse({ image: 'python:3', command: ['python3', '${file}'], languages: ['python'], dependencies: ['rich'] });
  const block = '# /// script\n# dependencies = ["requests>=2"]\n# requires-python = ">=3.8"\n# ///\nimport requests\n';

  it('lists the profile\'s, the block\'s and the agent\'s specs, the untrusted ones apart', () => {
    const d = declaredDependencies('python', python, block, ['tqdm']);
    assert.deepEqual(d?.specs, ['rich', 'requests>=2', 'tqdm']);
    assert.deepEqual(d?.profileSpecs, ['rich']);
    assert.deepEqual(d?.untrustedSpecs, ['requests>=2', 'tqdm']);
    assert.equal(d?.requiresPython, '>=3.8');
    assert.equal(d?.where, 'the "dependencies" input');
    assert.equal(declaredDependencies('p', { ...python, dependencies: [] }, 'print(1)'), undefined);
  });

  it('refuses a bad agent spec or block before anything starts, naming it', () => {
    assert.throws(() => declaredDependencies('python', python, 'x', ['pkg @ https://x.test/p.whl']), (e) => isSandboxError(e) && /"dependencies" input/.test(e.message));
    assert.throws(() => declaredDependencies('python', python, '# /// script\n# dependencies = 3\n# ///\n'), (e) => isSandboxError(e) && /list of strings/.test(e.message));
  });

  it('fingerprints a set by its manager, normalised specs and index', () => {
    const i = { PIP_INDEX_URL: 'http://i/simple' };
    assert.equal(installFingerprint('pip', ['Requests', 'rich'], 'img', i), installFingerprint('pip', ['rich', 'requests'], 'img', { PIP_INDEX_URL: 'http://i/simple/' }));
    // Issue 34: everything the installer sees, and the image.
    for (const [image, env] of [['img', { PIP_INDEX_URL: 'http://j/simple' }], ['img', {}], ['other', i], ['img', { ...i, PIP_TRUSTED_HOST: 'i' }], ['img', { ...i, PIP_EXTRA_INDEX_URL: 'http://x/simple' }], ['img', { ...i, https_proxy: 'http://p:3128' }]] as const) {
      assert.notEqual(installFingerprint('pip', ['rich'], image, env), installFingerprint('pip', ['rich'], 'img', i), JSON.stringify([image, env]));
    }
    // A proxy's password is not stored with the consent.
    assert.doesNotMatch(installFingerprint('pip', ['rich'], 'img', { HTTPS_PROXY: 'http://u:secret@p:3128' }), /secret/);
  });
});

describe('dependency cache order (unit)', () => {
  const set = (key: string, kib: number, usedAt: number) => ({ key: key.repeat(64), name: `n${key}`, data: `d${key}`, kib, usedAt });

  it('removes the least recently used first until the rest fit, never a kept set', () => {
    const sets = [set('a', 600, 3), set('b', 600, 1), set('c', 600, 2)];
    assert.deepEqual(setsOverCap(sets, 1).map((s) => s.name), ['nb', 'nc']);
    assert.deepEqual(setsOverCap(sets, 1.2).map((s) => s.name), ['nb']);
    assert.deepEqual(setsOverCap(sets, 1.2, new Set(['b'.repeat(64)])).map((s) => s.name), ['nc']);
    assert.deepEqual(setsOverCap(sets, 2), []);
  });

  it('records uses in the state directory, newest kept, and reads a broken file as none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sr-uses-'));
    try {
      noteSetUse('a'.repeat(64), 5, dir);
      noteSetUse('b'.repeat(64), 7, dir);
      noteSetUse('a'.repeat(64), 9, dir);
      assert.deepEqual(setUses(dir), { ['a'.repeat(64)]: 9, ['b'.repeat(64)]: 7 });
      await writeFile(join(dir, CACHE_USE_FILE), '{"x": 1, "' + 'c'.repeat(64) + '": "no"');
      assert.deepEqual(setUses(dir), {});
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
