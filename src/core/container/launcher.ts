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
 * 2. The frame (see {@link encodeFrame}): `<decimal byte count>\n<bytes>`, or with program
 *    arguments (programArgs.ts) `<byte count> <argument count>\n<bytes>`, then per argument
 *    `<byte count>\n<bytes>`, then `end\n`: each one read with `dd` into a variable and appended
 *    to the launcher's argv (`set -- "$@" "$a"`), never parsed or expanded by the shell. The header line is read
 *    with `read -r` (byte-exact on a pipe: shells read a pipe one byte at a time), the bytes with
 *    `dd bs=N count=1 iflag=fullblock` (exact in busybox and GNU dd; busybox `head -c N` reads
 *    past N and would swallow the program's stdin); N=0 makes an empty file without dd. The
 *    written size is verified, the file made executable (0755: a shebang script may be the command).
 * 3. `ready`: the command was found (`command -v`); the launcher execs the program with the REST
 *    OF STDIN: it belongs to the program. `no-command`: not found; nothing ran.
 * With a compile step (a profile's `compile`, issue 23; {@link COMPILE_LAUNCHER}): after the frame,
 * `compiling`, then the compiler runs with stdin from /dev/null and its stdout and stderr both
 * going to stderr with every RS byte removed (`tr -d`), so nothing it prints (it may quote the
 * source) can make a marker; then `ready` and the program, or `compile-failed` and the launcher
 * exits with the compiler's status. Between `compiling` and the next marker the bytes are output.
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
  compiling: `${RS}sandbox-runner:compiling\n`,
  compileFailed: `${RS}sandbox-runner:compile-failed\n`,
} as const;

/**
 * The TTY launcher's markers ({@link TTY_LAUNCHER}): the same words, closed by RS instead of a
 * newline, so a terminal's output processing (`\n` → `\r\n`, onlcr) can never change them.
 * `noStty`: the image has no `stty`, so the terminal could not be made raw; nothing was sent.
 */
export const TTY_PREAMBLE = {
  waiting: `${RS}sandbox-runner:waiting${RS}`,
  ready: `${RS}sandbox-runner:ready${RS}`,
  noCommand: `${RS}sandbox-runner:no-command${RS}`,
  noStty: `${RS}sandbox-runner:no-stty${RS}`,
  compiling: `${RS}sandbox-runner:compiling${RS}`,
  compileFailed: `${RS}sandbox-runner:compile-failed${RS}`,
} as const;

/** A marker set a {@link PreambleReader} looks for: the pipe launcher's or the TTY launcher's. */
export type PreambleMarkers = typeof PREAMBLE | typeof TTY_PREAMBLE;

/** The longest marker, bytes (all are ASCII). */
const PREAMBLE_MAX = Math.max(...[...Object.values(PREAMBLE), ...Object.values(TTY_PREAMBLE)].map((p) => p.length));

/** Most bytes kept of what is not program output (the init process's or engine's words). */
const HELD_MAX = 16 * 1024;

/**
 * The launchers' reading of program arguments (after the code; `$c` is the count from the header):
 * per argument a `<byte count>` line, then that many bytes read by `dd` inside a command
 * substitution (a trailing `x` keeps trailing newlines, then goes), appended to `"$@"`; then the
 * line `end` (a frame cut short fails there: `dd` stops early only at end of input). The bytes are
 * only ever a variable's value: never parsed, split or expanded. Exit 125 on any failure.
 */
const ARGS_READER = [
  'if [ "$c" -gt 0 ]; then',
  'while [ "$c" -gt 0 ]; do',
  'IFS= read -r l || exit 125',
  'case $l in \'\'|*[!0-9]*) exit 125;; esac',
  'if [ "$l" -eq 0 ]; then a=; else a=$(dd bs="$l" count=1 iflag=fullblock 2>/dev/null && printf x) || exit 125; a=${a%x}; fi',
  'set -- "$@" "$a"; c=$((c - 1))',
  'done',
  'IFS= read -r l && [ "$l" = end ] || exit 125',
  'fi',
].join('\n');

/** The pipe launcher up to the program: the `waiting` marker, the frame, the code file and the arguments. */
const PIPE_RECEIVE = [
  'printf \'\\036sandbox-runner:waiting\\n\' >&2',
  'IFS=\' \' read -r n c || exit 125',
  'case $n in \'\'|*[!0-9]*) exit 125;; esac',
  'case ${c:=0} in *[!0-9]*) exit 125;; esac',
  'if [ "$n" -eq 0 ]; then : > "$0" || exit 125; else dd of="$0" bs="$n" count=1 iflag=fullblock 2>/dev/null || exit 125; fi',
  's=$(wc -c < "$0") && [ $s -eq "$n" ] || exit 125',
  'chmod 755 "$0" || exit 125',
  ARGS_READER,
];

/**
 * The launcher, run as `sh -c LAUNCHER SNIPPET_PATH PROGRAM…` (`$0` is the snippet path, `$1…` the
 * program argv). `printf '\036…'` writes the RS byte (POSIX printf octal escape; dash, bash and
 * busybox agree). Exit 125 on any failure before the program starts.
 */
export const LAUNCHER = [
  ...PIPE_RECEIVE,
  'command -v "$1" >/dev/null 2>&1 || { printf \'\\036sandbox-runner:no-command\\n\' >&2; exit 127; }',
  'printf \'\\036sandbox-runner:ready\\n\' >&2 && exec "$@"',
  'exit 125',
].join('\n');

/**
 * The compile step of {@link COMPILE_LAUNCHER} and {@link TTY_COMPILE_LAUNCHER}, after the frame
 * and arguments were read: `$1` is the compile argv's word count K, then come K compile words,
 * then the program argv and its arguments. The compiler runs in a subshell that keeps only the
 * first K words (`for` expands its list once), stdin /dev/null, stdout and stderr merged through
 * `tr -d '\036'` to stderr (no marker can come from it), its status back on fd 3. `print` writes
 * one marker word (the pipe or the TTY form).
 */
function compileStep(print: (word: string) => string): string[] {
  return [
    'k=$1; shift',
    'case $k in \'\'|*[!0-9]*) exit 125;; esac',
    `command -v "$1" >/dev/null 2>&1 || { ${print('no-command')}; exit 127; }`,
    print('compiling'),
    'st=$( { { ( n=$#; i=0; for a; do [ "$i" -lt "$k" ] && set -- "$@" "$a"; i=$((i + 1)); done; shift "$n"; exec "$@" ) </dev/null 2>&1 3>&-; echo $? >&3; } | tr -d \'\\036\' >&2; } 3>&1 )',
    'case $st in \'\'|*[!0-9]*) exit 125;; esac',
    `[ "$st" -eq 0 ] || { ${print('compile-failed')}; exit "$st"; }`,
    'shift "$k"',
    // The program the compile step should have written: without it nothing runs (no-command).
    `command -v "$1" >/dev/null 2>&1 || { ${print('no-command')}; exit 127; }`,
    `${print('ready')} && exec "$@"`,
    'exit 125',
  ];
}

/**
 * The launcher of a profile with `compile` (issue 23), run as
 * `sh -c COMPILE_LAUNCHER SNIPPET_PATH K COMPILE… PROGRAM…`: {@link LAUNCHER} up to the
 * arguments, then {@link compileStep}. `compile-failed` ends it with the compiler's status.
 */
export const COMPILE_LAUNCHER = [
  ...PIPE_RECEIVE,
  ...compileStep((word) => `printf '\\036sandbox-runner:${word}\\n' >&2`),
].join('\n');

/**
 * The launcher of a TTY run (`docker create -t -i` + `docker start -a -i`, argv.ts
 * `buildTtyCreateArgv`), run as `sh -c TTY_LAUNCHER SNIPPET_PATH PROGRAM…`. Its stdin and stdout
 * are the container's terminal, which would mangle a frame sent as typed text (0x03 is SIGINT,
 * 0x04 end-of-file, 0x7f erase, CR becomes LF, and every byte is echoed back), so it first saves
 * the terminal's settings (`stty -g`) and makes it raw without echo (`stty raw -echo`: every byte
 * passes as it is, nothing is echoed, no signal characters), and only then prints `waiting`. The
 * frame ({@link encodeTtyFrame}) carries the terminal size beside the byte count. Once the code is
 * written, it restores the saved settings with that size (`stty SAVED rows R cols C`), so the
 * program starts on an ordinary cooked terminal of the right size, then prints `ready` and execs
 * it. The runner sends the program's input only after `ready`, so typed bytes get the cooked
 * terminal's processing (echo, CR → LF, Ctrl-C). Markers are {@link TTY_PREAMBLE}'s (closed by RS:
 * output processing never touches them); the program does not exist before `ready`. No `stty` in
 * the image: `no-stty`, exit 125, before anything is read. Exit 125 on any other failure.
 */
const TTY_RECEIVE = [
  'command -v stty >/dev/null 2>&1 || { printf \'\\036sandbox-runner:no-stty\\036\'; exit 125; }',
  's=$(stty -g) || exit 125',
  'stty raw -echo || exit 125',
  'printf \'\\036sandbox-runner:waiting\\036\'',
  'IFS=\' \' read -r n rows cols c || exit 125',
  'case $n in \'\'|*[!0-9]*) exit 125;; esac',
  'case $rows$cols in \'\'|*[!0-9]*) exit 125;; esac',
  'case ${c:=0} in *[!0-9]*) exit 125;; esac',
  'if [ "$n" -eq 0 ]; then : > "$0" || exit 125; else dd of="$0" bs="$n" count=1 iflag=fullblock 2>/dev/null || exit 125; fi',
  'x=$(wc -c < "$0") && [ $x -eq "$n" ] || exit 125',
  'chmod 755 "$0" || exit 125',
  ARGS_READER,
  'stty "$s" rows "$rows" cols "$cols" || exit 125',
];

/** See {@link TTY_RECEIVE} (the TTY launcher's doc above it); then the program starts. */
export const TTY_LAUNCHER = [
  ...TTY_RECEIVE,
  'command -v "$1" >/dev/null 2>&1 || { printf \'\\036sandbox-runner:no-command\\036\'; exit 127; }',
  'printf \'\\036sandbox-runner:ready\\036\' && exec "$@"',
  'exit 125',
].join('\n');

/**
 * {@link TTY_LAUNCHER} with the compile step of a profile with `compile` ({@link compileStep}),
 * run as `sh -c TTY_COMPILE_LAUNCHER SNIPPET_PATH K COMPILE… PROGRAM…`; markers closed by RS.
 */
export const TTY_COMPILE_LAUNCHER = [
  ...TTY_RECEIVE,
  ...compileStep((word) => `printf '\\036sandbox-runner:${word}\\036'`),
].join('\n');

/** Largest terminal side the TTY frame carries, in cells (the kernel's `winsize` fields are 16-bit). */
export const TTY_SIDE_MAX = 65535;

/**
 * The TTY launcher's frame: `<byte count> <rows> <columns>\n` in decimal ASCII, then the bytes
 * unchanged (a string as UTF-8); with program arguments the header ends ` <argument count>` and
 * the arguments follow as in {@link encodeFrame}. Sides are whole numbers clamped to 1…{@link TTY_SIDE_MAX}.
 */
export function encodeTtyFrame(code: string | Uint8Array, size: { readonly rows: number; readonly columns: number }, args: readonly string[] = []): Buffer {
  const body = codeBytes(code);
  const count = args.length > 0 ? ` ${args.length}` : '';
  return Buffer.concat([Buffer.from(`${body.byteLength} ${ttySide(size.rows)} ${ttySide(size.columns)}${count}\n`, 'latin1'), body, encodeArgs(args)]);
}

/** A terminal side as the frame and the Engine API take it: a whole number in 1…{@link TTY_SIDE_MAX}. */
export function ttySide(n: number): number {
  return Number.isFinite(n) ? Math.min(TTY_SIDE_MAX, Math.max(1, Math.floor(n))) : 1;
}

/**
 * The frame that carries the code over stdin: the byte count in decimal ASCII, a newline, then
 * the bytes unchanged (a string as UTF-8). With program arguments (checked by programArgs.ts
 * `checkProgramArgs`: no NUL) the header also holds their count (`<bytes> <count>\n`) and each
 * follows the code as `<byte count>\n<UTF-8 bytes>`, then `end\n`. Whatever follows the frame on
 * stdin is the program's.
 */
export function encodeFrame(code: string | Uint8Array, args: readonly string[] = []): Buffer {
  const body = codeBytes(code);
  const count = args.length > 0 ? ` ${args.length}` : '';
  return Buffer.concat([Buffer.from(`${body.byteLength}${count}\n`, 'latin1'), body, encodeArgs(args)]);
}

function codeBytes(code: string | Uint8Array): Buffer {
  return typeof code === 'string' ? Buffer.from(code, 'utf8') : Buffer.from(code.buffer, code.byteOffset, code.byteLength);
}

/** The arguments' part of a frame: per argument `<byte count>\n<UTF-8 bytes>`, then `end\n`; empty for none. */
function encodeArgs(args: readonly string[]): Buffer {
  if (args.length === 0) return Buffer.alloc(0);
  const parts = args.flatMap((a) => {
    const bytes = Buffer.from(a, 'utf8');
    return [Buffer.from(`${bytes.byteLength}\n`, 'latin1'), bytes];
  });
  return Buffer.concat([...parts, Buffer.from('end\n', 'latin1')]);
}

/**
 * What stderr said about the launcher so far: `pending` (nothing yet), `waiting` (it waits for the
 * frame), `compiling` (the compile step runs), `ready` (the program starts), `no-command`,
 * `compile-failed` (the compiler's status ended the run), or `absent` (the stream ended without
 * `ready`/`no-command`; see {@link PreambleReader.waited} for how far it got).
 */
export type LauncherVerdict = 'pending' | 'waiting' | 'compiling' | 'ready' | 'no-command' | 'no-stty' | 'compile-failed' | 'absent';

/** Finds the earliest of `markers` in `buf` (latin1), within the held bound. */
function findMarker(buf: Buffer, markers: readonly (readonly [LauncherVerdict, string])[], within = HELD_MAX) {
  return markers
    .map(([verdict, line]) => ({ verdict, line, at: buf.indexOf(line, 0, 'latin1') }))
    .filter((f) => f.at >= 0 && f.at < within)
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
  /** The engine CLI's own words from another stream (a TTY run's CLI stderr), bounded. */
  private notes = Buffer.alloc(0);

  /** @param markers which launcher's markers to read: {@link PREAMBLE} (stderr) or {@link TTY_PREAMBLE} (the terminal) */
  constructor(private readonly markers: PreambleMarkers = PREAMBLE) {}

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
    if (this.state === 'compiling') return this.compilerBytes(chunk);
    this.held = Buffer.concat([this.held, chunk]);
    const m = this.markers;
    if (this.state === 'pending') this.step('noStty' in m ? [['waiting', m.waiting], ['no-stty', m.noStty]] : [['waiting', m.waiting]]);
    if (this.state === 'waiting') this.step([['ready', m.ready], ['no-command', m.noCommand], ['compiling', m.compiling]]);
    if ((this.state as LauncherVerdict) === 'ready' || (this.state as LauncherVerdict) === 'compiling') {
      const rest = this.rest;
      this.rest = Buffer.alloc(0);
      return (this.state as LauncherVerdict) === 'compiling' ? this.compilerBytes(rest) : rest;
    }
    if (this.state === 'pending' || this.state === 'waiting') {
      if (this.held.length >= HELD_MAX + PREAMBLE_MAX) this.state = 'absent';
    }
    if (this.state !== 'pending' && this.state !== 'waiting') this.held = this.held.subarray(0, HELD_MAX);
    return Buffer.alloc(0);
  }

  private rest = Buffer.alloc(0);
  /** While compiling: the bytes from the last RS on, which may be the start of a marker. */
  private partial = Buffer.alloc(0);

  /**
   * Bytes of the compile step: the compiler's output (its RS bytes were removed in the
   * container, so an RS starts a launcher marker) passes through; `ready` moves on to the
   * program (its bytes after the marker pass too), `compile-failed` and `no-command` (the step
   * wrote no program) end the stream.
   */
  private compilerBytes(chunk: Uint8Array): Buffer {
    const buf = Buffer.concat([this.partial, chunk]);
    this.partial = Buffer.alloc(0);
    const m = this.markers;
    const found = findMarker(buf, [['ready', m.ready], ['compile-failed', m.compileFailed], ['no-command', m.noCommand]], buf.length);
    if (found) {
      this.state = found.verdict;
      const before = buf.subarray(0, found.at);
      return found.verdict === 'ready' ? Buffer.concat([before, buf.subarray(found.at + found.line.length)]) : Buffer.from(before);
    }
    const rs = buf.lastIndexOf(0x1e);
    if (rs >= 0 && buf.length - rs < PREAMBLE_MAX) {
      this.partial = Buffer.from(buf.subarray(rs));
      return Buffer.from(buf.subarray(0, rs));
    }
    return buf;
  }

  /** Moves to the verdict of the earliest marker of `markers` found in the held bytes. */
  private step(markers: readonly (readonly [LauncherVerdict, string])[]): void {
    const found = findMarker(this.held, markers);
    if (!found) return;
    this.state = found.verdict;
    if (found.verdict === 'waiting') this.sawWaiting = true;
    const after = this.held.subarray(found.at + found.line.length);
    this.held = this.held.subarray(0, found.at);
    if (found.verdict === 'ready' || found.verdict === 'compiling') this.rest = Buffer.from(after);
    else if (found.verdict === 'waiting') {
      this.before = this.held;
      this.held = Buffer.from(after);
    }
  }

  /**
   * Ends the stream: a `ready` or `no-command` that never came counts as absent; a compile step
   * that never said how it ended stays `compiling` (it was stopped, or the launcher failed).
   */
  end(): void {
    if (this.state === 'pending' || this.state === 'waiting') this.state = 'absent';
  }

  /**
   * Keeps the engine CLI's words from a stream that never carries program output (a TTY run's CLI
   * stderr: the program's output all goes through the terminal), for {@link heldText}; bounded.
   */
  note(chunk: Uint8Array): void {
    if (this.notes.length < HELD_MAX) this.notes = Buffer.concat([this.notes, chunk]).subarray(0, HELD_MAX);
  }

  /** Bytes held back that are not program output (the CLI's, init process's or engine's words), as text. */
  heldText(): string {
    return Buffer.concat([this.notes, this.before, this.held]).subarray(0, HELD_MAX).toString('utf8');
  }
}
