/**
 * Fenced code blocks of a Markdown document (issue 12: "Run in Sandbox" above a block), as
 * markdown-it finds them: the parser of VS Code's own Markdown preview, with the preview's block
 * options (the `default` preset, `html: true`), so a lens sits exactly where the preview shows a
 * fenced code block. Only markdown-it's block parser runs, imported from its own module
 * (`markdown-it/lib/parser_block.mjs`, in the package's `exports`; the version is pinned): the
 * block pass of `md.parse` with its core rules `normalize` and `block` and no inline parsing, so
 * the inline rules, the renderer, linkify-it and punycode stay out of the bundles (issue 26); a
 * `fence` token's line map gives the lines, its content the code. test/unit/fences.test.ts checks
 * that every block found equals the full parser's. Pure; no `vscode` import. Loaded only by the lazy
 * Markdown bundle (dist/markdown.js) and the CLI: esbuild.config.mjs fails the build when
 * markdown-it reaches the activation bundle, and the core barrel does not export this module.
 *
 * What follows from markdown-it (CommonMark 0.31.2, sections 4.5, 4.6 and 5):
 * - a fence inside an HTML block (`<div>` up to a blank line, `<pre>` up to `</pre>`, a comment)
 *   is HTML, not a block; an indented code block (4 spaces) has no info string and is not reported;
 * - fences in block quotes and list items are found, with the containers' prefixes and the fence's
 *   indentation removed from the content, and end where their container ends;
 * - an unclosed fence runs to the end of its container or of the document (`closeLine` undefined);
 * - line ends LF, CRLF and CR each end one line, and a NUL character comes back as U+FFFD
 *   (markdown-it's `normalize` rule, CommonMark section 2.3);
 * - nesting deeper than markdown-it's `maxNesting` (100 for the `default` preset) is not followed.
 *
 * What the preview may still show differently: plugins other extensions add to the preview
 * (front matter, math blocks) can hide a fence the plain parser sees; the lens is then shown on
 * text the preview does not render as code. That can only add a lens, never run anything by itself.
 */
import type MarkdownIt from 'markdown-it';
import { unescapeAll } from 'markdown-it/lib/common/utils.mjs';
import * as helpers from 'markdown-it/lib/helpers/index.mjs';
import ParserBlock from 'markdown-it/lib/parser_block.mjs';
import normalize from 'markdown-it/lib/rules_core/normalize.mjs';
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import type Token from 'markdown-it/lib/token.mjs';
import * as mdurl from 'mdurl';

/** One fenced code block. Lines are 0-based document lines (line breaks: LF, CRLF or CR). */
export interface FencedBlock {
  /** The opening fence's line. */
  readonly fenceLine: number;
  /** The first content line (`fenceLine + 1`), even when the block has no content. */
  readonly contentStart: number;
  /** Content lines with container prefixes and the fence's indentation removed, without line ends. */
  readonly lines: readonly string[];
  /**
   * The info string's first word after backslash escapes and entities are resolved, as the
   * preview's renderer takes it for the language; `''` when none.
   */
  readonly info: string;
  /** The closing fence's line, or undefined for a block that runs to the end of its container or the document. */
  readonly closeLine?: number;
  /**
   * Characters (UTF-16 code units) removed from the start of the first content line: container
   * prefixes (`> `, a list item's indentation) plus the fence's indentation; the same width is
   * assumed for the other lines when positions map back (sourceRefs.ts `dedent`). For a block
   * without content, the width before the opening fence's markers.
   */
  readonly strip: number;
}

/** Line ends as markdown-it's `normalize` rule counts them. */
const LINE_BREAK = /\r\n?|\n/;

/**
 * What the block rules read of the `MarkdownIt` instance (`state.md`), with the preview's options:
 * `html: true`, `maxNesting` 100 (the `default` preset), and its link checks, because whether a
 * reference definition is accepted can move a fence (a refused one is paragraph text, which a
 * lazy list continuation treats differently).
 */
interface BlockHost {
  readonly block: ParserBlock;
  readonly helpers: typeof helpers;
  readonly options: { readonly html: true; readonly maxNesting: number };
  normalizeLink(url: string): string;
  validateLink(url: string): boolean;
}

/**
 * markdown-it's `normalizeLink` as its `validateLink` sees it: mdurl's parse, format and encode.
 * Its one other step, punycode on an http(s)/mailto host name, rewrites only text after the scheme,
 * which `validateLink` never reads.
 */
function normalizeLink(url: string): string {
  return mdurl.encode(mdurl.format(mdurl.parse(url, true)));
}

/** markdown-it's `validateLink`: `javascript:`, `vbscript:`, `file:` and `data:` refused, except `data:` images. */
function validateLink(url: string): boolean {
  const str = url.trim().toLowerCase();
  return /^(vbscript|javascript|file|data):/.test(str) ? /^data:image\/(gif|png|jpeg|webp);/.test(str) : true;
}

let host: BlockHost | undefined;

/** The block parser and what its rules read, made on first use. */
function blockHost(): BlockHost {
  host ??= { block: new ParserBlock(), helpers, options: { html: true, maxNesting: 100 }, normalizeLink, validateLink };
  return host;
}

/** The block tokens of `text`: markdown-it's `normalize` rule (CRLF and CR to LF, NUL to U+FFFD), then its block pass. */
function blockTokens(text: string): Token[] {
  const md = blockHost();
  const state = { src: text };
  normalize(state as StateCore);
  const tokens: Token[] = [];
  md.block.parse(state.src, md as unknown as MarkdownIt, {}, tokens);
  return tokens;
}

/**
 * Every fenced code block of `text`, in document order.
 * @param text the whole Markdown document
 * @returns the blocks (empty when none); never throws for any string
 */
export function findFencedBlocks(text: string): FencedBlock[] {
  const tokens = blockTokens(text);
  let raw: string[] | undefined;
  const blocks: FencedBlock[] = [];
  for (const t of tokens) {
    if (t.type !== 'fence' || !t.map) continue;
    raw ??= text.split(LINE_BREAK);
    const [fenceLine, end] = t.map;
    const lines = contentLines(t.content);
    // markdown-it maps a closed block to its closing fence's line too: one line more than its content.
    const closed = end - fenceLine - 1 > lines.length;
    blocks.push({
      fenceLine,
      contentStart: fenceLine + 1,
      lines,
      info: unescapeAll(t.info).trim().split(/\s+/, 1)[0]!,
      ...(closed ? { closeLine: end - 1 } : {}),
      strip: stripWidth(raw, fenceLine, lines, t.markup),
    });
  }
  return blocks;
}

/** A fence token's content as lines without their ends (its last line has an end unless it ends the document). */
function contentLines(content: string): string[] {
  if (content === '') return [];
  const lines = content.split('\n');
  if (content.endsWith('\n')) lines.pop();
  return lines;
}

/**
 * What was removed from the first content line: the raw line's length less the content line's.
 * Where markdown-it turned a tab it cut into spaces, this still maps the line's text back to its
 * raw columns (at least 0: a tab widened into more spaces than it took is counted as 0).
 */
function stripWidth(raw: readonly string[], fenceLine: number, lines: readonly string[], markup: string): number {
  if (lines.length === 0) return Math.max(0, (raw[fenceLine] ?? '').indexOf(markup));
  return Math.max(0, (raw[fenceLine + 1] ?? '').length - lines[0]!.length);
}

/**
 * `text` with every line of its fenced code blocks (fences included) made empty, other lines as they
 * were (line count unchanged; line ends become `\n`). For reading what a whole Markdown document
 * declares, e.g. that a `# /// script` block inside a fence belongs to that block, not to the file
 * (issue 22). Never throws.
 */
export function withoutFencedBlocks(text: string): string {
  const lines = text.split(LINE_BREAK);
  for (const b of findFencedBlocks(text)) {
    const last = b.closeLine ?? b.contentStart + b.lines.length - 1;
    for (let i = b.fenceLine; i <= Math.min(last, lines.length - 1); i++) lines[i] = '';
  }
  return lines.join('\n');
}
