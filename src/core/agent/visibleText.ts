/**
 * Untrusted code and names as a person must see them in a confirmation (issue 34): every
 * character that changes how text is split into lines or displayed is shown as a visible escape
 * `⟦U+XXXX⟧`: C0/C1 controls but tab and line feed, line and paragraph separators, NEL, lone CR,
 * bidi controls, zero-width and other format characters (Unicode Cf), default-ignorable code
 * points (variation selectors, Hangul fillers), surrogates, private-use and unassigned code
 * points, spaces other than U+0020; the escape brackets themselves too, so the shown text maps
 * back to one source. A character some language ends a line at (CR, LS, PS: JavaScript; CR:
 * Python, C) also breaks the shown line after its escape. No `vscode` import here.
 */

/** Characters shown escaped (see the file header). */
const HIDDEN = /[\0-\x08\x0b-\x1f\x7f-\x9f\u27e6\u27e7]|\p{Cf}|\p{Zl}|\p{Zp}|\p{Cs}|\p{Co}|\p{Cn}|\p{Default_Ignorable_Code_Point}|(?!\x20)\p{Zs}/gu;

/** Line terminators of some language the runner runs (JavaScript: CR, LS, PS; Python and C: CR), besides LF. */
const BREAKS = new Set(['\r', '\u2028', '\u2029']);

/** One character as its visible escape, e.g. `⟦U+2028⟧`. */
function escapeChar(c: string): string {
  return `⟦U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟧`;
}

/** `text` with every hidden character (file header) escaped; line breaks of some language become an escape and a line feed. Tab and LF stay. */
export function visibleText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(HIDDEN, (c) => (BREAKS.has(c) ? `${escapeChar(c)}\n` : escapeChar(c)));
}

/**
 * `code` as shown lines: {@link visibleText}, each line wrapped (never cut) into rows of at most
 * `width` characters, continuation rows starting with `⟦↪⟧ `, an escape never split.
 * @returns the shown rows
 */
export function visibleRows(code: string, width = 100): string[] {
  const rows: string[] = [];
  for (const line of visibleText(code).split('\n')) {
    const parts = line.match(/⟦[^⟧]*⟧|[\s\S]/gu) ?? [];
    let row = '';
    let n = 0;
    let first = true;
    for (const p of parts) {
      if (n + 1 > width) {
        rows.push(first ? row : `⟦↪⟧ ${row}`);
        first = false;
        row = '';
        n = 0;
      }
      row += p;
      n += 1;
    }
    rows.push(first ? row : `⟦↪⟧ ${row}`);
  }
  return rows;
}

/** The whole of `code` as a confirmation shows it: {@link visibleRows} joined by line feeds, never shortened (issue 34). */
export function shownCode(code: string): string {
  return visibleRows(code).join('\n');
}
