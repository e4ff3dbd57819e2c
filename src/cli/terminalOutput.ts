/**
 * Where `sandbox-run` writes: the program's stdout and stderr go to ours. To a terminal they are
 * decoded as UTF-8 and filtered (escape sequences, lone CRs and control characters removed, see
 * TerminalTextFilter); to a pipe or a file, or with `--raw`, the program's bytes are written
 * unchanged (up to the output bound), as `docker run` passes them. Runner notices and our own
 * lines go to stderr. A closed pipe (`sandbox-run x.py | head -1`) is not a crash: it ends the
 * run like a cancel.
 */
import { TerminalTextFilter, Utf8Decoder, type OutputSink, type ProgramStream } from '../core';

type Writable = NodeJS.WriteStream;

/** Display state of one stream written to a terminal: decoding, then filtering. */
interface Display {
  readonly decoder: Utf8Decoder;
  readonly filter: TerminalTextFilter;
}

export class TerminalOutput {
  private pipeClosed = false;
  private readonly displays: Partial<Record<ProgramStream, Display>> = {};

  /**
   * @param onPipeClosed called once when stdout or stderr reports EPIPE (the reader went away)
   * @param raw pass the program's bytes through unchanged even to a terminal
   */
  constructor(
    private readonly onPipeClosed: () => void,
    raw: boolean,
    private readonly out: Writable = process.stdout,
    private readonly err: Writable = process.stderr,
  ) {
    for (const [name, stream] of [['stdout', out], ['stderr', err]] as const) {
      if (!raw && stream.isTTY) this.displays[name] = { decoder: new Utf8Decoder(), filter: new TerminalTextFilter() };
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

  /**
   * The run's output sink: program bytes to our stdout/stderr (decoded and filtered for a
   * terminal, else unchanged), runner notices (text) to stderr.
   */
  readonly program: OutputSink = (stream, data) => {
    if (stream === 'notice') {
      const display = this.displays.stderr;
      this.write(this.err, display ? display.filter.push(data) : data);
      return;
    }
    const display = this.displays[stream];
    this.write(this.streamFor(stream), display ? display.filter.push(display.decoder.push(data)) : data);
  };

  /** Flushes held-back partial characters and sequences at the end of the run. */
  end(): void {
    for (const target of ['stdout', 'stderr'] as const) {
      const display = this.displays[target];
      if (display) this.write(this.streamFor(target), display.filter.push(display.decoder.end()) + display.filter.end());
    }
  }

  /** Writes one of our own lines to stderr. */
  line(text: string): void {
    this.write(this.err, `sandbox-run: ${text}\n`);
  }

  private streamFor(target: ProgramStream): Writable {
    return target === 'stdout' ? this.out : this.err;
  }

  private write(stream: Writable, data: string | Uint8Array): void {
    if (data.length > 0 && !this.pipeClosed && !stream.destroyed) stream.write(data);
  }
}
