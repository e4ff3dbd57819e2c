/**
 * A workspace's npm lockfile as a dependency set (issue 22): a `workspace: "ro"` run of a file
 * under a folder with `package.json` and `package-lock.json` installs exactly that lockfile
 * (`npm ci --ignore-scripts`, npm.ts) in the install container. Both files are untrusted
 * workspace data, so they are checked here before anything starts:
 * - each is a regular file (not a link) of bounded size, and parses as JSON;
 * - the lockfile is version 2 or 3 (a `packages` map), and every package in it is a registry
 *   tarball pinned by an integrity hash: an `http(s)` `resolved` URL and an `integrity`, or a
 *   package bundled inside one (`inBundle`). A link (`file:`/workspace folder), a Git or a
 *   `file:` entry is refused with a sentence naming it.
 * Only these two files reach the install container (package.json as an argument, the lockfile
 * on stdin); the folder's other files, its `.npmrc` among them, never do.
 */
import { createHash } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import { dirname, join, relative, isAbsolute } from 'node:path';
import { SandboxError } from '../errors';

/** Largest package.json passed to the install container, bytes (it travels as one argv item, which Linux caps at 128 KiB). */
export const MAX_PACKAGE_JSON_BYTES = 64 * 1024;
/** Largest package-lock.json read, bytes. */
export const MAX_LOCKFILE_BYTES = 16 * 1024 * 1024;

/** A checked lockfile folder. */
export interface NpmLockfile {
  /** The host folder holding both files. */
  readonly folder: string;
  readonly packageJson: Buffer;
  readonly lockfile: Buffer;
  /** How many packages the lockfile installs. */
  readonly packages: number;
  /** The set's spec for the cache key: `package-lock.json sha256:<hex of both files>` (never a valid npm spec, so no list collides with it). */
  readonly keySpec: string;
}

/**
 * The nearest folder from the file's folder up to `workspaceFolder` (inclusive) that holds both
 * `package.json` and `package-lock.json`; undefined when none does or the file is outside the folder.
 */
export async function findLockfileFolder(file: string, workspaceFolder: string): Promise<string | undefined> {
  const rel = relative(workspaceFolder, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const both = await Promise.all(['package.json', 'package-lock.json'].map((f) => lstat(join(dir, f)).then(() => true, () => false)));
    if (both.every(Boolean)) return dir;
    if (relative(workspaceFolder, dir) === '' || dirname(dir) === dir) return undefined;
  }
}

/**
 * Reads and checks the folder's two files.
 * @throws SandboxError `invalid-profile` naming the file and what to change: a link or not a
 *   regular file, too large, not JSON, an unsupported lockfile version, or a package that is not a
 *   registry tarball with an integrity hash
 */
export async function readNpmLockfile(folder: string): Promise<NpmLockfile> {
  const packageJson = await readChecked(join(folder, 'package.json'), MAX_PACKAGE_JSON_BYTES);
  const lockfile = await readChecked(join(folder, 'package-lock.json'), MAX_LOCKFILE_BYTES);
  parseJson(packageJson, join(folder, 'package.json'));
  const lock = parseJson(lockfile, join(folder, 'package-lock.json'));
  const problem = lockfileProblem(lock);
  if (problem) throw new SandboxError('invalid-profile', `${join(folder, 'package-lock.json')} ${problem}, so nothing was installed and nothing ran.`, 'Install only registry packages there (npm install NAME), or set the profile\'s "workspace" to "none".');
  const packages = Object.keys((lock as { packages: object }).packages).filter((k) => k !== '').length;
  const digest = createHash('sha256').update(packageJson).update('\0').update(lockfile).digest('hex');
  return { folder, packageJson, lockfile, packages, keySpec: `package-lock.json sha256:${digest}` };
}

/**
 * Why a parsed lockfile is not one this runner installs; undefined when it is.
 * @returns one clause, e.g. `lists "node_modules/x" from "git+ssh://…", not a registry tarball`
 */
export function lockfileProblem(lock: unknown): string | undefined {
  const l = lock as { lockfileVersion?: unknown; packages?: unknown };
  if (typeof l !== 'object' || l === null || (l.lockfileVersion !== 2 && l.lockfileVersion !== 3) || typeof l.packages !== 'object' || l.packages === null) {
    return 'is not an npm lockfile of version 2 or 3 (npm 7 or later writes them)';
  }
  for (const [path, raw] of Object.entries(l.packages as Record<string, unknown>)) {
    if (path === '') continue;
    const e = (raw ?? {}) as { resolved?: unknown; integrity?: unknown; link?: unknown; inBundle?: unknown };
    const shown = JSON.stringify(path.length > 80 ? `${path.slice(0, 79)}…` : path);
    if (!/^(?:.+\/)?node_modules\/(?:@[^/]+\/)?[^/]+$/.test(path) || e.link === true) return `lists ${shown}, a linked folder or workspace, not a registry package`;
    if (e.inBundle === true) continue;
    if (typeof e.resolved !== 'string' || !/^https?:\/\/[^\s#]+$/.test(e.resolved)) {
      return `lists ${shown} ${typeof e.resolved === 'string' ? `from ${JSON.stringify(e.resolved.slice(0, 80))}` : 'without a "resolved" URL'}, not a registry tarball`;
    }
    if (typeof e.integrity !== 'string' || !/^sha(?:1|256|384|512)-[A-Za-z0-9+/=]+(?:\s+sha(?:1|256|384|512)-[A-Za-z0-9+/=]+)*$/.test(e.integrity)) {
      return `lists ${shown} without an "integrity" hash`;
    }
  }
  return undefined;
}

async function readChecked(path: string, max: number): Promise<Buffer> {
  const st = await lstat(path);
  if (!st.isFile()) throw new SandboxError('invalid-profile', `${path} is not a regular file (a link or a folder), so its packages were not installed and nothing ran.`, 'Replace it with the file itself, or set the profile\'s "workspace" to "none".');
  if (st.size > max) throw new SandboxError('invalid-profile', `${path} is ${st.size} bytes, more than the ${max} this runner installs from, so nothing ran.`, 'Build an image with these packages, or set the profile\'s "workspace" to "none".');
  return readFile(path);
}

function parseJson(bytes: Buffer, path: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new SandboxError('invalid-profile', `${path} is not valid JSON, so its packages were not installed and nothing ran.`, 'Fix the file (npm install rewrites the lockfile), then run again.');
  }
}
