/**
 * The launcher: a constant `sh -c` script (no profile or user text inside it) that receives the
 * code over the container's stdin and starts the program, and the one channel the runner reads to
 * know how far it got. It writes fixed marker lines to stderr; the program does not exist before
 * the last one, so it cannot write before it or instead of it. The runner decides "could not
 * start" only from these markers (or their absence) and from the engine's state, never from
 * text the program prints.
 *
 * Protocol (one on every path, cold and warm):
 * 1. `waiting`: the launcher runs and waits for a frame on stdin. Everything on stderr before it
 *    is the docker CLI's or the engine's (warnings) and never program output. The runner checks
 *    the container (precheck.ts) and only then sends the frame.
 * 2. The frame (see {@link encodeFrame}): `<decimal byte count>\n<bytes>`. The header line is read
 *    with `read -r` (byte-exact on a pipe: shells read a pipe one byte at a time), the bytes with
 *    `dd bs=N count=1 iflag=fullblock` (exact in busybox and GNU dd; busybox `head -c N` reads
 *    past N and would swallow the program's stdin); N=0 makes an empty file without dd. The
 *    written size is verified, the file made executable (0755: a shebang script may be the command).
 * 3. `ready`: the command was found (`command -v`); the launcher execs the program with the REST
 *    OF STDIN: it belongs to the program. `no-command`: not found; nothing ran.
 * No `waiting` at all: the launcher never ran (no `sh` in the image, or the engine failed to start
 * the container), so no code ran either. `waiting` but neither of the others: the launcher failed
 * while receiving the code (exit 125), no program ran.
 * The image's ENTRYPOINT is replaced (`--entrypoint sh`, argv.ts), so nothing of the image runs
 * before the launcher.
 */

/** Marker byte that opens every launcher line: ASCII RS, never part of an ordinary first line. */
const RS = '\u001e';

/** The launcher's marker lines on stderr (each ends with "\n"). */
export const PREAMBLE = {
  waiting: `${RS}sandbox-runner:waiting\n`,
  ready: `${RS}sandbox-runner:ready\n`,
  noCommand: `${RS}sandbox-runner:no-command\n`,
} as const;

/** The longest marker, bytes (all are ASCII). */
const PREAMBLE_MAX = Math.max(...Object.values(PREAMBLE).map((p) => p.length));

/** Most bytes kept of what is not program output (the init process's or engine's words). */
const HELD_MAX = 16 * 1024;

/**
 * The launcher, run as `sh -c LAUNCHER SNIPPET_PATH PROGRAM…` (`$0` is the snippet path, `$1…` the
 * program argv). `printf '\036…'` writes the RS byte (POSIX printf octal escape; dash, bash and
 * busybox agree). Exit 125 on any failure before the program starts.
 */
export const LAUNCHER = [
  'printf \'\\036sandbox-runner:waiting\\n\' >&2',
  'IFS= read -r n || exit 125',
  'case $n in \'\'|*[!0-9]*) exit 125;; esac',
  'if [ "$n" -eq 0 ]; then : > "$0" || exit 125; else dd of="$0" bs="$n" count=1 iflag=fullblock 2>/dev/null || exit 125; fi',
  's=$(wc -c < "$0") && [ $s -eq "$n" ] || exit 125',
  'chmod 755 "$0" || exit 125',
  'command -v "$1" >/dev/null 2>&1 || { printf \'\\036sandbox-runner:no-command\\n\' >&2; exit 127; }',
  'printf \'\\036sandbox-runner:ready\\n\' >&2 && exec "$@"',
  'exit 125',
].join('\n');

/**
 * The frame that carries the code over stdin: the byte count in decimal ASCII, a newline, then
 * the bytes unchanged (a string as UTF-8). Whatever follows the frame on stdin is the program's.
 */
export function encodeFrame(code: string | Uint8Array): Buffer {
  const body = typeof code === 'string' ? Buffer.from(code, 'utf8') : Buffer.from(code.buffer, code.byteOffset, code.byteLength);
  return Buffer.concat([Buffer.from(`${body.byteLength}\n`, 'latin1'), body]);
}

/**
 * What stderr said about the launcher so far: `pending` (nothing yet), `waiting` (it waits for the
 * frame), `ready` (the program starts), `no-command`, or `absent` (the stream ended without
 * `ready`/`no-command`; see {@link PreambleReader.waited} for how far it got).
 */
export type LauncherVerdict = 'pending' | 'waiting' | 'ready' | 'no-command' | 'absent';

/** Finds the earliest of `markers` in `buf` (latin1), within the held bound. */
function findMarker(buf: Buffer, markers: readonly (readonly [LauncherVerdict, string])[]) {
  return markers
    .map(([verdict, line]) => ({ verdict, line, at: buf.indexOf(line, 0, 'latin1') }))
    .filter((f) => f.at >= 0 && f.at < HELD_MAX)
    .sort((x, y) => x.at - y.at)[0];
}

/**
 * Reads the launcher's markers off a stderr byte stream. Bytes are held until the expected marker
 * appears (within the first 16 KiB); whatever came before it is the CLI's, the engine's or the
 * launcher's words, kept for diagnostics and never program output. After `ready` every later byte
 * passes through unchanged; after `no-command`, or without `ready` at all, nothing of the program
 * ever ran.
 */
export class PreambleReader {
  private held = Buffer.alloc(0);
  /** What came before the `waiting` marker (the CLI's words), once it was seen. */
  private before = Buffer.alloc(0);
  private state: LauncherVerdict = 'pending';
  private sawWaiting = false;

  /** The verdict so far. */
  get verdict(): LauncherVerdict {
    return this.state;
  }

  /** True once the `waiting` marker was seen (the launcher ran in the container). */
  get waited(): boolean {
    return this.sawWaiting;
  }

  /**
   * Takes one stderr chunk.
   * @returns the bytes that belong to the program (empty until the verdict is `ready`)
   */
  push(chunk: Uint8Array): Buffer {
    if (this.state === 'ready') return Buffer.from(chunk);
    this.held = Buffer.concat([this.held, chunk]);
    if (this.state === 'pending') this.step([['waiting', PREAMBLE.waiting]]);
    if (this.state === 'waiting') this.step([['ready', PREAMBLE.ready], ['no-command', PREAMBLE.noCommand]]);
    if ((this.state as LauncherVerdict) === 'ready') {
      const rest = this.rest;
      this.rest = Buffer.alloc(0);
      return rest;
    }
    if (this.state === 'pending' || this.state === 'waiting') {
      if (this.held.length >= HELD_MAX + PREAMBLE_MAX) this.state = 'absent';
    }
    if (this.state !== 'pending' && this.state !== 'waiting') this.held = this.held.subarray(0, HELD_MAX);
    return Buffer.alloc(0);
  }

  private rest = Buffer.alloc(0);

  /** Moves to the verdict of the earliest marker of `markers` found in the held bytes. */
  private step(markers: readonly (readonly [LauncherVerdict, string])[]): void {
    const found = findMarker(this.held, markers);
    if (!found) return;
    this.state = found.verdict;
    if (found.verdict === 'waiting') this.sawWaiting = true;
    const after = this.held.subarray(found.at + found.line.length);
    this.held = this.held.subarray(0, found.at);
    if (found.verdict === 'ready') this.rest = Buffer.from(after);
    else if (found.verdict === 'waiting') {
      this.before = this.held;
      this.held = Buffer.from(after);
    }
  }

  /** Ends the stream: a `ready` or `no-command` that never came counts as absent. */
  end(): void {
    if (this.state === 'pending' || this.state === 'waiting') this.state = 'absent';
  }

  /** Bytes held back that are not program output (the CLI's, init process's or engine's words), as text. */
  heldText(): string {
    return Buffer.concat([this.before, this.held]).subarray(0, HELD_MAX).toString('utf8');
  }
}
