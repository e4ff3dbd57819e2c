/**
 * The snippet as delivered: its in-container file name, the profile's line-ending conversion
 * (`snippetCode`, done once before any path delivers it), and, for the direct path only (images
 * without `sh`, local engine), a fresh per-run host directory holding only the file, which the
 * container sees read-only at `/sandbox`. Every other run sends the code over stdin (launcher.ts)
 * and writes nothing on the host. The code never travels as argv or shell text; the host file
 * name never reaches docker.
 */
import { chmod, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { SNIPPET_HOST_DIR_PREFIX } from '../layout';
import type { Profile } from '../profiles/profileSchema';

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

/** A profile's `lineEndings`: "lf" converts CRLF to LF in the snippet, "keep" leaves it as written. */
export type LineEndings = Profile['lineEndings'];

/**
 * `code` with every CRLF pair replaced by LF. Bytes are converted without decoding: only the
 * byte 0x0D directly before 0x0A is dropped, so a file in any ASCII-compatible encoding (UTF-8,
 * Latin-1, …) stays byte-exact otherwise. A lone CR is kept. Returns the input itself when it
 * holds no CRLF (no copy).
 */
export function crlfToLf(code: string): string;
export function crlfToLf(code: Uint8Array): Uint8Array;
export function crlfToLf(code: string | Uint8Array): string | Uint8Array;
export function crlfToLf(code: string | Uint8Array): string | Uint8Array {
  if (typeof code === 'string') return code.includes('\r\n') ? code.replace(/\r\n/g, '\n') : code;
  const bytes = Buffer.from(code.buffer, code.byteOffset, code.byteLength);
  let at = bytes.indexOf('\r\n');
  if (at < 0) return code;
  const out = Buffer.allocUnsafe(bytes.byteLength);
  let length = 0;
  let from = 0;
  while (at >= 0) {
    length += bytes.copy(out, length, from, at); // up to the CR
    from = at + 1; // the LF starts the next piece
    at = bytes.indexOf('\r\n', from);
  }
  length += bytes.copy(out, length, from);
  return out.subarray(0, length);
}

/**
 * The snippet as it is delivered to the container (sent over stdin in the launcher's frame, or
 * written to the snippet file on the direct path): CRLF becomes LF unless `lineEndings` is "keep", so a script
 * saved with Windows line endings runs as it reads in the editor (a shell would otherwise see a
 * `\r` at the end of every line).
 */
export function snippetCode(code: string | Uint8Array, lineEndings: LineEndings): string | Uint8Array {
  return lineEndings === 'keep' ? code : crlfToLf(code);
}

/**
 * Writes `code` (a string as UTF-8, bytes as they are) to a new directory under `root` (default
 * the OS temp dir).
 * The directory is world-readable so the container's non-root user can read the file.
 */
export async function writeSnippet(code: string | Uint8Array, fileName: string, root = tmpdir()): Promise<SnippetFile> {
  const dir = await realpath(await mkdtemp(join(root, SNIPPET_HOST_DIR_PREFIX)));
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
