import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The built extension loader (dist/extensionLoader.js, `npm run build`), run beside fixture bundles in a folder of the test's own. */
const LOADER = resolve(__dirname, '..', '..', '..', 'dist', 'extensionLoader.js');

/**
 * A fixture extension host: loads `<dist>/extensionLoader.js` as VS Code would (through a symlinked
 * extension folder), activates it with a context whose global storage is `storage`, then requires
 * the lazy bundle, deactivates, and prints what it saw as JSON.
 */
const HOST = `
const [dist, storage] = process.argv.slice(1);
const loader = require(dist + '/extensionLoader.js');
const context = { globalStorageUri: { fsPath: storage } };
(async () => {
  const api = loader.activate(context);
  const lazy = require(dist + '/lazy.js');
  await loader.deactivate();
  process.stdout.write(JSON.stringify({ api, sameInstance: lazy.shared === globalThis.__fixtureShared, loads: globalThis.__fixtureLoads, activations: globalThis.__fixtureActivations, deactivated: globalThis.__fixtureDeactivated }));
})();
`;

describe('Extension loader: dist/extensionLoader.js (unit)', function () {
  if (process.platform === 'win32') return;
  let dir = '';
  const storage = () => join(dir, 'storage');
  const cacheFiles = () => (existsSync(join(storage(), 'code-cache')) ? readdirSync(join(storage(), 'code-cache')) : []);
  const host = (env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, ['-e', HOST, join(dir, 'link'), storage()], { env: { ...process.env, ...env }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { api: unknown; sameInstance: boolean; loads: number; activations: number; deactivated: boolean };
  };

  beforeEach(() => {
    assert.ok(existsSync(LOADER), `${LOADER} is missing: run npm run build first`);
    dir = mkdtempSync(join(tmpdir(), 'sr-ext-loader-'));
    mkdirSync(join(dir, 'dist'));
    copyFileSync(LOADER, join(dir, 'dist', 'extensionLoader.js'));
    writeFileSync(
      join(dir, 'dist', 'extension.js'),
      'const shared = { marker: 1 };\nglobalThis.__fixtureShared ??= shared;\nglobalThis.__fixtureLoads = (globalThis.__fixtureLoads || 0) + 1;\nexports.__shared = shared;\n' +
        'exports.activate = (ctx) => { globalThis.__fixtureActivations = (globalThis.__fixtureActivations || 0) + 1; return { storage: ctx.globalStorageUri.fsPath, file: __filename }; };\n' +
        'exports.deactivate = async () => { globalThis.__fixtureDeactivated = true; };\n',
    );
    writeFileSync(join(dir, 'dist', 'lazy.js'), "exports.shared = require('./extension.js').__shared;\n");
    symlinkSync(join(dir, 'dist'), join(dir, 'link'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('activates the bundle once, returns its API, and a lazy bundle\'s require(\'./extension.js\') gets the same instance (also through a symlinked folder)', () => {
    const r = host();
    assert.deepEqual(r.api, { storage: storage(), file: join(dir, 'dist', 'extension.js') });
    assert.equal(r.sameInstance, true, 'the lazy bundle got a second copy of extension.js');
    assert.equal(r.loads, 1, 'extension.js ran more than once');
    assert.equal(r.activations, 1);
    assert.equal(r.deactivated, true);
  });

  it('writes the code cache in the global storage (owner-only) at deactivate when it compiled without one, and then uses it without rewriting it', () => {
    host();
    const [only, ...more] = cacheFiles();
    assert.ok(only?.startsWith('extension-') && only.endsWith('.bin') && more.length === 0, `one cache file, got ${JSON.stringify(cacheFiles())}`);
    assert.equal(statSync(join(storage(), 'code-cache')).mode & 0o777, 0o700);
    const file = join(storage(), 'code-cache', String(only));
    const mtime = statSync(file).mtimeMs;
    assert.equal(host().sameInstance, true);
    assert.equal(statSync(file).mtimeMs, mtime, 'V8 took the cache, so it was not written again');
  });

  it('SANDBOX_RUNNER_NO_CODE_CACHE=1 writes nothing and still activates', () => {
    assert.equal(host({ SANDBOX_RUNNER_NO_CODE_CACHE: '1' }).activations, 1);
    assert.equal(existsSync(storage()), false);
  });
});
