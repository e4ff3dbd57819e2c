/**
 * Bounded, streaming UTF-8 output for one stream (stdout or stderr). Bytes are counted before
 * decoding so the bound is exact in bytes; a character split across chunks is decoded once its
 * last byte arrives (`TextDecoder` in streaming mode). Nothing is buffered beyond one partial
 * character, so memory stays flat whatever the program prints.
 */

/** Which stream a piece of text belongs to. `notice` lines come from the runner, not the program. */
export type OutputStream = 'stdout' | 'stderr' | 'notice';

/** Receives decoded text as it arrives. Must not throw; it is called synchronously. */
export type OutputSink = (stream: OutputStream, text: string) => void;

/** Counts, bounds and decodes one stream. */
export class BoundedStream {
  private readonly decoder = new TextDecoder('utf-8');
  private kept = 0;
  private seen = 0;
  private overflowed = false;

  /**
   * @param stream which stream this is (passed to the sink)
   * @param limitBytes bytes to keep; the first byte beyond it is an overflow
   * @param sink receives decoded text
   */
  constructor(
    private readonly stream: 'stdout' | 'stderr',
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
   * Accepts one chunk. Keeps bytes up to the limit and decodes them.
   * @returns true when this chunk crossed the limit for the first time (the run must end)
   */
  push(chunk: Uint8Array): boolean {
    this.seen += chunk.byteLength;
    if (this.overflowed) return false;
    const room = this.limitBytes - this.kept;
    const take = chunk.byteLength <= room ? chunk : chunk.subarray(0, room);
    if (take.byteLength > 0) {
      this.kept += take.byteLength;
      const text = this.decoder.decode(take, { stream: true });
      if (text) this.sink(this.stream, text);
    }
    if (take.byteLength < chunk.byteLength) {
      this.overflowed = true;
      return true;
    }
    return false;
  }

  /** Flushes a trailing partial character (as U+FFFD). Call once, after the last chunk. */
  end(): void {
    const rest = this.decoder.decode();
    if (rest) this.sink(this.stream, rest);
  }
}
