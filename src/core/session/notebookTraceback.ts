/**
 * A session error's traceback as a notebook error output's stack (issue 24): the frames of the
 * cells' own code link to the cell's line, nothing else links. VS Code's built-in error renderer
 * (extensions/notebook-renderers, `stackTraceHelper`, read at 1.139) turns a line
 * `Cell In[N], line L` into a link to `vscode-notebook-cell:?execution_count=N&line=L` (the
 * notebook's cell with that execution count, at that line) when the workspace is trusted; so the
 * header of each cell frame is built here from the kernel's checked numbers (frames.ts
 * `CellFrame`), never from text. Every other character of the traceback is the program's and
 * stays text: the shapes that renderer would also turn into links or markup (`<a …>`, a
 * `File …:N` line, an `Input In[N]` or `Cell In[N]` line, an `--> N` arrow) get a zero-width space
 * inside them, so they show as they are and link nowhere. No `vscode` import here.
 */
import type { CellFrame } from './frames';

/** Zero-width space: splits a shape the renderer would match, invisibly. */
const BREAK = '\u200b';
const ESC_OR_SPACE = '(?:\\u001b\\[[\\d;]*m|\\s)*';
/**
 * What the renderer matches (see the file comment), each broken after its first character. The
 * renderer's `File\s+(?:\u001b\[.+?m)?(.+):(\d+)` is found by {@link fileLinks}, not by a
 * lookahead here: `F(?=ile\s+.+:\d)` scans to the line's end at every `File`, quadratic in a
 * program's traceback text (issue 34: 40 KB of "File " took 0.6 s, 1 MiB minutes).
 */
const SHAPES = new RegExp([
  `<(?=[aA]\\s)`, // an HTML anchor (rendered as HTML in a trusted workspace)
  `F(?=ile\\s)`, // "File PATH:N" (links the arrow lines after it to PATH) when fileLinks says so
  `C(?=ell${ESC_OR_SPACE}In)`, // "Cell In[N], line L"
  `I(?=nput\\s)`, // "Input In[N]" (older IPython)
  `-(?=>${ESC_OR_SPACE}\\d)`, // "--> N": links N to the frame above
].join('|'), 'g');

const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * Which `File` of `text` start what `File\s+(?:\u001b\[.+?m)?.+:\d` matches, in linear work: the
 * escape group is optional and `.+` covers it, so a `File` at `i` matches when, for some split `k`
 * of the whitespace run after it (at least one character in `\s+`), the character at `k` is not a
 * newline and a `:digit` follows later on `k`'s line. `colon[p]`: a `:digit` starts at or after
 * `p` before the next newline (one backward pass); the whitespace runs of different `File`s do
 * not overlap, so all checks together read each character a bounded number of times.
 * @returns a predicate on the offset of an `F`
 */
function fileLinks(text: string): (at: number) => boolean {
  const colon = new Uint8Array(text.length + 1);
  let seen = 0;
  for (let p = text.length - 1; p >= 0; p--) {
    if (text[p] === '\n') seen = 0;
    else if (text[p] === ':' && isDigit(text[p + 1])) seen = 1;
    colon[p] = seen;
  }
  return (at) => {
    for (let k = at + 5; k <= text.length && isSpace(text[k - 1]); k++) {
      if (k < text.length && text[k] !== '\n' && colon[k + 1] === 1) return true;
    }
    return false;
  };
}

/** `text` with every shape the error renderer would link or render as markup made inert (see the file comment). */
export function inertTraceback(text: string): string {
  let links: ((at: number) => boolean) | undefined;
  return text.replace(SHAPES, (c: string, at: number) => (c !== 'F' || (links ??= fileLinks(text))(at) ? c + BREAK : c));
}

/**
 * The stack text of a notebook error output: `traceback`'s entries in order, each made inert
 * ({@link inertTraceback}), except that each entry named by `frames` starts with the line
 * `Cell In[N], line L` (N the cell's execution count, L its line) in place of its first line (the
 * kernel's `File "<cell N>", line L, in NAME`); the entry's other lines (the source line) follow, inert.
 * @param frames from the kernel's error message, checked (frames.ts); entries they name out of range are ignored
 */
export function notebookStack(traceback: readonly string[], frames: readonly CellFrame[]): string {
  const cellAt = new Map(frames.map((f) => [f.index, f]));
  return traceback.map((entry, i) => {
    const f = cellAt.get(i);
    if (!f) return inertTraceback(entry);
    const nl = entry.indexOf('\n');
    const rest = nl < 0 ? '' : entry.slice(nl + 1);
    return `Cell In[${f.cell}], line ${f.line}\n${inertTraceback(rest)}`;
  }).join('');
}
