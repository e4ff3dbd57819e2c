/**
 * "Selections run as written" (issue 11): a selection taken from inside an indented block (an
 * `if` or `def` body) is dedented by its common leading whitespace before it runs, as the Python
 * extension's Run Selection does (Python's `textwrap.dedent` rule). Pure; no `vscode` import.
 */

/** A dedented selection and what was removed, so positions in its output map back (sourceRefs.ts). */
export interface Dedented {
  /** The text with `width` characters removed from the start of every non-blank line. */
  readonly text: string;
  /**
   * Characters (UTF-16 code units; a tab counts as one) removed from each non-blank line: the
   * length of the longest whitespace prefix (spaces and tabs, compared character by character)
   * that every non-blank line starts with. 0 when nothing was removed.
   */
  readonly width: number;
}

/** Whitespace a line may be indented with (textwrap.dedent: spaces and tabs). */
const INDENT = /^[ \t]*/;

/**
 * Removes the common leading whitespace of `text` (textwrap.dedent's rule): lines that hold only
 * spaces, tabs and a line end are ignored when the prefix is chosen and left as they are (they
 * may be shorter than the prefix). A tab and a space never match each other, so a block indented
 * with tabs on some lines and spaces on others is only dedented by what they share. Line ends
 * (LF, CRLF) are kept as written, so line numbers are unchanged.
 * @param text the selection as the editor returns it
 * @returns the dedented text and the removed width; `text` itself when nothing is common
 */
export function dedent(text: string): Dedented {
  const lines = text.split('\n');
  let common: string | undefined;
  for (const line of lines) {
    if (/^[ \t]*\r?$/.test(line)) continue;
    const indent = INDENT.exec(line)![0];
    if (common === undefined) {
      common = indent;
      continue;
    }
    let i = 0;
    while (i < common.length && i < indent.length && common[i] === indent[i]) i++;
    common = common.slice(0, i);
    if (common === '') break;
  }
  const width = common?.length ?? 0;
  if (width === 0) return { text, width: 0 };
  const out = lines.map((line) => (/^[ \t]*\r?$/.test(line) ? line : line.slice(width)));
  return { text: out.join('\n'), width };
}
