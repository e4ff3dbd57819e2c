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
 * - `input`: bytes for the program's stdin after the code frame, passed on as they arrive; when
 *   the stream ends, the program's stdin is closed (Ctrl+D on a pipe; on a TTY the 0x04 byte is
 *   the terminal's own end-of-file and is passed on as typed).
 * - `tty`: when set, the program gets a real terminal of this size (`docker create -t -i` +
 *   `docker start -a -i`): `isatty` is true, line editing works, 0x03 typed is SIGINT from the
 *   terminal. stdout and stderr then merge into one stream, delivered to `onOutput` as `stdout`.
 * - `onResize`: subscribes to later sizes (the terminal was resized); the runner forwards each
 *   to the engine. Returns an unsubscribe function. Only used with `tty`.
 */
export interface InteractiveIo {
  readonly input: Readable;
  readonly tty?: TtySize;
  readonly onResize?: (listener: (size: TtySize) => void) => () => void;
}
