/**
 * Which of a display bundle's MIME types a sandboxed notebook cell may show, and program text made
 * inert for VS Code's notebook renderers (issue 34: "notebook outputs reach the network"). Rules
 * come from what each renderer does with the item (VS Code 1.139's built-in renderers, read in
 * extensions/notebook-renderers `renderer-out/index.js` and markdown-language-features
 * `notebook-out/index.js`):
 * - inert, forwarded by default ({@link INERT_MIMES}): `text/plain` (text nodes; web links and
 *   file paths become anchors, broken by {@link inertStreamText}), `image/png` and `image/jpeg`
 *   (the bytes as a `blob:` URL in an `<img>`: no script, no fetch), `application/json` (a
 *   fenced ```json block of `JSON.stringify(value, undefined, '\t')`: every line starts with a
 *   bracket, a quote, a value or a tab, so no line closes the fence; code text is escaped);
 * - never by default ({@link RICH_MIMES}): `text/html` and `image/svg+xml` (set as `innerHTML`
 *   and their `<script>`s re-created in a trusted workspace: remote `<img>`, `fetch`), and
 *   `text/markdown` (markdown-it with `html: true`, unsanitized in a trusted workspace: remote
 *   images, raw HTML). Only the user's own opt-in forwards them (`sandboxRunner.notebooks.richOutput`).
 * - never at all: every other type (`application/javascript` runs as a module script,
 *   `text/latex` and the `text/x-*` types go to markdown-it) — the session already drops them
 *   (frames.ts `DISPLAY_MIMES`), and this list is the editor's own check, since a cell can forge
 *   its kernel's messages (kernelSource.ts).
 * Stream text and errors: the built-in renderer turns `scheme://…`, `data:…` and `www.…` into
 * anchors in stdout, stderr, `text/plain` and error stacks, and (setting
 * `notebook.output.linkifyFilePaths`, on by default) `/path:L`, `~/…`, `./…`, `C:\…` tokens too;
 * {@link inertStreamText} and {@link inertWebText} put a zero-width space (U+200B) where those
 * patterns would match, so the text reads the same and links nowhere. No `vscode` import.
 */
import type { DisplayMime } from './frames';

/** Display types shown as data by VS Code's renderers (see the file comment), in the order items are added. */
export const INERT_MIMES = ['image/png', 'image/jpeg', 'application/json', 'text/plain'] as const satisfies readonly DisplayMime[];
/** Display types whose renderers load remote resources or run script: only with the user's opt-in. */
export const RICH_MIMES = ['image/svg+xml', 'text/html', 'text/markdown'] as const satisfies readonly DisplayMime[];

/**
 * The display types a cell's output may carry, richest first (the order VS Code picks from).
 * @param rich the user's opt-in (`sandboxRunner.notebooks.richOutput`, user settings only)
 */
export function forwardedMimes(rich: boolean): readonly DisplayMime[] {
  return rich ? [...RICH_MIMES, ...INERT_MIMES] : INERT_MIMES;
}

/** Zero-width space: splits a shape the renderer would link, invisibly. */
const BREAK = '\u200b';

/**
 * Characters VS Code's stream handling rewrites across output items (`\r` overwrites the line
 * from its start, `\b` deletes the character before it; notebookCommon.ts `formatStreamText`):
 * they could join text of two items into a link, so they never reach it.
 */
const REWRITING = /\r\n?|\u0008/g;
/** A character after which a `/` or `\` does not start a path token: a letter or digit that cannot end an ANSI sequence (final bytes `ABCDHIJKfhmpsu`), or `_`. */
const SAFE_BEFORE_SLASH = /[0-9EFGLMNOPQRSTUVWXYZabcdegijklnoqrtvwxyz_]/;

/**
 * Stream text (stdout, stderr, `text/plain`) made inert for the built-in renderer, one chunk at a
 * time: a `/` or `\` that could start a path or be part of `scheme://` gets a zero-width space
 * before it, as do the `:` of `data:` and the `.` of `www.`; `\r\n` and a lone `\r` become `\n`,
 * `\b` is dropped, and a chunk never starts with `ESC[A` (VS Code would delete the previous
 * item's last line, joining text). Keeps the last characters of what it returned, so a pattern
 * split across chunks of one output is found too; one instance per output.
 */
export class InertStream {
  private tail = '';

  /** The chunk as it is to be shown (see the class comment). */
  push(text: string): string {
    let out = text.replace(REWRITING, (m) => (m === '\u0008' ? '' : '\n'));
    if (out.startsWith('\u001b[A')) out = BREAK + out;
    const ctx = this.tail;
    let result = '';
    for (let i = 0; i < out.length; i++) {
      const c = out[i]!;
      const before = i >= 4 ? out.slice(i - 4, i) : ctx + out.slice(0, i);
      const prev = before.slice(-1);
      if ((c === '/' || c === '\\') && !SAFE_BEFORE_SLASH.test(prev)) result += BREAK;
      else if (c === ':' && /data$/i.test(before)) result += BREAK;
      else if (c === '.' && /www$/i.test(before)) result += BREAK;
      result += c;
    }
    this.tail = (ctx + out).slice(-4);
    return result;
  }
}

/** A whole stream-like text (a `text/plain` item) made inert ({@link InertStream}). */
export function inertStreamText(text: string): string {
  return new InertStream().push(text);
}

/** The renderer's web-link starts: `scheme://`, `data:`, `www.` (any case). */
const WEB = /(?<=[a-z0-9+.-]:)(?=\/\/)|(?<=data)(?=:)|(?<=www)(?=\.)/gi;

/**
 * Error text made inert against the web links the error renderer makes (`scheme://…`, `data:…`,
 * `www.…`): a zero-width space inside each start. File paths are not linked in error stacks.
 */
export function inertWebText(text: string): string {
  return text.replace(WEB, BREAK);
}
