/**
 * The session protocol's frames and messages (issue 24), host side. One frame, both ways:
 * a 4-byte big-endian length L, then L bytes: one kind byte and the body.
 * - host → kernel: `x` + the cell's code as UTF-8; `i` + the running cell's number (4 bytes,
 *   big-endian): interrupt it; `f` + JSON `{files, collect}` for the next cell (files to write
 *   under /sandbox first; whether to send the files of /sandbox/out/ after it); `r` + JSON: the
 *   answer to input request `n` ({@link InputAnswer}). Anything else ends the kernel;
 * - kernel → host: `o` / `e` + raw bytes of the cell's stdout / stderr, and `m` + one JSON
 *   message (ASCII): `hello`, `display`, `error`, `input`, `files`, `done` ({@link KernelMessage}).
 * Messages are data only: the reader checks each against its exact shape, keeps only the
 * allow-listed MIME types ({@link DISPLAY_MIMES}), and never acts on their content; a frame or
 * message of any other shape is a protocol error (the session ends, session.ts).
 * No `vscode` import here.
 */

/** The MIME types a display bundle may carry (others are dropped): the notebook's renderers' common set. */
export const DISPLAY_MIMES = ['text/plain', 'text/html', 'text/markdown', 'image/png', 'image/jpeg', 'image/svg+xml', 'application/json'] as const;
export type DisplayMime = (typeof DISPLAY_MIMES)[number];

/** A display bundle: MIME type → text (images base64), `application/json` → a JSON value. */
export type DisplayData = Partial<Record<DisplayMime, unknown>>;

/**
 * A traceback entry that is a frame of a cell's own code: `traceback[index]` ran cell `cell`'s code
 * (the kernel's count, 1 for the first cell) at line `line` (1-based). The kernel decides it from the
 * code objects it compiled for that cell, never from text; the host checks `cell` against the cells
 * it sent (session.ts).
 */
export interface CellFrame {
  readonly index: number;
  readonly cell: number;
  readonly line: number;
}

/** One message of the kernel, checked. */
export type KernelMessage =
  | { readonly t: 'hello'; readonly protocol: 1; readonly ipython: boolean; readonly python: string }
  | { readonly t: 'display'; readonly data: DisplayData }
  | { readonly t: 'error'; readonly ename: string; readonly evalue: string; readonly traceback: readonly string[]; readonly frames: readonly CellFrame[] }
  | { readonly t: 'input'; readonly n: number; readonly prompt: string; readonly password: boolean }
  | { readonly t: 'files'; readonly files: readonly { readonly name: string; readonly data: Buffer }[]; readonly dropped: number }
  | { readonly t: 'done'; readonly n: number; readonly status: 'ok' | 'error' | 'interrupted' };

/** What one kernel frame gave: program bytes, a message, an oversized frame skipped (its size, bytes), or a protocol error. */
export type KernelFrame =
  | { readonly kind: 'stdout' | 'stderr'; readonly bytes: Buffer }
  | { readonly kind: 'message'; readonly message: KernelMessage; readonly bytes: number }
  | { readonly kind: 'oversize'; readonly bytes: number }
  | { readonly kind: 'protocol-error'; readonly why: string };

/** The cell frame sent to the kernel: `x` and the code as UTF-8. */
export function encodeCell(code: string): Buffer {
  return frameOf('x', Buffer.from(code, 'utf8'));
}

/** One host → kernel frame: the length, the kind byte (one ASCII letter) and the body. */
function frameOf(kind: 'x' | 'f' | 'r', body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length + 1, 0);
  head[4] = kind.charCodeAt(0);
  return Buffer.concat([head, body]);
}

/** A relative file name under /sandbox: 1–200 characters, `/`-separated parts, none empty, `.` or `..`, no NUL. */
export function isRelativeFileName(name: string): boolean {
  return name.length > 0 && name.length <= 200 && !name.includes('\0') && !name.startsWith('/') && name.split('/').every((p) => p !== '' && p !== '.' && p !== '..');
}

/** The `f` frame: files to write before the next cell (names checked by the caller, {@link isRelativeFileName}) and whether to collect /sandbox/out/ after it. */
export function encodeCellFiles(files: Readonly<Record<string, Uint8Array>>, collect: boolean): Buffer {
  const body = Buffer.from(JSON.stringify({ files: Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Buffer.from(v).toString('base64')])), collect }), 'utf8');
  return frameOf('f', body);
}

/** The longest prompt an `input` message may carry, characters (the kernel cuts longer prompts to it). */
export const INPUT_PROMPT_MAX = 1000;

/** The host's answer to the kernel's input request `n`: the text typed, an EOFError with this text, or an interrupt (KeyboardInterrupt) when the person cancelled. */
export type InputAnswer = { readonly value: string } | { readonly eof: string } | { readonly cancel: true };

/** The `r` frame: JSON `{n, value}`, `{n, eof}` or `{n, cancel: true}` ({@link InputAnswer}) for input request `n`. */
export function encodeInputReply(n: number, answer: InputAnswer): Buffer {
  return frameOf('r', Buffer.from(JSON.stringify({ n, ...answer }), 'utf8'));
}

/** The interrupt frame for cell `n` (the kernel's count: 1 for the first cell sent). */
export function encodeInterrupt(n: number): Buffer {
  const f = Buffer.alloc(9);
  f.writeUInt32BE(5, 0);
  f[4] = 0x69; // 'i'
  f.writeUInt32BE(n, 5);
  return f;
}

/**
 * Reads kernel frames off the container's stdout bytes. Memory is bounded: a frame longer than
 * `maxFrame` bytes is skipped as it streams by (reported once as `oversize`), never held.
 */
export class FrameReader {
  private buf = Buffer.alloc(0);
  private skip = 0;
  private failed = false;

  /** @param maxFrame the longest frame kept, bytes (the session passes its per-cell output bound plus 64 KiB) */
  constructor(private readonly maxFrame: number) {}

  /** Takes one chunk of stdout; returns the frames it completed, in order. After a protocol error, nothing more. */
  push(chunk: Uint8Array): KernelFrame[] {
    if (this.failed) return [];
    let data = Buffer.from(chunk);
    const out: KernelFrame[] = [];
    if (this.skip > 0) {
      const n = Math.min(this.skip, data.length);
      this.skip -= n;
      data = data.subarray(n);
    }
    this.buf = this.buf.length ? Buffer.concat([this.buf, data]) : data;
    while (this.buf.length >= 4 && this.skip === 0) {
      const size = this.buf.readUInt32BE(0);
      if (size < 1) return this.fail(out, 'an empty frame');
      if (size > this.maxFrame) {
        out.push({ kind: 'oversize', bytes: size - 1 });
        const n = Math.min(size, this.buf.length - 4);
        this.skip = size - n;
        this.buf = this.buf.subarray(4 + n);
        continue;
      }
      if (this.buf.length < 4 + size) break;
      const kind = this.buf[4];
      const body = Buffer.from(this.buf.subarray(5, 4 + size));
      this.buf = this.buf.subarray(4 + size);
      if (kind === 0x6f) out.push({ kind: 'stdout', bytes: body });
      else if (kind === 0x65) out.push({ kind: 'stderr', bytes: body });
      else if (kind === 0x6d) {
        const message = parseMessage(body);
        if (typeof message === 'string') return this.fail(out, message);
        out.push({ kind: 'message', message, bytes: body.length });
      } else return this.fail(out, `a frame of unknown kind ${kind}`);
    }
    return out;
  }

  private fail(out: KernelFrame[], why: string): KernelFrame[] {
    this.failed = true;
    this.buf = Buffer.alloc(0);
    out.push({ kind: 'protocol-error', why });
    return out;
  }
}

const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * One `m` frame's body as a {@link KernelMessage}, or why it is not one (exact keys, exact types;
 * display data keeps only {@link DISPLAY_MIMES}, strings except `application/json`).
 */
export function parseMessage(body: Buffer): KernelMessage | string {
  let v: unknown;
  try {
    v = JSON.parse(body.toString('utf8'));
  } catch {
    return 'a message that is not JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'a message that is not an object';
  const m = v as Record<string, unknown>;
  const keys = Object.keys(m).sort().join(',');
  switch (m.t) {
    case 'hello':
      if (keys === 'ipython,protocol,python,t' && m.protocol === 1 && typeof m.ipython === 'boolean' && isString(m.python)) {
        return { t: 'hello', protocol: 1, ipython: m.ipython, python: m.python.slice(0, 40) };
      }
      break;
    case 'display': {
      if (keys !== 'data,t' || typeof m.data !== 'object' || m.data === null || Array.isArray(m.data)) break;
      const data: DisplayData = {};
      for (const mime of DISPLAY_MIMES) {
        if (!Object.hasOwn(m.data, mime)) continue;
        const value = (m.data as Record<string, unknown>)[mime];
        if (mime === 'application/json' || isString(value)) data[mime] = value;
      }
      return { t: 'display', data };
    }
    case 'error':
      if (keys === 'ename,evalue,frames,t,traceback' && isString(m.ename) && isString(m.evalue) && Array.isArray(m.traceback) && m.traceback.every(isString)) {
        const frames = cellFrames(m.frames, m.traceback.length);
        if (frames) return { t: 'error', ename: m.ename, evalue: m.evalue, traceback: m.traceback, frames };
      }
      break;
    case 'input':
      if (keys === 'n,password,prompt,t' && isCount(m.n) && typeof m.password === 'boolean' && isString(m.prompt) && m.prompt.length <= INPUT_PROMPT_MAX) {
        return { t: 'input', n: m.n, prompt: m.prompt, password: m.password };
      }
      break;
    case 'files':
      if (keys === 'dropped,files,t' && Number.isSafeInteger(m.dropped) && Array.isArray(m.files) && m.files.length <= 64) {
        const files: { name: string; data: Buffer }[] = [];
        for (const f of m.files as unknown[]) {
          const o = f as Record<string, unknown>;
          if (typeof f !== 'object' || f === null || Object.keys(o).sort().join(',') !== 'data,name' || !isString(o.name) || !isRelativeFileName(o.name) || !isString(o.data) || !/^[A-Za-z0-9+/]*=*$/.test(o.data)) {
            return 'a files message of no accepted shape';
          }
          files.push({ name: o.name, data: Buffer.from(o.data, 'base64') });
        }
        return { t: 'files', files, dropped: m.dropped as number };
      }
      break;
    case 'done':
      if (keys === 'n,status,t' && Number.isSafeInteger(m.n) && (m.status === 'ok' || m.status === 'error' || m.status === 'interrupted')) {
        return { t: 'done', n: m.n as number, status: m.status };
      }
      break;
  }
  // The reason names the kind only when it is one of the protocol's own words: program text never
  // reaches the runner's sentence (issue 34: 38 characters of a cell's message were quoted).
  const known = ['hello', 'display', 'error', 'input', 'files', 'done'].includes(m.t as string);
  return known ? `a "${m.t as string}" message of no accepted shape` : 'a message of no accepted kind';
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= 0x7fffffff;

/** An error message's `frames`: `[index, cell, line]` triples, indexes ascending within the traceback's `entries`; undefined when not exactly that. */
function cellFrames(v: unknown, entries: number): CellFrame[] | undefined {
  if (!Array.isArray(v) || v.length > entries) return undefined;
  const out: CellFrame[] = [];
  for (const f of v as unknown[]) {
    if (!Array.isArray(f) || f.length !== 3) return undefined;
    const [index, cell, line] = f as unknown[];
    if (!Number.isSafeInteger(index) || (index as number) < (out.at(-1)?.index ?? -1) + 1 || (index as number) >= entries || !isCount(cell) || !isCount(line)) return undefined;
    out.push({ index: index as number, cell, line });
  }
  return out;
}
