/**
 * What a `workspace: "ro"` run hides of the workspace folder (issue 12): `.git` always, and every
 * file or folder whose name (or path relative to the folder) matches one of the user's globs
 * (`sandboxRunner.maskedFiles`, default {@link DEFAULT_MASK_GLOBS}), at any depth. Found by a
 * bounded walk of the checked (symlink-free) folder before the container is created; each entry
 * becomes its own read-only mount over the workspace mount (argv.ts): a folder an empty read-only
 * tmpfs, a file a read-only bind of `/dev/null` (the program reads nothing; `stat` shows a
 * character device).
 *
 * Globs use picomatch (`dot: true`: `*` also matches names starting with "."), matched against
 * the entry's name and its `/`-separated path from the folder, so `*.pem` hides `a/b/key.pem` and
 * `config/*.key` only below `config`. Matching ignores case on every platform (`nocase`): a user
 * who writes `.env*` means `.ENV` and `.Env.local` too, and `id_*` means `ID_RSA` (issue 34).
 *
 * Hard links: a regular file whose inode has more than one link is masked whatever its name (issue
 * 34). Its other names may be a masked file in the folder (`notes.txt` linked to `.env`) or a
 * secret outside it (`~/.ssh/id_rsa` on the same file system), and a link count is all the walk can
 * see of either. Tools that fill a tree with hard links (pnpm's store) then mask many files, and
 * past {@link MAX_MASKS} the run is refused.
 *
 * Symlinks are never followed. A symlink whose name matches is masked where it leads when that is
 * inside the folder (the container follows it inside the mount); one leading outside the folder is
 * left as a link: the container resolves it inside its own root file system, never on the host.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import { SandboxError } from '../errors';
import { isHostPathInside } from '../hostPath';
import { settingId } from '../layout';
import { DEFAULT_MASK_GLOBS } from '../profiles/defaults';

export { DEFAULT_MASK_GLOBS };

/** Names hidden whatever the setting says. */
export const ALWAYS_MASKED: readonly string[] = Object.freeze(['.git']);

/** Most directory entries the walk reads before it gives up (and the run is refused). */
export const MAX_WALK_ENTRIES = 50_000;

/** Most entries masked in one run (each is one `--mount` argument). */
export const MAX_MASKS = 256;

/** One hidden entry: its `/`-separated path relative to the folder, and whether it is a folder. */
export interface MaskEntry {
  readonly path: string;
  readonly kind: 'dir' | 'file';
}

/**
 * A matcher for names and relative paths: `.git` plus `globs`.
 * @throws SandboxError `invalid-profile` for a glob picomatch cannot parse
 */
export function maskMatcher(globs: readonly string[]): (relPath: string) => boolean {
  let match: (s: string) => boolean;
  try {
    match = picomatch([...ALWAYS_MASKED, ...globs], { dot: true, nocase: true });
  } catch (e) {
    throw new SandboxError('invalid-profile', `A glob of ${settingId('maskedFiles')} cannot be read (${String(e)}), so nothing ran.`, `Fix ${settingId('maskedFiles')} in your user settings.`);
  }
  return (relPath) => {
    const name = relPath.slice(relPath.lastIndexOf('/') + 1);
    return match(name) || match(relPath);
  };
}

/**
 * Walks `root` (an absolute, symlink-free directory: the checked mount source) breadth-first and
 * lists what to hide; masked folders are not entered. Entries that vanish during the walk are skipped.
 * @param globs the user's globs (`.git` is always added)
 * @param maxEntries bound on entries read (default {@link MAX_WALK_ENTRIES})
 * @returns the entries, in walk order, shortest paths first
 * @throws SandboxError `invalid-mount` when the folder has more entries than the bound or more
 *   matches than {@link MAX_MASKS}: the run is refused rather than run with some unmasked
 */
export async function findMasked(root: string, globs: readonly string[], maxEntries = MAX_WALK_ENTRIES): Promise<MaskEntry[]> {
  const matches = maskMatcher(globs);
  const out = new Map<string, MaskEntry>();
  const queue: string[] = [''];
  let seen = 0;
  const tooMany = (what: string) =>
    new SandboxError(
      'invalid-mount',
      `The workspace folder ${root} ${what}, so its secrets could not all be masked and nothing ran.`,
      'Open a smaller folder (the file\'s own project) as the workspace, or set the profile\'s "workspace" to "none".',
    );
  while (queue.length > 0) {
    const dir = queue.shift()!;
    const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
    if (seen + entries.length > maxEntries) throw tooMany(`has more than ${maxEntries} files and folders to look through`);
    const linked = await hardLinked(join(root, dir), entries);
    for (const e of entries) {
      ++seen;
      const rel = dir === '' ? e.name : `${dir}/${e.name}`;
      if (linked.has(e.name)) {
        out.set(rel, { path: rel, kind: 'file' });
        if (out.size > MAX_MASKS) throw tooMany(`has more than ${MAX_MASKS} entries to mask`);
      } else if (matches(rel)) {
        const hit = e.isSymbolicLink() ? await linkTarget(root, rel) : { path: rel, kind: e.isDirectory() ? 'dir' as const : 'file' as const };
        if (hit) out.set(hit.path, hit);
        if (out.size > MAX_MASKS) throw tooMany(`has more than ${MAX_MASKS} entries to mask`);
      } else if (e.isDirectory()) {
        queue.push(rel);
      }
    }
  }
  // A link's target may lie inside a folder that is masked itself: the folder's mask covers it.
  const all = [...out.values()];
  return all.filter((m) => !all.some((d) => d.kind === 'dir' && d !== m && m.path.startsWith(d.path + '/')));
}

/**
 * The names among `entries` (of directory `dir`) that are regular files with more than one hard
 * link. An entry that vanishes or cannot be read is left out (it cannot be mounted either).
 */
async function hardLinked(dir: string, entries: readonly Dirent[]): Promise<Set<string>> {
  const files = entries.filter((e) => e.isFile());
  const links = await Promise.all(files.map((e) => lstat(join(dir, e.name)).then((s) => s.isFile() && s.nlink > 1, () => false)));
  return new Set(files.filter((_, i) => links[i]).map((e) => e.name));
}

/** Where a matching symlink leads, as a mask entry, when that is an existing entry inside `root`. */
async function linkTarget(root: string, rel: string): Promise<MaskEntry | undefined> {
  const real = await realpath(join(root, rel)).catch(() => undefined);
  if (real === undefined || real === root || !isHostPathInside(real, root)) return undefined;
  const info = await stat(real).catch(() => undefined);
  if (!info || (!info.isDirectory() && !info.isFile())) return undefined;
  // The target itself must not be a link any more (realpath) and is reached through real folders.
  if ((await lstat(real)).isSymbolicLink()) return undefined;
  return { path: relative(root, real).split(sep).join('/'), kind: info.isDirectory() ? 'dir' : 'file' };
}
