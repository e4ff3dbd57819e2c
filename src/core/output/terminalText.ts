/**
 * Program text made safe for a terminal or an output channel, as a stream: ANSI escape sequences
 * are removed, also when a sequence is split across chunks: string sequences (OSC such as window
 * titles, hyperlinks, OSC 52 clipboard writes and Windows Terminal's OSC 9 progress and
 * notifications; DCS, SOS, PM, APC; 7-bit and C1 forms) with their payload, then the rest with
 * `strip-ansi`; a lone carriage return (used to overwrite and hide text)
 * becomes a line feed; other C0/C1 control characters except tab and line feed are dropped.
 *
 * Why not `strip-ansi` alone (issue 21; checked with strip-ansi 7.2.0): it is stateless, so a
 * sequence split across two chunks passes through (`ESC ]0;ti` then `tle BEL` keeps both halves,
 * and the terminal reassembles them), and for an 8-bit OSC it drops the introducer and terminator
 * but leaves the payload as text (`U+009D 0;title U+009C` becomes `0;title`). Holding an unfinished
 * sequence and removing string payloads is the security property here (untrusted program output
 * never reaches a terminal unfiltered), so that part stays hand-made; unit tests in
 * test/unit/terminalText.test.ts cover both cases.
 */
import stripAnsi from 'strip-ansi';

/** Longest incomplete escape sequence held back waiting for its end, in characters. */
const MAX_HELD = 4096;

/**
 * Starts of the string sequences a terminal swallows up to a terminator: OSC (`ESC ]`: titles,
 * OSC 8 hyperlinks, OSC 52 clipboard, Windows Terminal's and ConEmu's OSC 9;4 progress and OSC 9
 * notifications, shell integration OSC 133/633), DCS (`ESC P`: DECRQSS, sixel), SOS (`ESC X`), PM
 * (`ESC ^`), APC (`ESC _`: kitty graphics), in 7-bit form and as C1 characters (U+0090, 98, 9D,
 * 9E, 9F; ECMA-48 § 8.3). Windows Terminal parses all of them (it ignores most DCS, but reads them
 * to their end).
 */
const STRING_START = /\x1b[\]P_^X]|[\x90\x98\x9d\x9e\x9f]/g;
/** What ends a string sequence: BEL (xterm's OSC form), ST as `ESC \` or as C1 U+009C. */
const STRING_END = /\x07|\x1b\\|\x9c/g;

/**
 * Where the unfinished escape sequence at the end of `input` starts, or -1: the first string
 * sequence whose terminator has not arrived (even when an ESC that may begin its `ESC \` comes
 * last), else a last ESC or CSI whose sequence has not ended. A sequence longer than
 * {@link MAX_HELD} characters is not held (it is filtered as it is).
 */
function unfinishedAt(input: string): number {
  STRING_START.lastIndex = 0;
  for (let m = STRING_START.exec(input); m; m = STRING_START.exec(input)) {
    STRING_END.lastIndex = m.index + m[0].length;
    const end = STRING_END.exec(input);
    if (!end && input.length - m.index <= MAX_HELD) return m.index;
    if (!end) break;
    STRING_START.lastIndex = end.index + end[0].length;
  }
  const esc = Math.max(input.lastIndexOf('\x1b'), input.lastIndexOf('\x9b'));
  if (esc < 0) return -1;
  const tail = input.slice(esc);
  if (tail === '\x1b' || tail === '\x9b') return esc;
  const csi = tail[0] === '\x9b' || tail[1] === '[';
  return csi && tail.length <= MAX_HELD && !/[\x40-\x7e]/.test(tail.slice(tail[0] === '\x9b' ? 1 : 2)) ? esc : -1;
}

/** Removes whole string sequences (see {@link STRING_START}), payload included, so none leaves text behind. */
function dropStrings(text: string): string {
  return text.replace(/(?:\x1b[\]P_^X]|[\x90\x98\x9d\x9e\x9f])[^]*?(?:\x07|\x1b\\|\x9c)/g, '');
}

export class TerminalTextFilter {
  private held = '';

  /** Filters one chunk of a stream; may hold back the start of an unfinished escape sequence or a final CR. */
  push(text: string): string {
    let input = this.held + text;
    this.held = '';
    const at = unfinishedAt(input);
    if (at >= 0) {
      this.held = input.slice(at);
      input = input.slice(0, at);
    } else if (input.endsWith('\r')) {
      this.held = '\r'; // a CRLF may be split across chunks
      input = input.slice(0, -1);
    }
    return clean(input);
  }

  /** Ends the stream: a held CR becomes a line break; a never-finished escape sequence is dropped. */
  end(): string {
    const rest = this.held;
    this.held = '';
    return rest === '\r' ? '\n' : '';
  }
}

function clean(text: string): string {
  return stripAnsi(dropStrings(text))
    .replace(/\r\n?/g, '\n')
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
}
