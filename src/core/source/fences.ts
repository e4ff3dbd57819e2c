/**
 * Fenced code blocks of a Markdown document (issue 12: "Run in Sandbox" above a block), found by
 * the CommonMark 0.31.2 rules for fenced code blocks (spec section 4.5), without a Markdown
 * library. Pure; no `vscode` import.
 *
 * What is followed (spec section 4.5):
 * - an opening fence is at least three backticks or tildes after at most 3 spaces of indentation;
 *   a backtick fence's info string may not contain a backtick (that line is not a fence);
 * - the block ends at a line of the same character, at least as long as the opening fence, with
 *   at most 3 spaces of indentation and nothing but spaces or tabs after it; an unclosed block
 *   runs to the end of the document (or of its container);
 * - when the opening fence is indented N spaces, up to N spaces are removed from each content line.
 *
 * Containers (the "decide and document" part; spec sections 5.1-5.3):
 * - Block quotes (`>` after at most 3 spaces, one optional space after it) are followed: a fence
 *   inside `> ` lines is found, and the block ends at the first line that no longer continues the
 *   quote (fenced code is never a lazy continuation line).
 * - List items (`-`, `+`, `*`, `1.`, `1)` followed by 1-4 spaces) are followed by their content
 *   column: a fence on the marker's line (`- ```py`) or indented to the item's content column is
 *   found; a non-blank line indented less than the content column ends the item (and a block in
 *   it). Blank lines continue a list item.
 * - Simplifications, each of which can only miss a block, never invent one: a lazy paragraph
 *   continuation line ends the containers it does not repeat (a fence after it at the item's
 *   indentation is then an indented code block, not a fence); more than {@link MAX_CONTAINERS}
 *   nested containers stop being followed (deeper fences are not found).
 * - Not followed, so a fence-like line inside them may be reported: HTML blocks (`<pre>`), link
 *   reference definitions and setext headings. A tab in a fence line's indentation counts as
 *   reaching column 4 (the spec's tab stops), so such a line never opens or closes a fence; only
 *   spaces are removed from content lines (a content line that starts with a tab keeps it).
 *
 * Linear time in the document's length: each line is looked at once, each container check
 * consumes at least one character or stops, and the regular expressions are anchored without
 * nested quantifiers.
 */

/** One fenced code block. Lines are 0-based document lines (line breaks: LF, CRLF or CR). */
export interface FencedBlock {
  /** The opening fence's line. */
  readonly fenceLine: number;
  /** The first content line (`fenceLine + 1`), even when the block has no content. */
  readonly contentStart: number;
  /** Content lines with container prefixes and the fence's indentation removed, without line ends. */
  readonly lines: readonly string[];
  /** The info string's first word as written (spec: "the first word of the info string"), `''` when none. */
  readonly info: string;
  /** The closing fence's line, or undefined for a block that runs to the end of its container or the document. */
  readonly closeLine?: number;
  /**
   * Characters (UTF-16 code units) removed from the start of the first content line: container
   * prefixes (`> `, a list item's indentation) plus the fence's indentation; the same width is
   * assumed for the other lines when positions map back (sourceRefs.ts `dedent`).
   */
  readonly strip: number;
}

/** Nested containers (block quotes, list items) followed at most; deeper ones are not (linear time on `> > > …`). */
export const MAX_CONTAINERS = 32;

type Container = { readonly kind: 'quote' } | { readonly kind: 'item'; readonly width: number };

const LINE_BREAK = /\r\n|\r|\n/;
const QUOTE = /^ {0,3}> ?/;
/** A list item's start: up to 3 spaces, a bullet or a 1-9 digit number with `.` or `)`, then 1+ spaces or the line's end. */
const ITEM = /^( {0,3})([-+*]|\d{1,9}[.)])( +|$)/;
/** An opening fence: indentation, 3+ backticks or tildes, the rest of the line. */
const OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
/** Leading spaces (only spaces: a tab is not removed from content lines). */
const SPACES = /^ */;

/** A fence being read: its opening line's shape, the containers it sits in and its content so far. */
interface OpenFence {
  readonly char: string;
  readonly length: number;
  readonly indent: number;
  /** How many open containers hold it: a line continuing fewer ends it. */
  readonly depth: number;
  readonly line: number;
  readonly info: string;
  strip: number;
  readonly lines: string[];
}

/** A line after the container prefixes taken so far: `rest` follows them, `used` is their width (UTF-16 code units). */
interface LineRest {
  readonly rest: string;
  readonly used: number;
}

/**
 * Every fenced code block of `text`, in document order.
 * @param text the whole Markdown document
 * @returns the blocks (empty when none); never throws
 */
export function findFencedBlocks(text: string): FencedBlock[] {
  const lines = text.split(LINE_BREAK);
  const blocks: FencedBlock[] = [];
  const open: Container[] = [];
  let fence: OpenFence | undefined;
  for (let n = 0; n < lines.length; n++) {
    const at = continuedContainers(open, lines[n]!);
    if (fence && at.matched >= fence.depth) {
      if (isClosingFence(at.rest, fence.char, fence.length)) {
        blocks.push(toBlock(fence, n));
        fence = undefined;
        open.length = at.matched;
      } else {
        const indent = Math.min(SPACES.exec(at.rest)![0].length, fence.indent);
        if (fence.lines.length === 0) fence.strip = at.used + indent;
        fence.lines.push(at.rest.slice(indent));
      }
      continue;
    }
    // The line leaves the block's container: the block ends before it (spec 5.1, 5.2).
    if (fence) blocks.push(toBlock(fence));
    open.length = at.matched;
    const after = openContainers(open, at);
    fence = openingFence(after, open.length, n);
  }
  if (fence) blocks.push(toBlock(fence));
  return blocks;
}

/** Which of the `open` containers `line` continues (`matched`, from the outermost), and what follows their prefixes. */
function continuedContainers(open: readonly Container[], line: string): LineRest & { readonly matched: number } {
  let rest = line;
  let used = 0;
  let matched = 0;
  for (const c of open) {
    if (c.kind === 'quote') {
      const m = QUOTE.exec(rest);
      if (!m) break;
      rest = rest.slice(m[0].length);
      used += m[0].length;
    } else {
      const blank = rest.trim() === '';
      const indent = SPACES.exec(rest)![0].length;
      if (!blank && indent < c.width) break;
      const cut = Math.min(indent, c.width);
      rest = rest.slice(cut);
      used += cut;
    }
    matched++;
  }
  return { rest, used, matched };
}

/**
 * Pushes onto `open` the containers a line opens after `at` (only with at most 3 spaces of
 * indentation: 4+ is an indented code block, which holds no containers and no fences), at most
 * {@link MAX_CONTAINERS} in all, and returns what follows their prefixes.
 */
function openContainers(open: Container[], at: LineRest): LineRest {
  let { rest, used } = at;
  while (open.length < MAX_CONTAINERS) {
    const quote = QUOTE.exec(rest);
    if (quote) {
      open.push({ kind: 'quote' });
      rest = rest.slice(quote[0].length);
      used += quote[0].length;
      continue;
    }
    const item = ITEM.exec(rest);
    if (!item || isThematicBreak(rest)) break;
    // Spec 5.2: 5+ spaces after the marker start an indented code block; the content
    // column is then one space after the marker.
    const spaces = item[3]!.length;
    const gap = spaces === 0 || spaces > 4 ? 1 : spaces;
    const width = item[1]!.length + item[2]!.length + gap;
    open.push({ kind: 'item', width });
    const cut = Math.min(rest.length, width);
    rest = rest.slice(cut);
    used += cut;
  }
  return { rest, used };
}

/** The fence `at` opens on line `n` inside `depth` containers, or undefined when it opens none. */
function openingFence(at: LineRest, depth: number, n: number): OpenFence | undefined {
  const opener = OPEN.exec(at.rest);
  if (!opener) return undefined;
  const char = opener[2]![0]!;
  const info = opener[3]!.trim();
  if (char === '`' && info.includes('`')) return undefined; // spec example 145: an inline code span, not a fence
  const indent = opener[1]!.length;
  return {
    char,
    length: opener[2]!.length,
    indent,
    depth,
    line: n,
    info: info.split(/[ \t]/, 1)[0]!,
    strip: at.used + indent,
    lines: [],
  };
}

/** The block a fence made, closed on `closeLine` or (undefined) at the end of its container or the document. */
function toBlock(fence: OpenFence, closeLine?: number): FencedBlock {
  return {
    fenceLine: fence.line,
    contentStart: fence.line + 1,
    lines: fence.lines,
    info: fence.info,
    ...(closeLine === undefined ? {} : { closeLine }),
    strip: fence.strip,
  };
}

/** True for a closing fence of `char` at least `length` long (spec 4.5: up to 3 spaces, then only spaces or tabs). */
function isClosingFence(rest: string, char: string, length: number): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(rest);
  return m !== null && m[1]![0] === char && m[1]!.length >= length;
}

/** A thematic break (spec 4.1: 3+ `-`, `*` or `_`, spaces and tabs between them), which is not a list item. */
function isThematicBreak(rest: string): boolean {
  return /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/.test(rest);
}
