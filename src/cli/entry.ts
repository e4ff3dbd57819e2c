/**
 * The `sandbox-run` executable (dist/cli.js): loads the CLI's bundle (dist/cli-main.js, from
 * main.ts) through V8's code cache.
 *
 * Parsing and compiling the bundle (about 400 KB) was the largest part of a plain run's start-up
 * after Node's own (a CPU profile of `sandbox-run FILE`, 2026-12-02). With the cache, each process
 * after the first gives V8 the code an earlier one compiled (`vm.Script` `cachedData`; Node 20 has
 * no `module.enableCompileCache`). `v8-compile-cache` 2.4.0 was tried first: it asks V8 for new
 * cache data even when V8 took the old, so it rewrote its 240 KB file on every run (measured).
 * The cache is written once per bundle and machine: at the first run's exit (by then it holds the
 * functions that run compiled, not only the top level), and again only when V8 rejected it.
 *
 * Rules: the file is named by a SHA-256 of the bundle's text, Node's version and the architecture
 * (V8 itself compares only the text's length); it lives in the user's own state directory
 * (stateDir.ts, `code-cache/`, mode 0700), never in a shared temporary folder, because cache data
 * is trusted input to V8; it is written to a temporary name and renamed, so a concurrent run reads
 * a whole file or none; older files are removed. Any failure to read or write it only costs the
 * compile. `SANDBOX_RUNNER_NO_CODE_CACHE=1` turns it off.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { stateDirFor } from '../core/stateDir';

/** Where the cache files live, for `home`, `env` and `platform` as stateDir.ts takes them. */
export function codeCacheDir(input: Parameters<typeof stateDirFor>[0]): string {
  return join(stateDirFor(input), 'code-cache');
}

/** The cache file's name for a bundle's text on this Node and architecture. */
export function codeCacheName(source: string, node = process.version, arch = process.arch): string {
  return `cli-main-${createHash('sha256').update(`${node}\0${arch}\0`).update(source).digest('hex').slice(0, 32)}.bin`;
}

/**
 * Runs the CommonJS file `file` as Node would (`exports`, `require` relative to it, `module`,
 * `__filename`, `__dirname`), compiled with the code cache of folder `cacheDir` (or without one
 * when it is undefined). Returns whether the cache was used (false: absent or rejected by V8).
 */
export function runWithCodeCache(file: string, cacheDir: string | undefined): boolean {
  const source = readFileSync(file, 'utf8').replace(/^#!.*/, '');
  const name = codeCacheName(source);
  const cached = cacheDir === undefined ? undefined : readOrUndefined(join(cacheDir, name));
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData: cached });
  const used = cached !== undefined && !script.cachedDataRejected;
  if (cacheDir !== undefined && !used) process.once('exit', () => saveCodeCache(cacheDir, name, script));
  const wrapper = script.runInThisContext() as (e: object, r: NodeJS.Require, m: object, f: string, d: string) => void;
  const mod = { exports: {}, filename: file, id: file, loaded: false };
  wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
  return used;
}

function readOrUndefined(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Writes `script`'s cache data as `dir/name` (temporary name, then rename) and removes older files; failures are ignored. */
function saveCodeCache(dir: string, name: string, script: Script): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `${name}.${process.pid}.tmp`);
    writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
    renameSync(tmp, join(dir, name));
    for (const old of readdirSync(dir)) if (old !== name && old.startsWith('cli-main-') && old.endsWith('.bin')) rmSync(join(dir, old), { force: true });
  } catch {
    // Only the next run's compile is lost.
  }
}

if (require.main === module) {
  const off = process.env.SANDBOX_RUNNER_NO_CODE_CACHE === '1';
  runWithCodeCache(join(__dirname, 'cli-main.js'), off ? undefined : codeCacheDir({ platform: process.platform, env: process.env, home: homedir() }));
}
