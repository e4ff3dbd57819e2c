/**
 * Host paths judged the same way on every client OS, as pure functions of a `platform` parameter
 * (default `process.platform`), so unit tests cover Windows and macOS rules on Linux (issue 15,
 * "Paths and platform details"). Windows paths use Node's `path.win32` (drive letters, `\` and
 * `/`, UNC `\\server\share`, `\\?\` long paths); every other platform uses `path.posix`.
 *
 * Case: paths compare case-insensitively on `win32` (NTFS and ReFS are case-insensitive by default)
 * and on `darwin` (APFS and HFS+ are case-insensitive by default; a case-sensitive volume then
 * gets refusals for paths that merely differ in case, the safe direction), and case-sensitively
 * elsewhere. macOS paths are also compared in Unicode NFC (APFS is normalization-insensitive).
 * The folding is `toLowerCase()`, an approximation of NTFS's upcase table and APFS's case folding.
 *
 * Symlinks are never resolved here: callers pass paths that the real file system already
 * resolved on the real platform (mounts.ts).
 */
import { posix, win32, type PlatformPath } from 'node:path';

/** A client OS as Node names it (`process.platform`). */
export type HostPlatform = NodeJS.Platform;

/** Node's path functions for `platform`'s path flavour: `path.win32` on Windows, else `path.posix`. */
export function pathFlavor(platform: HostPlatform = process.platform): PlatformPath {
  return platform === 'win32' ? win32 : posix;
}

/** True where host paths compare case-insensitively (see the module comment): `win32` and `darwin`. */
export function caseInsensitivePaths(platform: HostPlatform = process.platform): boolean {
  return platform === 'win32' || platform === 'darwin';
}

/** `\\?\C:\x` → `C:\x`, `\\?\UNC\srv\share\x` → `\\srv\share\x` (Win32 long-path prefixes; other `\\?\` forms are kept). */
function stripLongPrefix(p: string): string {
  const unc = /^[\\/]{2}\?[\\/]UNC[\\/](.*)$/i.exec(p);
  if (unc) return `\\\\${unc[1]}`;
  const drive = /^[\\/]{2}\?[\\/]([A-Za-z]:(?:[\\/].*)?)$/.exec(p);
  return drive ? drive[1]! : p;
}

/**
 * True when `p` is a Win32 device-namespace path (`\\.\pipe\docker_engine`, `\\.\C:`,
 * `\\?\GLOBALROOT\…`, `\\?\Volume{…}`): never a directory a sandbox may mount.
 */
export function isWin32DevicePath(p: string): boolean {
  if (/^[\\/]{2}\.(?:[\\/]|$)/.test(p)) return true;
  return /^[\\/]{2}\?[\\/]/.test(p) && stripLongPrefix(p) === p;
}

/**
 * True when `p` is an absolute host path of `platform`'s flavour. POSIX: starts with `/`.
 * Windows: a drive path `C:\x` (or `C:/x`), a UNC path `\\server\share\x`, or either behind
 * `\\?\`; not a drive-relative `C:x`, not a rooted `\x` (it depends on the current drive), and
 * not a device path ({@link isWin32DevicePath}).
 */
export function isAbsoluteHostPath(p: string, platform: HostPlatform = process.platform): boolean {
  if (platform !== 'win32') return p.startsWith('/');
  if (isWin32DevicePath(p)) return false;
  const q = stripLongPrefix(p);
  return /^[A-Za-z]:[\\/]/.test(q) || /^[\\/]{2}[^\\/?.][^\\/]*[\\/][^\\/]+/.test(q);
}

/**
 * `p` in normal form for `platform`: Windows `\\?\` prefixes removed, `/` turned into `\`, `.`
 * and repeated separators removed (`path.win32.normalize`), a drive letter upper-cased; POSIX
 * `path.posix.normalize`. A trailing separator is removed except at a root (`/`, `C:\`,
 * `\\srv\share\`). `..` segments are resolved lexically: callers refuse them first.
 */
export function normalizeHostPath(p: string, platform: HostPlatform = process.platform): string {
  if (platform !== 'win32') {
    const n = posix.normalize(p);
    return n.length > 1 ? n.replace(/\/+$/, '') : n;
  }
  let n = win32.normalize(stripLongPrefix(p).replace(/\//g, '\\'));
  n = n.replace(/^([a-z]):/, (_, d: string) => `${d.toUpperCase()}:`);
  const root = win32.parse(n).root;
  return n.length > root.length ? n.replace(/\\+$/, '') : n;
}

/** The form two host paths are compared in: normal form, NFC and lower case where paths are case-insensitive. */
export function hostPathKey(p: string, platform: HostPlatform = process.platform): string {
  const n = normalizeHostPath(p, platform);
  if (platform === 'darwin') return n.normalize('NFC').toLowerCase();
  return platform === 'win32' ? n.toLowerCase() : n;
}

/** True when host paths `a` and `b` name the same path on `platform` (lexically; symlinks are the caller's). */
export function sameHostPath(a: string, b: string, platform: HostPlatform = process.platform): boolean {
  return hostPathKey(a, platform) === hostPathKey(b, platform);
}

/**
 * True when absolute host path `path` is `root` or lies below it, on `platform` (case and
 * separators as {@link hostPathKey}). `C:\` contains every path on drive C:; `\\srv\share`
 * every path on that share; `/` every POSIX path. Paths on different drives never nest.
 */
export function isHostPathInside(path: string, root: string, platform: HostPlatform = process.platform): boolean {
  const p = hostPathKey(path, platform);
  const r = hostPathKey(root, platform);
  const sep = platform === 'win32' ? '\\' : '/';
  return p === r || p.startsWith(r.endsWith(sep) ? r : r + sep);
}

/** The segments of host path `p` (split at `/`, and on Windows also at `\`). */
export function hostPathSegments(p: string, platform: HostPlatform = process.platform): string[] {
  return p.split(platform === 'win32' ? /[\\/]/ : '/');
}

/**
 * Characters refused in a host path handed to docker: `,` and `"` would split or quote a field
 * of `--mount type=bind,src=…` (docker CLI `opts/mount.go` reads the value as one CSV record),
 * and line breaks and NUL break the argv or the engine's records. A `:` is fine there (a drive
 * letter, `src=C:\Users\me`); it is refused only for container paths (`--tmpfs PATH:OPTS`).
 */
export const UNSAFE_HOST_PATH_CHARS = /[,"\n\r\0]/;

/**
 * Why `p`, a mount source as written in a profile, cannot be a host path on `platform`, or
 * undefined when it can: it must be absolute in that platform's flavour ({@link isAbsoluteHostPath};
 * a Windows path on Linux or macOS, or a POSIX path on Windows, is named as such), have no `..`
 * segment, none of {@link UNSAFE_HOST_PATH_CHARS}, and on Windows no `:` after the drive letter
 * (an NTFS alternate data stream `C:\x:stream`) and no device path (`\\.\pipe\…`).
 * @returns a clause that completes "the host path …", plain text
 */
export function hostPathProblem(p: string, platform: HostPlatform = process.platform): string | undefined {
  if (UNSAFE_HOST_PATH_CHARS.test(p)) return 'contains a comma, quote or line break';
  if (hostPathSegments(p, platform).includes('..')) return 'contains ".."';
  if (platform === 'win32' && isWin32DevicePath(p)) return 'is a Windows device or pipe path, not a directory';
  if (!isAbsoluteHostPath(p, platform)) {
    if (platform !== 'win32' && isAbsoluteHostPath(p, 'win32')) return 'is a Windows path, and this host is not Windows';
    if (platform === 'win32' && p.startsWith('/')) return 'is a POSIX path, and this host is Windows (write it as C:\\… or \\\\server\\share\\…)';
    return 'is not absolute';
  }
  if (platform === 'win32' && stripLongPrefix(p).slice(2).includes(':')) return 'contains a ":" after its drive letter';
  return undefined;
}
