import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { codeCacheName } from '../../src/core/codeCache';

/** The built CLI entry (dist/cli.js, `npm run build`), run beside a fixture `cli-main.js` in a folder of the test's own. */
const ENTRY = resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

describe('CLI code cache: dist/cli.js (unit)', function () {
  if (process.platform === 'win32') return;
  let dir = '';
  const cacheDir = () => join(dir, 'state', 'sandbox-runner', 'code-cache');
  const files = () => (existsSync(cacheDir()) ? readdirSync(cacheDir()) : []);
  const main = (word: string) =>
    writeFileSync(join(dir, 'bin', 'cli-main.js'), `const dep = require('./dep.js');\nprocess.stdout.write(JSON.stringify({ word: '${word}', dep, file: __filename, dir: __dirname, exportsOk: module.exports === exports, args: process.argv.slice(2) }));\nprocess.exitCode = 3;\n`);
  const run = (env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [join(dir, 'bin', 'cli.js'), 'a b', '--x'], { env: { ...process.env, XDG_STATE_HOME: join(dir, 'state'), ...env }, encoding: 'utf8' });
    assert.equal(r.status, 3, r.stderr);
    return JSON.parse(r.stdout) as { word: string; dep: number; file: string; dir: string; exportsOk: boolean; args: string[] };
  };

  beforeEach(() => {
    assert.ok(existsSync(ENTRY), `${ENTRY} is missing: run npm run build first`);
    dir = mkdtempSync(join(tmpdir(), 'sr-code-cache-'));
    mkdirSync(join(dir, 'bin'));
    copyFileSync(ENTRY, join(dir, 'bin', 'cli.js'));
    writeFileSync(join(dir, 'bin', 'dep.js'), 'module.exports = 41 + 1;\n');
    main('alpha');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the bundle as Node would, writes the cache once (owner-only), then runs from it without rewriting it', () => {
    const first = run();
    assert.deepEqual(first, { word: 'alpha', dep: 42, file: join(dir, 'bin', 'cli-main.js'), dir: join(dir, 'bin'), exportsOk: true, args: ['a b', '--x'] });
    const [only, ...more] = files();
    assert.ok(only?.startsWith('cli-main-') && only.endsWith('.bin') && more.length === 0, `one cache file, got ${JSON.stringify(files())}`);
    const name = String(only);
    assert.equal(statSync(cacheDir()).mode & 0o777, 0o700);
    assert.equal(statSync(join(cacheDir(), name)).mode & 0o777, 0o600);
    const before = { bytes: readFileSync(join(cacheDir(), name)), mtime: statSync(join(cacheDir(), name)).mtimeMs };
    assert.deepEqual(run(), first);
    assert.ok(readFileSync(join(cacheDir(), name)).equals(before.bytes), 'V8 took the cache, so it was not written again');
    assert.equal(statSync(join(cacheDir(), name)).mtimeMs, before.mtime);
  });

  it('a damaged cache file costs only the compile: the run is right and the file is written again', () => {
    run();
    const [name] = files();
    writeFileSync(join(cacheDir(), name!), Buffer.alloc(4096, 7));
    assert.equal(run().word, 'alpha');
    assert.ok(!readFileSync(join(cacheDir(), name!)).equals(Buffer.alloc(4096, 7)));
  });

  it('a changed bundle of the same length gets a new cache file (V8 compares only the length) and the old one goes', () => {
    run();
    const [old] = files();
    main('omega');
    assert.equal(run().word, 'omega');
    assert.deepEqual(files().length, 1);
    assert.notEqual(files()[0], old);
  });

  it('SANDBOX_RUNNER_NO_CODE_CACHE=1 writes nothing', () => {
    assert.equal(run({ SANDBOX_RUNNER_NO_CODE_CACHE: '1' }).word, 'alpha');
    assert.equal(existsSync(join(dir, 'state')), false);
  });

  it('names the file by the bundle\'s identity (size, mtime, inode), the Node version and the architecture', () => {
    const f = { size: 100, mtimeMs: 1764720000123.5, ino: 77 };
    const n = codeCacheName('/d/cli-main.js', f, 'v20.0.0', 'x64');
    assert.equal(n, 'cli-main-v20.0.0-x64-100-1764720000123-77.bin');
    for (const other of [{ ...f, size: 101 }, { ...f, mtimeMs: 1764720000124 }, { ...f, ino: 78 }]) assert.notEqual(codeCacheName('/d/cli-main.js', other, 'v20.0.0', 'x64'), n);
    assert.notEqual(codeCacheName('/d/cli-main.js', f, 'v20.0.1', 'x64'), n);
    assert.notEqual(codeCacheName('/d/cli-main.js', f, 'v20.0.0', 'arm64'), n);
    assert.match(codeCacheName('/d/extension.js', f, 'v20.0.0', 'x64'), /^extension-/);
  });
});
