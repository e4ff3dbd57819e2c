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
 * stdin from /dev/null. `$1…` are the program argv; `$0` is the snippet path.
 * `printf '\036…'` writes the RS byte (POSIX printf octal escape; dash, bash and busybox agree).
 */
const EXEC_TAIL =
  'command -v "$1" >/dev/null 2>&1 || { printf \'\\036sandbox-runner:no-command\\n\' >&2; exit 127; }; ' +
  'printf \'\\036sandbox-runner:ready\\n\' >&2; ' +
  'exec "$@" </dev/null';

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
 * Reads the launcher's preamble off the start of a stderr byte stream. Bytes are held until the
 * verdict is known (at most the preamble's length); after `ready` every later byte passes through
 * unchanged; after `no-command` or `absent` nothing of the program ever ran, and the held bytes
 * (the init process's or the engine's own words) are kept for diagnostics, not program output.
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
    this.held = Buffer.concat([this.held, chunk]).subarray(0, HELD_MAX);
    if (this.state !== 'pending') return Buffer.alloc(0);
    for (const [verdict, line] of [['ready', PREAMBLE.ready], ['no-command', PREAMBLE.noCommand]] as const) {
      if (this.held.length >= line.length && this.held.subarray(0, line.length).toString('latin1') === line) {
        this.state = verdict;
        const rest = this.held.subarray(line.length);
        this.held = Buffer.alloc(0);
        return verdict === 'ready' ? rest : Buffer.alloc(0);
      }
    }
    const prefixOfSome = Object.values(PREAMBLE).some((line) => line.startsWith(this.held.subarray(0, PREAMBLE_MAX).toString('latin1')));
    if (!prefixOfSome) this.state = 'absent';
    return Buffer.alloc(0);
  }

  /** Ends the stream: a preamble that never completed counts as absent. */
  end(): void {
    if (this.state === 'pending') this.state = 'absent';
  }

  /** Bytes held back that are not program output (the init process's or engine's words), as text. */
  heldText(): string {
    return this.held.toString('utf8');
  }
}
