/**
 * The MCP server's stdin, cut into JSON-RPC lines with bounded memory (issue 34). The SDK's stdio
 * transport buffers a line whole and closes itself past 10 MiB (`ReadBuffer`), which ended the
 * server with every run and session of it on one long line. This stage goes between stdin and the
 * transport: it passes each complete line of at most {@link MCP_MESSAGE_MAX} bytes on as one chunk
 * (so the transport's buffer never holds more than one line), and drops a longer line as its bytes
 * stream by (never holding more than the bound), reporting it once so the server can answer it.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** The longest JSON-RPC message the server reads, bytes (the newline excluded): 8 MiB, below the SDK's 10 MiB. */
export const MCP_MESSAGE_MAX = 8 * 1024 * 1024;

/**
 * The JSON-RPC answer to a refused over-long line: an Invalid Request error (-32600) with a null
 * id (the line was never parsed, so its id is unknown; JSON-RPC 2.0 section 5).
 */
export function oversizeError(bytes: number, max = MCP_MESSAGE_MAX): { jsonrpc: '2.0'; id: null; error: { code: number; message: string } } {
  return {
    jsonrpc: '2.0', id: null,
    error: { code: -32600, message: `A message of more than ${bytes} bytes was refused: the server reads JSON-RPC messages of at most ${max} bytes (${max / 1024 / 1024} MiB). Send smaller code, stdin or files.` },
  };
}

/**
 * A Transform from raw stdin bytes to whole lines (each chunk one line with its `\n`).
 * Memory: at most `max` bytes of an unfinished line are held; a line longer than `max` is dropped
 * as it arrives and `onOversize(bytesSeen)` is called once, when its newline (or the end) comes.
 * A last line without a newline is passed on at the end when within the bound.
 */
export class BoundedLines extends Transform {
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** Bytes of the line being dropped; -1 while none is. */
  private dropping = -1;

  /** @param onOversize called with the dropped line's length in bytes (at least `max + 1`) */
  constructor(private readonly onOversize: (bytes: number) => void, private readonly max = MCP_MESSAGE_MAX) {
    super();
  }

  /** Bytes held of the unfinished line (never more than the bound; for tests). */
  get holding(): number {
    return this.heldBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let rest = chunk;
    while (rest.length > 0) {
      const nl = rest.indexOf(0x0a);
      const part = nl < 0 ? rest : rest.subarray(0, nl);
      rest = nl < 0 ? Buffer.alloc(0) : rest.subarray(nl + 1);
      if (this.dropping >= 0) this.dropping += part.length;
      else if (this.heldBytes + part.length > this.max) {
        this.dropping = this.heldBytes + part.length;
        this.held = [];
        this.heldBytes = 0;
      } else {
        this.held.push(Buffer.from(part));
        this.heldBytes += part.length;
      }
      if (nl >= 0) this.endLine(true);
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.dropping >= 0 || this.heldBytes > 0) this.endLine(false);
    done();
  }

  private endLine(newline: boolean): void {
    if (this.dropping >= 0) this.onOversize(this.dropping);
    else this.push(Buffer.concat(newline ? [...this.held, Buffer.from('\n')] : this.held));
    this.held = [];
    this.heldBytes = 0;
    this.dropping = -1;
  }
}
