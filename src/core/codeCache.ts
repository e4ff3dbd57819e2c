/**
 * Loading a CommonJS bundle through V8's code cache (`vm.Script` `cachedData`), for the two
 * programs whose start-up is mostly compiling their bundle: `sandbox-run` (src/cli/entry.ts loads
 * dist/cli-main.js) and the extension (src/extensionLoader.ts loads dist/extension.js at
 * activation). Node 20 has no `module.enableCompileCache`, and where Node has it, it applies to
 * the whole process: the extension host's other extensions too. VS Code's server (code-server,
 * Remote) gives extensions no code cache of its own (checked in code-server 4.139.1's extension host).
 *
 * Rules: a cache file is named by the bundle's base name, size, modification time and inode, Node's
 * version and the architecture (V8 itself compares only the text's length; {@link codeCacheName}); it
 * lives in a folder of the user's own (mode 0700), never a shared temporary folder, because cache
 * data is trusted input to V8; it is written to a temporary name and renamed, so a concurrent reader
 * gets a whole file or none; older files of the same bundle are removed then. Any failure to read or
 * write only costs the compile. No `vscode` import.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * The cache file's name for the bundle `file` on this Node and architecture:
 * `<base>-<node>-<arch>-<size>-<mtime ms>-<inode>.bin`. The file's identity stands for its text
 * (a rebuilt or updated bundle is a new file) because V8 compares only the text's length; a hash of
 * the text would cost `node:crypto`'s start-up (about 6 ms) where nothing else loaded it yet.
 */
export function codeCacheName(file: string, facts: { size: number; mtimeMs: number; ino: number }, node = process.version, arch = process.arch): string {
  return `${basename(file, '.js')}-${node}-${arch}-${facts.size}-${Math.trunc(facts.mtimeMs)}-${facts.ino}.bin`;
}

/** A bundle compiled (with the cache when V8 took it), not yet run. */
export interface CompiledBundle {
  /** V8 took the cache file (false: none, unreadable, or rejected). */
  readonly used: boolean;
  /**
   * Runs the bundle once as Node's `require` would (`exports`, `require` relative to it,
   * `module`, `__filename`, `__dirname`) and registers it in the module cache under its path, so a
   * later `require` of that path (a lazy bundle's `require('./extension.js')`) gets this instance.
   * @returns its `module.exports`
   */
  run(): unknown;
  /** Writes the cache data of the code compiled so far, when {@link used} is false; at most once; never throws. */
  save(): void;
}

/**
 * Compiles the CommonJS file `file` (an absolute real path: the module cache is keyed by it) with
 * the code cache of folder `cacheDir`, or without one when `cacheDir` is undefined.
 */
export function compileWithCodeCache(file: string, cacheDir: string | undefined): CompiledBundle {
  // Named before reading: a file replaced in between leaves a cache under the old file's name, never read again.
  const name = codeCacheName(file, statSync(file));
  const source = readFileSync(file, 'utf8').replace(/^#!.*/, '');
  const cached = cacheDir === undefined ? undefined : readOrUndefined(join(cacheDir, name));
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData: cached });
  const used = cached !== undefined && !script.cachedDataRejected;
  let saved = used || cacheDir === undefined;
  return {
    used,
    run: () => {
      const wrapper = script.runInThisContext() as (e: object, r: NodeJS.Require, m: object, f: string, d: string) => void;
      const require = createRequire(file);
      const mod = new Module(file);
      mod.filename = file;
      require.cache[file] = mod;
      wrapper.call(mod.exports, mod.exports, require, mod, file, dirname(file));
      mod.loaded = true;
      return mod.exports;
    },
    save: () => {
      if (saved) return;
      saved = true;
      writeCache(cacheDir!, name, `${basename(file, '.js')}-`, script);
    },
  };
}

function readOrUndefined(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Writes `script`'s cache data as `dir/name` (temporary name, then rename) and removes the other `prefix*.bin` files; failures are ignored. */
function writeCache(dir: string, name: string, prefix: string, script: Script): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `${name}.${process.pid}.tmp`);
    writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
    renameSync(tmp, join(dir, name));
    for (const old of readdirSync(dir)) if (old !== name && old.startsWith(prefix) && old.endsWith('.bin')) rmSync(join(dir, old), { force: true });
  } catch {
    // Only the next start's compile is lost.
  }
}
