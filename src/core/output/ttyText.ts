/**
 * Program text made safe for a terminal emulator that shows an interactive run (issue 11: VS
 * Code's pseudoterminal, xterm.js), as a stream. Unlike {@link TerminalTextFilter} (output channel,
 * CLI), which strips every escape sequence, this keeps what a program needs to draw inside its
 * own terminal, and drops what reaches outside it:
 * - kept: text; BEL, BS, HT, LF, VT, FF, CR; complete CSI sequences (`ESC [` params intermediates
 *   final: SGR colours, cursor moves, erase, modes, reports that answer the program's own stdin);
 *   two-character and intermediate ESC sequences (`ESC 7`, `ESC M`, `ESC ( B`...);
 * - dropped: every string sequence with its content, whatever its number: OSC (`ESC ]`: window
 *   title OSC 0/1/2, clipboard OSC 52, hyperlinks OSC 8, VS Code shell integration OSC 633/133,
 *   cwd OSC 7, iTerm OSC 1337, ConEmu OSC 9), DCS (`ESC P`), SOS, PM, APC; CSI `t` (XTWINOPS:
 *   window moves, resizes, title stack and reports); every 8-bit C1 control (U+0080–U+009F, also
 *   8-bit CSI/OSC: their content is dropped as for the 7-bit forms); other C0 controls (NUL, SO/SI
 *   charset shifts, ENQ...) and DEL.
 * Every sequence passed on is complete, so the emulator is back in its ground state after each:
 * the program can never open a string sequence that our own text (header, footer) would end.
 * A sequence split across chunks is held until it completes (bounded: an over-long CSI is dropped).
 * The parser states follow the DEC VT500 parser (vt100.net/emu/dec_ansi_parser) that xterm.js uses:
 * ESC, CAN or SUB abort a sequence; a string ends at BEL, ST (`ESC \` or U+009C), CAN or SUB.
 *
 * Hand-made on purpose (issue 21): the security property is an allowlist of complete sequences
 * that leaves the emulator in its ground state, kept auditable in this one file. A stripping
 * library (`strip-ansi`) would remove what a program needs to draw, and an emulator's parser
 * (xterm.js, which the unit tests use to check this filter's output) interprets sequences rather
 * than passing a filtered stream on.
 */

/**
 * Written after a program's output, before the runner's result line, so that no mode the program
 * left on (the filter passes modes through) can hide or garble that line: DECSTR soft reset
 * (`CSI ! p`: SGR, auto-wrap back on, insert and origin modes off, scroll margins to the full
 * screen, character sets back to ASCII, cursor shown, cursor keys normal), the main screen
 * through mode 1047 (never 1049: leaving 1049 restores the saved cursor, which outside the
 * alternate screen moved the result line to the top), bracketed paste, mouse reporting and
 * focus events off (xterm control sequences, invisible-island.net/xterm/ctlseqs).
 * Measured with xterm.js (test/unit/ttyText.test.ts): without DECSTR, a program that turned
 * auto-wrap off and moved the cursor to the right margin left only the last character of the
 * result line visible, and `ESC ( 0` (DEC line drawing) turned its letters into box characters.
 */
export const TTY_RESET = '\x1b[!p\x1b[0m\x1b[?25h\x1b[?1047l\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l';

/**
 * What goes between a program's last output and the runner's result line: {@link TTY_RESET},
 * then the cursor at the start of a cleared line of its own: CR LF unless the output ended a line
 * (`endedLine`), else CR (a raw-mode program's bare LF leaves the column where it was), and
 * `CSI 2 K` (the program may have moved the cursor onto its own text, e.g. a fake result).
 */
export function ttyResultLead(endedLine: boolean): string {
  return `${TTY_RESET}${endedLine ? '\r' : '\r\n'}\x1b[2K`;
}

/** Longest CSI sequence passed on, in characters; a longer one is dropped whole. */
export const MAX_CSI_CHARS = 256;

/**
 * CSI finals whose count parameter xterm.js carries out one step at a time, with the count it
 * is given (up to 2^31 - 1), synchronously on the window's UI thread. Measured with VS Code
 * 1.139's xterm.js (6.1 beta, headless): `CSI 1000000 S` took 3.4 s, `CSI 2147483647 S` (14
 * bytes) ran past 30 s (about two hours by the same rate), and likewise L, M, T (lines), Z, I
 * (tab stops) and b (REP). A count beyond the screen changes nothing more on it, so each is
 * clamped to the screen's side: rows for lines, columns for characters and tab stops.
 */
const COUNT_FINALS: Readonly<Record<string, 'rows' | 'columns'>> = {
  L: 'rows', M: 'rows', S: 'rows', T: 'rows', '@': 'columns', P: 'columns', X: 'columns', I: 'columns', Z: 'columns', b: 'columns',
};

/** The screen size counts are clamped to when the filter is given none (the largest side a TTY frame carries). */
const NO_SIZE = { rows: 65535, columns: 65535 };

/** CSI final characters never passed on: `t` is XTWINOPS (window manipulation and title reports). */
const DENIED_CSI_FINALS = new Set(['t']);

/** C0 controls passed on: BEL, BS, HT, LF, VT, FF, CR. */
const KEPT_C0 = new Set([0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]);

/** Introducers (after ESC) of string sequences: OSC, DCS, SOS, PM, APC. */
const STRING_INTRODUCERS = new Set([']', 'P', 'X', '^', '_']);

/** 8-bit forms of the string introducers: DCS, SOS, OSC, PM, APC. */
const C1_STRINGS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);

/** A run of characters that are neither C0, DEL nor C1 (passed on as they are from the ground state). */
const PLAIN = /[^\x00-\x1f\x7f-\x9f]+/y;

type State = 'ground' | 'esc' | 'escInter' | 'csi' | 'str' | 'strEsc';

export class TtyTextFilter {
  private state: State = 'ground';
  /** The sequence being collected (esc, escInter, csi), passed on once complete. */
  private seq = '';

  /**
   * @param size the terminal's current size in cells (read at each sequence), for clamping counts
   *   (see COUNT_FINALS); without it counts are clamped to 65535
   */
  constructor(private readonly size: () => { readonly rows: number; readonly columns: number } = () => NO_SIZE) {}

  /** Filters one chunk of the stream; holds back an unfinished sequence (see the module comment). */
  push(text: string): string {
    let out = '';
    let i = 0;
    while (i < text.length) {
      if (this.state === 'ground') {
        PLAIN.lastIndex = i;
        const run = PLAIN.exec(text);
        if (run) {
          out += run[0];
          i += run[0].length;
          continue;
        }
      }
      const ch = String.fromCodePoint(text.codePointAt(i)!);
      out += this.step(ch);
      i += ch.length;
    }
    return out;
  }

  /** Ends the stream: an unfinished sequence is dropped. The filter can be used again. */
  end(): string {
    this.state = 'ground';
    this.seq = '';
    return '';
  }

  /** One character through the state machine; returns what to pass on (often ''). */
  private step(ch: string): string {
    const c = ch.codePointAt(0)!;
    switch (this.state) {
      case 'ground':
        return this.ground(ch, c);
      case 'esc':
        return this.escape(ch, c);
      case 'escInter':
        if (c >= 0x20 && c <= 0x2f) return this.collect(ch);
        if (c >= 0x30 && c <= 0x7e) return this.complete(ch);
        return this.abort(ch, c);
      case 'csi':
        if (c >= 0x20 && c <= 0x3f) return this.collect(ch);
        if (c >= 0x40 && c <= 0x7e) {
          if (DENIED_CSI_FINALS.has(ch) || this.seq.length >= MAX_CSI_CHARS) return this.drop();
          const side = COUNT_FINALS[ch];
          if (side && /^\x1b\[[\d;]*$/.test(this.seq)) {
            const max = Math.max(1, Math.min(65535, Math.floor(this.size()[side]) || 1));
            this.seq = this.seq.replace(/\d+/g, (n) => (Number(n) > max ? String(max) : n));
          }
          return this.complete(ch);
        }
        return this.abort(ch, c);
      case 'str':
        if (c === 0x1b) this.state = 'strEsc';
        else if (c === 0x07 || c === 0x9c || c === 0x18 || c === 0x1a) this.state = 'ground';
        return '';
      case 'strEsc':
        // `ESC \` is ST; any other ESC ends the string and starts a new sequence.
        if (ch === '\\') return this.drop();
        this.state = 'esc';
        this.seq = '\x1b';
        return this.escape(ch, c);
    }
  }

  private ground(ch: string, c: number): string {
    if (c === 0x1b) {
      this.state = 'esc';
      this.seq = ch;
      return '';
    }
    if (c === 0x9b) {
      this.state = 'csi';
      this.seq = '\x1b[';
      return '';
    }
    if (C1_STRINGS.has(c)) {
      this.state = 'str';
      return '';
    }
    if (c < 0x20) return KEPT_C0.has(c) ? ch : '';
    if (c >= 0x7f && c <= 0x9f) return '';
    return ch;
  }

  private escape(ch: string, c: number): string {
    if (ch === '[') {
      this.state = 'csi';
      return this.collect(ch);
    }
    if (STRING_INTRODUCERS.has(ch)) {
      this.seq = '';
      this.state = 'str';
      return '';
    }
    if (c >= 0x20 && c <= 0x2f) {
      this.state = 'escInter';
      return this.collect(ch);
    }
    if (c >= 0x30 && c <= 0x7e) return this.complete(ch);
    return this.abort(ch, c);
  }

  private collect(ch: string): string {
    if (this.seq.length <= MAX_CSI_CHARS) this.seq += ch;
    return '';
  }

  private complete(ch: string): string {
    const out = this.seq + ch;
    this.drop();
    return out;
  }

  private drop(): string {
    this.state = 'ground';
    this.seq = '';
    return '';
  }

  /** A character that cannot continue the sequence: the sequence is dropped, the character handled anew (ESC starts another). */
  private abort(ch: string, c: number): string {
    this.drop();
    return c === 0x18 || c === 0x1a ? '' : this.ground(ch, c);
  }
}
