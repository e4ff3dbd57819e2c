/**
 * Interactive runs (issue 11): what a caller gives the runner so the program reads live input
 * instead of an empty stdin. No `vscode` import here; the pseudoterminal (src/vscode) and the
 * CLI's `-i` both produce this shape.
 */
import type { Readable } from 'node:stream';

/** A terminal size in character cells (the Engine API's `POST /containers/{id}/resize?w=&h=`). */
export interface TtySize {
  /** Columns (width), ≥ 1. */
  readonly columns: number;
  /** Rows (height), ≥ 1. */
  readonly rows: number;
}

/**
 * Live input for one run. Without it the program's stdin is empty (closed after the code frame).
 * - `input`: bytes for the program's stdin after the code frame, passed on as they arrive (with
 *   backpressure; strings are written as UTF-8); nothing is read from it before the program can
 *   receive it, nor after the run ended. Its end (or an error on it) is the end of input:
 *   - over a pipe (no `tty`): the program's stdin is closed, so it reads EOF (Ctrl+D on a pipe);
 *   - on a terminal: one 0x04 byte is sent, the terminal's own end-of-file (EOF for a read at the
 *     start of a line, as Ctrl+D typed there); the attached stdin itself stays open, because
 *     closing it would also end the terminal's output (moby `CopyStreams`, measured).
 *   On a terminal, bytes are sent only once the program is about to start (the launcher's `ready`),
 *   so everything typed gets the cooked terminal's processing (echo, CR → LF, 0x03 → SIGINT).
 *   A chunk whose last byte is 0x1e (Ctrl+^) reaches the program only with the next chunk: the
 *   engine holds a possible start of its detach sequence (ttyStart.ts `detachKeys`).
 * - `tty`: when set, the program gets a real terminal of this size (`docker create -t -i` +
 *   `docker start -a -i`, cold path only: never a warm container): `isatty` is true, line
 *   editing works, 0x03 typed is SIGINT from the terminal. stdout and stderr then merge into one
 *   stream, delivered to `onOutput` as `stdout` (with the terminal's CR LF line ends). The image
 *   needs `sh` and `stty` (else the run is refused, nothing runs). The size is set before the
 *   program starts (it travels with the code, launcher.ts `TTY_LAUNCHER`).
 * - `onResize`: subscribes to later sizes (the terminal was resized); the runner forwards each
 *   to the engine (ttyResize.ts: Docker's Engine API, Podman's conmon control FIFO; a Docker
 *   reached only through its CLI cannot be resized). A size reported before the program started
 *   is used as its first size instead. Returns an unsubscribe function, called when the run
 *   ends. Only used with `tty`.
 * Images without `sh` (the direct path) have no live stdin: an interactive run is refused there.
 */
export interface InteractiveIo {
  readonly input: Readable;
  readonly tty?: TtySize;
  readonly onResize?: (listener: (size: TtySize) => void) => () => void;
}
