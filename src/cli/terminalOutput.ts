/**
 * Where `sandbox-run` writes: the program's stdout and stderr go to ours. To a terminal they are
 * decoded as UTF-8 and filtered (escape sequences, lone CRs and control characters removed, see
 * TerminalTextFilter); to a pipe or a file, or with `--raw`, the program's bytes are written
 * unchanged (up to the output bound), as `docker run` passes them. To a terminal, a reference to
 * the in-container snippet (`/sandbox/main.py", line 3`) names the host file and its real line
 * (sourceRefLines.ts; issue 11); never in a pipe or file. Runner notices and our own
 * lines go to stderr. Our own lines (the summary, "engine said", usage and profile errors) quote
 * the snippet's output, file names, settings keys and engine messages: to a terminal they always
 * pass the same filter, `--raw` or not (see {@link ownLine}).
 * A closed pipe (`sandbox-run x.py | head -1`) is not a crash: it ends the run like a cancel.
 * Our own lines and notices always start on a line of their own (issue 25): when the last byte
 * written where they go was not a line feed (the program's last line had none), a line feed comes
 * first. Where they go: stderr, or the one screen when stdout and stderr are both a terminal.
 */
import { TerminalTextFilter, Utf8Decoder, type OutputSink, type ProgramStream, type SnippetOrigin } from '../core';
import { SourceRefLines } from './sourceRefLines';

type Writable = NodeJS.WriteStream;

/**
 * One of our own messages as written to `stream`: `sandbox-run: TEXT` and a line feed. When
 * `stream` is a terminal, TEXT passes a fresh TerminalTextFilter (no escape sequences, such as a
 * window title, an OSC 52 clipboard write or a screen clear; no lone CR; no control characters
 * but tab and line feed; an unfinished sequence at the end is dropped), and each further line
 * of a multi-line TEXT is indented under the prefix, so quoted text cannot pose as a line of ours.
 * To a pipe or file, TEXT is written as it is.
 */
export function ownLine(text: string, stream: Pick<Writable, 'isTTY'>): string {
  if (!stream.isTTY) return `sandbox-run: ${text}\n`;
  const filter = new TerminalTextFilter();
  const clean = (filter.push(text) + filter.end()).replace(/\n+$/, '');
  return `sandbox-run: ${clean.split('\n').join('\n             ')}\n`;
}

/** Display state of one stream written to a terminal: decoding, then filtering. */
interface Display {
  readonly decoder: Utf8Decoder;
  readonly filter: TerminalTextFilter;
  /** Rewrites in-container snippet paths as the host file and line (issue 11), when the origin is known. */
  readonly refs?: SourceRefLines;
}

export class TerminalOutput {
  private pipeClosed = false;
  /** Streams that reported a write error; the other one still carries our summary. */
  private readonly closedStreams = new Set<Writable>();
  private readonly displays: Partial<Record<ProgramStream, Display>> = {};
  /** Per place written to (a stream, or the screen both terminals share): true while its last byte is not a line feed. */
  private readonly openLine = new Map<object, boolean>();
  /** The place both streams write to when both are terminals (one screen). */
  private readonly screen = {};

  /**
   * @param onPipeClosed called once when stdout or stderr fails a write (EPIPE: the reader went
   *   away; EIO: the terminal was closed)
   * @param raw pass the program's bytes through unchanged even to a terminal
   * @param origin where the code came from: to a terminal (not `raw`), references to the
   *   in-container snippet path become the host file's path and real line (sourceRefLines.ts);
   *   a pipe or file always gets the program's bytes unchanged
   */
  constructor(
    private readonly onPipeClosed: () => void,
    raw: boolean,
    private readonly out: Writable = process.stdout,
    private readonly err: Writable = process.stderr,
    origin?: SnippetOrigin,
  ) {
    for (const [name, stream] of [['stdout', out], ['stderr', err]] as const) {
      if (!raw && stream.isTTY) {
        const refs = origin && new SourceRefLines(origin, (text) => this.write(stream, text));
        this.displays[name] = { decoder: new Utf8Decoder(), filter: new TerminalTextFilter(), ...(refs ? { refs } : {}) };
      }
      // EPIPE (the reader went away), EIO (the terminal was closed) or any other write error: the
      // output is gone, never a crash (a crashed CLI would leave its container running untimed).
      stream.on('error', () => {
        this.closedStreams.add(stream);
        if (this.pipeClosed) return;
        this.pipeClosed = true;
        this.onPipeClosed();
      });
    }
  }

  /** True once our stdout or stderr failed a write (a reader or the terminal went away). */
  get closed(): boolean {
    return this.pipeClosed;
  }

  /**
   * The run's output sink: program bytes to our stdout/stderr (decoded and filtered for a
   * terminal, else unchanged), runner notices (text) to stderr.
   */
  readonly program: OutputSink = (stream, data) => {
    if (stream === 'notice') {
      // A fresh filter, never the program's stderr filter: a program that left a string
      // sequence open there (`ESC ] 8 ;;` with no end) would have the notice swallowed as its
      // content. What the program's filter holds back never reached the terminal, so the
      // terminal is in its ground state here.
      const filter = this.displays.stderr && new TerminalTextFilter();
      const text = filter ? filter.push(data) + filter.end() : data;
      this.write(this.err, this.isOpen(this.err) && !text.startsWith('\n') ? `\n${text}` : text);
      return;
    }
    const display = this.displays[stream];
    if (!display) return this.write(this.streamFor(stream), data);
    const text = display.filter.push(display.decoder.push(data));
    if (display.refs) display.refs.push(text);
    else this.write(this.streamFor(stream), text);
  };

  /** Flushes held-back partial characters and sequences at the end of the run. */
  end(): void {
    for (const target of ['stdout', 'stderr'] as const) {
      const display = this.displays[target];
      if (!display) continue;
      const text = display.filter.push(display.decoder.end()) + display.filter.end();
      if (display.refs) display.refs.end(text);
      else this.write(this.streamFor(target), text);
    }
  }

  /** Writes one of our own lines to stderr ({@link ownLine}: filtered for a terminal, also with `--raw`). */
  line(text: string): void {
    this.write(this.err, (this.isOpen(this.err) ? '\n' : '') + ownLine(text, this.err));
  }

  /** Where writes to `stream` show: the shared screen when both streams are terminals, else the stream. */
  private placeOf(stream: Writable): object {
    return this.out.isTTY && this.err.isTTY ? this.screen : stream;
  }

  /** True when the last byte written where `stream` shows was not a line feed. */
  private isOpen(stream: Writable): boolean {
    return this.openLine.get(this.placeOf(stream)) === true;
  }

  private streamFor(target: ProgramStream): Writable {
    return target === 'stdout' ? this.out : this.err;
  }

  private write(stream: Writable, data: string | Uint8Array): void {
    if (data.length === 0 || this.closedStreams.has(stream) || stream.destroyed) return;
    const last = typeof data === 'string' ? data.charCodeAt(data.length - 1) : data[data.length - 1];
    this.openLine.set(this.placeOf(stream), last !== 0x0a);
    stream.write(data);
  }
}

/**
 * A data row (e.g. a `--list-profiles` or `--reap` line, which quote settings keys and container
 * names) as written to `stream`: to a terminal filtered like {@link ownLine} and kept on one line
 * (line feeds become spaces); to a pipe or file as it is. Ends with a line feed.
 */
export function dataRow(text: string, stream: Pick<Writable, 'isTTY'>): string {
  if (!stream.isTTY) return `${text}\n`;
  const filter = new TerminalTextFilter();
  return `${(filter.push(text) + filter.end()).replace(/\n/g, ' ')}\n`;
}
