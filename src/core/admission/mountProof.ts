/**
 * Proof, on an engine of this host, that a started container has the checked directories mounted:
 * `Mounts[].Source` shows only the path as given (for a pinned mount, the engine's volume
 * directory), so the host's view of the container is read instead. Through `/proc/<pid>/root`
 * (pid: the container's init process, `State.Pid`) the mount target must be the very inode that
 * was checked and pinned (same `st_dev` and `st_ino` as the pinned descriptor, mounts.ts), and
 * `/proc/<pid>/mountinfo` (proc(5)) must show a read-only mount where the profile asked for one.
 * When this process may not look into the container's root (`/proc/<pid>/root` needs ptrace
 * access: a user in the docker group is not root), the device of the mount in mountinfo is
 * compared instead (weaker: same filesystem, not same directory); that is said in SECURITY notes.
 * Under gVisor (runsc) the process that holds the container's files is its gofer, not the sandbox
 * process the engine reports ({@link mountProofProblems}).
 */
import { readFile, stat } from 'node:fs/promises';
import type { ResolvedMount } from '../container/argv';
import { RUNSC_GOFER_ARGV0, runscGoferPid } from '../engine/hostPid';

/** One mountinfo line's fields the proof reads. */
interface MountLine {
  readonly dev: string;
  readonly mountPoint: string;
  readonly options: readonly string[];
}

/** Parses `/proc/<pid>/mountinfo` (proc(5)): `id parent major:minor root mountpoint options …`; octal escapes decoded. */
export function parseMountinfo(text: string): MountLine[] {
  const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
  return text.split('\n').flatMap((line) => {
    const f = line.split(' ');
    return f.length >= 6 ? [{ dev: f[2]!, mountPoint: unescape(f[4]!), options: f[5]!.split(',') }] : [];
  });
}

/** `major:minor` of a `st_dev` (Linux encoding, as glibc's gnu_dev_major/minor). */
export function devString(dev: number): string {
  const d = BigInt(dev);
  const major = ((d >> 8n) & 0xfffn) | ((d >> 32n) & ~0xfffn);
  const minor = (d & 0xffn) | ((d >> 12n) & ~0xffn);
  return `${major}:${minor}`;
}

/**
 * Problems with the pinned mounts of the container whose init process is `pid` (empty when each
 * target is the checked directory, read-only where asked). Mounts without a pin are not proved.
 * @param pid host pid of the container's init process (`State.Pid`), > 0
 */
export async function mountSourceProblems(pid: number, mounts: readonly ResolvedMount[]): Promise<string[]> {
  const pinned = mounts.filter((m) => m.pinned !== undefined);
  if (pinned.length === 0) return [];
  const lines = parseMountinfo(await readFile(`/proc/${pid}/mountinfo`, 'utf8').catch(() => ''));
  const out: string[] = [];
  for (const m of pinned) {
    const line = lines.filter((l) => l.mountPoint === m.target).at(-1);
    const want = await stat(m.pinned!);
    if (!line) {
      out.push(`nothing is mounted at ${m.target} in the container`);
      continue;
    }
    if (m.readOnly && !line.options.includes('ro')) out.push(`the mount at ${m.target} is not read-only`);
    const seen = await stat(`/proc/${pid}/root${m.target}`).catch((e: NodeJS.ErrnoException) => e.code ?? 'error');
    if (typeof seen === 'string') {
      if (seen !== 'EACCES' && seen !== 'EPERM') out.push(`the mount at ${m.target} could not be read (${seen})`);
      else if (line.dev !== devString(want.dev)) out.push(`the mount at ${m.target} is on another device than ${m.source}`);
    } else if (seen.dev !== want.dev || seen.ino !== want.ino) {
      out.push(`the mount at ${m.target} is not the checked directory ${m.source}`);
    }
  }
  return out;
}

/**
 * The pinned-mount proof ({@link mountSourceProblems}) through the process that holds the container's file tree:
 * the init process under runc; under gVisor the container's gofer (hostPid.ts `runscGoferPid`), as
 * the sandbox process the engine reports shows no mounts. A gVisor container whose gofer is not
 * found is refused when it has pinned mounts: what it would serve cannot be proved.
 * @param id the container's full ID (inspect `Id`)
 * @param pid the container's process as a pid of this host (hostPid.ts), > 0
 */
export async function mountProofProblems(id: string, pid: number, mounts: readonly ResolvedMount[]): Promise<string[]> {
  if (!mounts.some((m) => m.pinned !== undefined)) return [];
  const gofer = await runscGoferPid(id, pid);
  if (gofer === 0) return [`the container runs under gVisor, and its file server (${RUNSC_GOFER_ARGV0}) is not a process of this host, so its pinned mounts cannot be proved`];
  return mountSourceProblems(gofer ?? pid, mounts);
}
