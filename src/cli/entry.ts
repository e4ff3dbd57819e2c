/**
 * The `sandbox-run` executable (dist/cli.js): loads the CLI's bundle (dist/cli-main.js, from
 * main.ts) through V8's code cache (core/codeCache.ts).
 *
 * Parsing and compiling the bundle (about 400 KB) was the largest part of a plain run's start-up
 * after Node's own (a CPU profile of `sandbox-run FILE`, 2026-12-02). With the cache, each process
 * after the first gives V8 the code an earlier one compiled. `v8-compile-cache` 2.4.0 was tried
 * first: it asks V8 for new cache data even when V8 took the old, so it rewrote its 240 KB file on
 * every run (measured). The cache is written once per bundle and machine: at the first run's exit
 * (by then it holds the functions that run compiled, not only the top level), and again only when
 * V8 rejected it. It lives in the user's own state directory (stateDir.ts, `code-cache/`).
 * `SANDBOX_RUNNER_NO_CODE_CACHE=1` turns it off.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { compileWithCodeCache } from '../core/codeCache';
import { stateDirFor } from '../core/stateDir';

/** Where the cache files live, for `home`, `env` and `platform` as stateDir.ts takes them. */
export function codeCacheDir(input: Parameters<typeof stateDirFor>[0]): string {
  return join(stateDirFor(input), 'code-cache');
}

if (require.main === module) {
  const off = process.env.SANDBOX_RUNNER_NO_CODE_CACHE === '1';
  const main = compileWithCodeCache(join(__dirname, 'cli-main.js'), off ? undefined : codeCacheDir({ platform: process.platform, env: process.env, home: homedir() }));
  // Registered before the bundle runs: it may end the process itself.
  if (!main.used) process.once('exit', () => main.save());
  main.run();
}
