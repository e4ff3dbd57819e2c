/**
 * Where a failed run's last error says a write met a read-only file system (issue 25: "Read-only
 * root named"). The kernel's EROFS is not visible to the runner (no audit of failed writes reaches
 * it without tracing the program), so this reads the program's last stderr lines, and only ever
 * for WORDING: the result's outcome and exit status are decided as before, and the note it leads
 * to is a hint (rules.ts, `certain: false`), given only after a non-zero exit. The path it finds
 * is compared with the places the sandbox makes writable; it is never shown (program text stays
 * out of our own lines) and never decides what the runner does.
 */
import { SANDBOX_HOME, SNIPPET_DIR } from '../layout';
import type { Profile } from '../profiles/profileSchema';

/** Most bytes of the program's stderr kept for the hint (its end). */
const TAIL_BYTES = 2048;
/** Non-empty lines from the end searched (Node prints its stack, the error's fields and its version after the message). */
const TAIL_LINES = 24;

/** The last {@link TAIL_BYTES} bytes of a stream, as the program wrote them. */
export class StreamTail {
  private tail = Buffer.alloc(0);

  /** Takes the next chunk of the stream. */
  push(chunk: Uint8Array): void {
    this.tail = Buffer.concat([this.tail, chunk]).subarray(-TAIL_BYTES);
  }

  /** The kept end of the stream, decoded as UTF-8 (invalid bytes as U+FFFD). */
  text(): string {
    return this.tail.toString('utf8');
  }
}

/**
 * What the hint names: the read-only root (`root`), or a read-only mount at `target` (the
 * profile's `"mode": "ro"` mount, or the workspace mount).
 */
export type ReadOnlyWrite = { readonly kind: 'root' } | { readonly kind: 'mount'; readonly target: string };

/** `path` is `dir` or inside it. */
function under(path: string, dir: string): boolean {
  const d = dir.replace(/\/+$/, '');
  return path === d || path.startsWith(`${d}/`);
}

/**
 * The read-only place a failed write in `stderrTail` names, or undefined. Looks at the last
 * {@link TAIL_LINES} non-empty lines for the latest that says "read-only file system" with a path (Python's `[Errno 30]
 * Read-only file system: '/x'`, sh's `can't create /x: Read-only file system`, Node's `EROFS:
 * read-only file system, open '/x'`) and takes its last absolute path outside the snippet folder.
 * A path where the sandbox lets the program write (/tmp, HOME, the working directory, the snippet
 * folder, a `"rw"` mount) gives undefined: the failure was not the floor's.
 * @param workspaceTarget the container path of a `workspace: "ro"` run's folder, if any
 */
export function readOnlyWrite(stderrTail: string, profile: Profile, workspaceTarget?: string): ReadOnlyWrite | undefined {
  const lines = stderrTail.split('\n').filter((l) => l.trim() !== '').slice(-TAIL_LINES);
  const pathIn = (l: string) => [...l.matchAll(/(?:^|[\s'"`(=])(\/[^\s'"`:,)]*)/g)].map((m) => m[1]!).filter((p) => !under(p, SNIPPET_DIR)).at(-1);
  const said = lines.reverse().find((l) => /read-only file system/i.test(l) && pathIn(l) !== undefined);
  if (!said) return undefined;
  const path = pathIn(said);
  if (!path || path.includes('/../')) return undefined;
  const mounts = [...profile.mounts.map((m) => ({ target: m.target, ro: m.mode !== 'rw' })), ...(workspaceTarget ? [{ target: workspaceTarget, ro: true }] : [])];
  // The innermost mount holding the path decides; then the floor's writable places.
  const mount = mounts.filter((m) => under(path, m.target)).sort((a, b) => b.target.length - a.target.length)[0];
  if (mount) return mount.ro ? { kind: 'mount', target: mount.target } : undefined;
  if ([ '/tmp', SANDBOX_HOME, profile.workdir, '/dev/shm' ].some((d) => under(path, d))) return undefined;
  return { kind: 'root' };
}
