/**
 * Where `sandbox-run` writes: the program's stdout and stderr go to ours, filtered for a terminal
 * (escape sequences, lone CRs and control characters removed, see TerminalTextFilter) unless
 * `--raw` is given or the stream is not a TTY; runner notices and our own lines go to stderr.
 * A closed pipe (`sandbox-run x.py | head -1`) is not a crash: it ends the run like a cancel.
 */
import { TerminalTextFilter, type OutputStream } from '../core';

type Writable = NodeJS.WriteStream;

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

  /** Writes one of our own lines to stderr. */
  line(text: string): void {
    this.write(this.err, `sandbox-run: ${text}\n`);
  }

  private write(stream: Writable, text: string): void {
    if (text && !this.pipeClosed && !stream.destroyed) stream.write(text);
  }
}
