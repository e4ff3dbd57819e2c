/**
 * Where `sandbox-run` writes: the program's stdout and stderr go to ours, filtered for a terminal
 * (escape sequences, lone CRs and control characters removed, see TerminalTextFilter) unless
 * `--raw` is given or the stream is not a TTY; runner notices and our own lines go to stderr.
 * Our own lines (the summary, "engine said", usage and profile errors) quote the snippet's output,
 * file names, settings keys and engine messages: to a terminal they always pass the same filter,
 * `--raw` or not (see {@link ownLine}).
 * A closed pipe (`sandbox-run x.py | head -1`) is not a crash: it ends the run like a cancel.
 */
import { TerminalTextFilter, type OutputStream } from '../core';

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

export class TerminalOutput {
  private pipeClosed = false;
  private readonly filters: Partial<Record<'stdout' | 'stderr', TerminalTextFilter>> = {};

  /**
   * @param onPipeClosed called once when stdout or stderr reports EPIPE (the reader went away)
   * @param raw pass program output through unfiltered even to a terminal
   */
  constructor(
    private readonly onPipeClosed: () => void,
    raw: boolean,
    private readonly out: Writable = process.stdout,
    private readonly err: Writable = process.stderr,
  ) {
    for (const [name, stream] of [['stdout', out], ['stderr', err]] as const) {
      if (!raw && stream.isTTY) this.filters[name] = new TerminalTextFilter();
      stream.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code !== 'EPIPE') throw e;
        if (this.pipeClosed) return;
        this.pipeClosed = true;
        this.onPipeClosed();
      });
    }
  }

  /** True once a reader closed our stdout or stderr. */
  get closed(): boolean {
    return this.pipeClosed;
  }

  /** Writes program output (or a runner notice, to stderr). */
  program(stream: OutputStream, text: string): void {
    const target = stream === 'stdout' ? 'stdout' : 'stderr';
    const filter = this.filters[target];
    this.write(target === 'stdout' ? this.out : this.err, filter ? filter.push(text) : text);
  }

  /** Flushes held-back partial sequences at the end of the run. */
  end(): void {
    this.write(this.out, this.filters.stdout?.end() ?? '');
    this.write(this.err, this.filters.stderr?.end() ?? '');
  }

  /** Writes one of our own lines to stderr ({@link ownLine}: filtered for a terminal, also with `--raw`). */
  line(text: string): void {
    this.write(this.err, ownLine(text, this.err));
  }

  private write(stream: Writable, text: string): void {
    if (text && !this.pipeClosed && !stream.destroyed) stream.write(text);
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
