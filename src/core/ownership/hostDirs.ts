/**
 * The host folders of dead owners, removed by the orphan sweep: snippet directories of the direct
 * path (snippet.ts), pin anchor directories (mounts.ts) and engine work directories
 * (engine/podman/workDir.ts). A folder is removed only when its owner (pid and start time in its
 * name, judged by liveness.ts as a container's labels are) is provably gone and it holds nothing
 * but what the product puts there; anything else is left alone.
 */
import { lstatSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SNIPPET_HOST_DIR_PREFIX } from '../layout';
import { ENGINE_DIR_NAME } from '../engine/podman/workDir';
import { ANCHOR_NAME, anchorRoots } from '../mounts/mounts';
import { localOwnerDead, localProbe, type ProcessProbe } from './liveness';

/** A snippet directory's path as snippet.ts `writeSnippet` makes it: `…/sandbox-runner-XXXXXX`. */
const SNIPPET_HOST_DIR = new RegExp(`/${SNIPPET_HOST_DIR_PREFIX}[A-Za-z0-9]{6}$`);

/**
 * Deletes a dead run's snippet directory (see `snippet.ts`), but only when it is exactly what
 * `writeSnippet` makes: a real directory named `sandbox-runner-XXXXXX` directly in the OS temp
 * directory, holding nothing but `main[.ext]`. Anything else is left alone.
 */
export function removeStaleSnippetDir(dir: string): boolean {
  try {
    if (!SNIPPET_HOST_DIR.test(dir) || dirname(dir) !== realpathSync(tmpdir())) return false;
    if (!lstatSync(dir).isDirectory()) return false;
    if (!readdirSync(dir).every((f) => /^main(\.[A-Za-z0-9_+-]{1,16})?$/.test(f))) return false;
    rmSync(dir, { recursive: true, force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the engine work directories (docker.ts `engineWorkDir`) of processes that are provably
 * gone, judged by the owner pid and start time in the name as the pin anchors are. Only a real
 * directory holding nothing but container subdirectories (empty, or conmon's `oom` file) and
 * `seccomp-N.json` files is removed; anything else is left alone.
 * @param root where the directories are (default: the OS temp dir, where docker.ts makes them)
 * @returns the removed directories
 */
export function removeStaleEngineDirs(probe: ProcessProbe = localProbe(), root: string = tmpdir()): string[] {
  const ours = (dir: string, f: string) => {
    const path = join(dir, f);
    if (/^seccomp-\d+\.json$/.test(f)) return lstatSync(path).isFile();
    return /^sandbox-runner-[A-Za-z0-9_.-]+$/.test(f) && lstatSync(path).isDirectory() && readdirSync(path).every((g) => g === 'oom');
  };
  return removeDeadOwnerDirs(root, ENGINE_DIR_NAME, (dir) => readdirSync(dir).every((f) => ours(dir, f)), probe).sort();
}

/**
 * Removes the real directories directly in `root` whose name `pattern` matches (group 1: the
 * owner pid, group 2: its start time), whose owner is provably gone ({@link localOwnerDead}), and
 * whose entries are all ours (`holdsOnlyOurs`, which may throw: the directory is then kept). An
 * unreadable `root` and directories gone meanwhile are skipped.
 * @returns the removed directories
 */
function removeDeadOwnerDirs(root: string, pattern: RegExp, holdsOnlyOurs: (dir: string) => boolean, probe: ProcessProbe): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m || !localOwnerDead(m[1]!, m[2]!, probe)) continue;
    const dir = join(root, name);
    try {
      if (!lstatSync(dir).isDirectory() || !holdsOnlyOurs(dir)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}

/**
 * Removes the pin anchor directories (mounts.ts) of runs whose owner is provably gone, judged by
 * the owner pid and start time in the name as a container's owner is judged by its labels (same
 * host, boot and pid namespace as this process: the directory is local). Only a real directory
 * holding nothing but the anchor's links (32 hex digits) is removed; anything else is left alone.
 * @returns the removed directories
 */
export function removeStaleAnchors(probe: ProcessProbe = localProbe(), roots: readonly string[] = anchorRoots()): string[] {
  const onlyLinks = (dir: string) => readdirSync(dir).every((f) => /^[0-9a-f]{32}$/.test(f) && lstatSync(join(dir, f)).isSymbolicLink());
  return roots.flatMap((root) => removeDeadOwnerDirs(root, ANCHOR_NAME, onlyLinks, probe)).sort();
}
