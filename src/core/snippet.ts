/**
 * Snippet delivery: the code is written to a fresh per-run host directory that holds nothing
 * else, which the container sees read-only at `/sandbox`. The code never travels as argv or
 * shell text; the host file name never reaches docker.
 */
import { chmod, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { Profile } from './profile';

/** A written snippet; call {@link SnippetFile.dispose} when the run is over. */
export interface SnippetFile {
  /** Absolute, symlink-free host directory (mode 0755) holding only the file. */
  readonly dir: string;
  /** File name inside `dir` (mode 0755: a shebang script may be the command itself), e.g. `main.py`. */
  readonly fileName: string;
  dispose(): Promise<void>;
}

/**
 * The in-container file name: `main` plus the source's extension when the profile lists it,
 * else the profile's first extension (interpreters such as node pick the module type by it).
 */
export function snippetFileName(profile: Profile, sourceFileName?: string): string {
  const ext = sourceFileName ? extname(sourceFileName).toLowerCase() : '';
  return 'main' + (ext && profile.extensions.includes(ext) ? ext : (profile.extensions[0] ?? ''));
}

/**
 * Writes `code` (a string as UTF-8, bytes as they are) to a new directory under `root` (default
 * the OS temp dir).
 * The directory is world-readable so the container's non-root user can read the file.
 */
export async function writeSnippet(code: string | Uint8Array, fileName: string, root = tmpdir()): Promise<SnippetFile> {
  const dir = await realpath(await mkdtemp(join(root, 'sandbox-runner-')));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    await chmod(dir, 0o755);
    await writeFile(join(dir, fileName), code, typeof code === 'string' ? { encoding: 'utf8', mode: 0o755 } : { mode: 0o755 });
    await chmod(join(dir, fileName), 0o755);
  } catch (e) {
    await dispose();
    throw e;
  }
  return { dir, fileName, dispose };
}
