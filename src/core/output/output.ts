/**
 * Bounded output for one stream (stdout or stderr): the program's bytes, counted and cut at the
 * bound, passed on unchanged. Nothing is decoded here: a pipe or a file gets the program's own
 * byte stream (up to the bound), and only display consumers (the output channel, the CLI's
 * terminal filter) decode, each with its own streaming decoder ({@link Utf8Decoder},
 * {@link decodingSink}). Nothing is buffered, so memory stays flat whatever the program prints.
 */

/** Which stream a piece of output belongs to. `notice` lines come from the runner, not the program. */
export type OutputStream = 'stdout' | 'stderr' | 'notice';

/** The program's own streams. */
export type ProgramStream = 'stdout' | 'stderr';

/**
 * Receives output as it arrives: the program's bytes (`stdout`/`stderr`, bounded, unchanged; a
 * chunk may end inside a UTF-8 character) or a runner notice (`notice`, text). Must not throw;
 * it is called synchronously. A chunk is a view the sink may keep (never reused by the runner).
 * With a `(stream, data) => …` function, checking `stream === 'notice'` narrows `data`.
 */
export type OutputSink = (...args: [stream: ProgramStream, bytes: Uint8Array] | [stream: 'notice', text: string]) => void;

/** Receives decoded text (see {@link decodingSink}). */
export type TextSink = (stream: OutputStream, text: string) => void;

/**
 * Streaming UTF-8 decoding of one byte stream for display: a character split across chunks is
 * decoded once its last byte arrives; invalid bytes become U+FFFD (WHATWG `TextDecoder`, not
 * fatal). Holds at most one partial character.
 */
export class Utf8Decoder {
  private readonly decoder = new TextDecoder('utf-8');

  /** Decodes one chunk; may hold back the start of a character split at the chunk's end. */
  push(bytes: Uint8Array): string {
    return this.decoder.decode(bytes, { stream: true });
  }

  /** Ends the stream: a held partial character becomes U+FFFD. The decoder can be used again. */
  end(): string {
    return this.decoder.decode();
  }
}

/**
 * A byte sink that decodes each program stream for a text consumer (tests, logs, displays):
 * `sink` goes to `RunRequest.onOutput`; call `end()` once the run is over to flush a trailing
 * partial character (as U+FFFD). Notices pass through as they are.
 */
export function decodingSink(onText: TextSink): { readonly sink: OutputSink; end(): void } {
  const decoders = { stdout: new Utf8Decoder(), stderr: new Utf8Decoder() };
  const emit = (stream: OutputStream, text: string) => {
    if (text) onText(stream, text);
  };
  return {
    sink: (stream, data) => {
      if (stream === 'notice') emit(stream, data);
      else emit(stream, decoders[stream].push(data));
    },
    end: () => {
      emit('stdout', decoders.stdout.end());
      emit('stderr', decoders.stderr.end());
    },
  };
}

/** Counts and bounds one stream, passing the kept bytes on unchanged. */
export class BoundedStream {
  private kept = 0;
  private seen = 0;
  private overflowed = false;

  /**
   * @param stream which stream this is (passed to the sink)
   * @param limitBytes bytes to keep; the first byte beyond it is an overflow
   * @param sink receives the kept bytes
   */
  constructor(
    private readonly stream: ProgramStream,
    private readonly limitBytes: number,
    private readonly sink: OutputSink,
  ) {}

  /** Bytes delivered to the sink (at most the limit). */
  get bytesKept(): number {
    return this.kept;
  }

  /** Bytes received, including discarded ones after an overflow. */
  get bytesSeen(): number {
    return this.seen;
  }

  /** True once a byte past the limit arrived. */
  get truncated(): boolean {
    return this.overflowed;
  }

  /**
   * Accepts one chunk. Passes on the bytes up to the limit (a view of `chunk`, not a copy).
   * @returns true when this chunk crossed the limit for the first time (the run must end)
   */
  push(chunk: Uint8Array): boolean {
    this.seen += chunk.byteLength;
    if (this.overflowed) return false;
    const room = this.limitBytes - this.kept;
    const take = chunk.byteLength <= room ? chunk : chunk.subarray(0, room);
    if (take.byteLength > 0) {
      this.kept += take.byteLength;
      this.sink(this.stream, take);
    }
    if (take.byteLength < chunk.byteLength) {
      this.overflowed = true;
      return true;
    }
    return false;
  }
}
