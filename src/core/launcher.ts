/**
 * The launcher: a constant `sh -c` script (no profile or user text inside it) that starts the
 * program in the container, and the one channel the runner reads to know whether the program
 * itself ever started. Before it execs the program, the launcher writes a fixed preamble line to
 * stderr; the program does not exist yet, so it cannot write before that line or instead of it.
 * The runner strips the preamble and decides "could not start" only from it (or from its absence)
 * and from the engine's state, never from text the program prints.
 *
 * - `ready` preamble: the command was found; everything after it, and the exit status, belong to
 *   the program (an exit 126/127 is the program's own).
 * - `no-command` preamble: `command -v` did not find the profile's command in the image; nothing ran.
 * - no preamble at all: the launcher itself never ran (no `sh` in the image, or the engine failed
 *   to start the container), so no code ran either: the runner may retry or report a start failure.
 * The image's ENTRYPOINT is replaced (`--entrypoint sh`, argv.ts), so nothing of the image runs
 * before the launcher; the docker CLI's own warnings may precede the preamble and are skipped.
 */

/** Preamble byte that opens every launcher line: ASCII RS, never part of an ordinary first line. */
const RS = '\u001e';

/** The launcher's preamble lines on stderr (each ends with "\n"). */
export const PREAMBLE = {
  ready: `${RS}sandbox-runner:ready\n`,
  noCommand: `${RS}sandbox-runner:no-command\n`,
} as const;

/** The longest preamble, bytes (all are ASCII). */
const PREAMBLE_MAX = Math.max(...Object.values(PREAMBLE).map((p) => p.length));

/** Most bytes kept of what is not program output (the init process's or engine's words). */
const HELD_MAX = 16 * 1024;

/**
 * The shared tail of both launchers: check the command, write the preamble, exec the program with
 * stdin from /dev/null (only once the preamble was written: without it the runner could not tell
 * the program's output from the launcher's). `$1…` are the program argv; `$0` is the snippet path.
 * `printf '\036…'` writes the RS byte (POSIX printf octal escape; dash, bash and busybox agree).
 */
const EXEC_TAIL =
  'command -v "$1" >/dev/null 2>&1 || { printf \'\\036sandbox-runner:no-command\\n\' >&2; exit 127; }; ' +
  'printf \'\\036sandbox-runner:ready\\n\' >&2 && exec "$@" </dev/null; ' +
  'exit 125';

/**
 * Cold-path launcher: the snippet is already bind-mounted read-only (with its execute bit); run
 * as `sh -c COLD_LAUNCHER SNIPPET_PATH PROGRAM…`.
 */
export const COLD_LAUNCHER = EXEC_TAIL;

/**
 * Warm-path launcher: copies all of standard input into the snippet file (`$0`), makes it
 * executable (shebang scripts run as `${file}`), then goes on as the cold launcher.
 */
export const WARM_LAUNCHER = 'cat > "$0" || exit 125; chmod 755 "$0" || exit 125; ' + EXEC_TAIL;

/** What the start of stderr said about the launcher. */
export type LauncherVerdict = 'pending' | 'ready' | 'no-command' | 'absent';

/**
 * Reads the launcher's preamble off a stderr byte stream. The preamble need not be the first
 * bytes: the docker CLI may print its own warnings on the same stream first (a malformed client
 * config, for example). Bytes are held until a preamble line appears (within the first 16 KiB);
 * whatever came before it is the CLI's or the engine's words, kept for diagnostics and never
 * program output. After `ready` every later byte passes through unchanged; after `no-command`,
 * or when no preamble came at all (`absent`), nothing of the program ever ran.
 */
export class PreambleReader {
  private held = Buffer.alloc(0);
  private state: LauncherVerdict = 'pending';

  /** The verdict so far. */
  get verdict(): LauncherVerdict {
    return this.state;
  }

  /**
   * Takes one stderr chunk.
   * @returns the bytes that belong to the program (empty until the verdict is `ready`)
   */
  push(chunk: Uint8Array): Buffer {
    if (this.state === 'ready') return Buffer.from(chunk);
    if (this.state !== 'pending') {
      this.held = Buffer.concat([this.held, chunk]).subarray(0, HELD_MAX);
      return Buffer.alloc(0);
    }
    this.held = Buffer.concat([this.held, chunk]);
    const found = (
      [['ready', PREAMBLE.ready], ['no-command', PREAMBLE.noCommand]] as const
    )
      .map(([verdict, line]) => ({ verdict, line, at: this.held.indexOf(line, 0, 'latin1') }))
      .filter((f) => f.at >= 0 && f.at < HELD_MAX)
      .sort((x, y) => x.at - y.at)[0];
    if (found) {
      this.state = found.verdict;
      const rest = this.held.subarray(found.at + found.line.length);
      this.held = this.held.subarray(0, found.at);
      return found.verdict === 'ready' ? Buffer.from(rest) : Buffer.alloc(0);
    }
    if (this.held.length >= HELD_MAX + PREAMBLE_MAX) {
      this.state = 'absent';
      this.held = this.held.subarray(0, HELD_MAX);
    }
    return Buffer.alloc(0);
  }

  /** Ends the stream: a preamble that never came counts as absent. */
  end(): void {
    if (this.state === 'pending') this.state = 'absent';
  }

  /** Bytes held back that are not program output (the CLI's, init process's or engine's words), as text. */
  heldText(): string {
    return this.held.subarray(0, HELD_MAX).toString('utf8');
  }
}
