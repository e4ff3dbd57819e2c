/**
 * The engine CLI's kind (engineKind.ts `cliKind`) remembered across processes, so that a short-lived
 * process (`sandbox-run FILE`, an MCP server's first call, a window's first run) does not spawn
 * `<cli> --version` (~33 ms measured, issue 26) to learn what it learnt last time.
 *
 * The entry is keyed by the binary itself: the symlink-free path `dockerPath` resolves to on the
 * CLI's PATH (as the spawn would find it), its size and its modification time. Installing,
 * upgrading or replacing the CLI (or a `docker` → `podman` wrapper) changes one of them, and the
 * kind is asked again. The file lives in the per-user state directory (stateDir.ts) as
 * `engine-kinds.json`; a missing, unreadable or malformed file is an empty cache, and an entry
 * whose kind is not one of the three is ignored. Writing is best effort (atomic rename).
 */
import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import which from 'which';
import { stateDir } from '../stateDir';
import type { CliKind } from './contracts';

/** The cache file's name in the state directory. */
export const ENGINE_KIND_FILE = 'engine-kinds.json';
/** Most entries kept (the most recently written win): one per CLI binary a user has. */
const MAX_ENTRIES = 16;
const KINDS: readonly CliKind[] = ['docker', 'podman', 'other'];

/**
 * The identity of the binary a spawn of `binary` would run: `realpath|size|mtimeMs`, or undefined
 * when it cannot be found (the spawn then reports that) or `binary` is a relative path with a
 * directory part (resolved against the spawn's cwd, not ours).
 * @param binary `dockerPath` or `docker`
 * @param pathEnv the CLI's PATH (its environment's, else this process's)
 */
export function binaryIdentity(binary: string, pathEnv: string | undefined): string | undefined {
  if (!isAbsolute(binary) && /[\\/]/.test(binary)) return undefined;
  try {
    const found = isAbsolute(binary) ? binary : which.sync(binary, { nothrow: true, ...(pathEnv === undefined ? {} : { path: pathEnv }) });
    if (!found) return undefined;
    const real = realpathSync(found);
    const st = statSync(real);
    return st.isFile() ? `${real}|${st.size}|${st.mtimeMs}` : undefined;
  } catch {
    return undefined;
  }
}

type Entries = Record<string, CliKind>;

function cacheFile(dir: string): string {
  return join(dir, ENGINE_KIND_FILE);
}

/** The file's entries; {} when it is missing or malformed, valid entries only. */
function readEntries(dir: string): Entries {
  try {
    const doc = JSON.parse(readFileSync(cacheFile(dir), 'utf8')) as unknown;
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return {};
    return Object.fromEntries(Object.entries(doc).filter((e): e is [string, CliKind] => KINDS.includes(e[1] as CliKind)));
  } catch {
    return {};
  }
}

/**
 * The kind remembered for a binary identity ({@link binaryIdentity}), or undefined.
 * @param dir FOR TESTS: the state directory (default stateDir.ts `stateDir()`)
 */
export function cachedKind(identity: string, dir = stateDir()): CliKind | undefined {
  return readEntries(dir)[identity];
}

/**
 * Remembers `kind` for a binary identity (best effort: a failure to write is ignored; the next
 * process asks the CLI again).
 * @param dir FOR TESTS: the state directory (default stateDir.ts `stateDir()`)
 */
export function rememberKind(identity: string, kind: CliKind, dir = stateDir()): void {
  try {
    const entries = readEntries(dir);
    if (entries[identity] === kind) return;
    delete entries[identity];
    const kept = Object.entries(entries).slice(-(MAX_ENTRIES - 1));
    const file = cacheFile(dir);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries([...kept, [identity, kind]])), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // best effort
  }
}
