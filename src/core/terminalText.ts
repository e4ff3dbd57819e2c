/**
 * Program text made safe for a terminal or an output channel, as a stream: ANSI escape sequences
 * (CSI, OSC such as window titles or OSC 52 clipboard writes) are removed with `strip-ansi`, also
 * when a sequence is split across chunks; a lone carriage return (used to overwrite and hide text)
 * becomes a line feed; other C0/C1 control characters except tab and line feed are dropped.
 */
import stripAnsi from 'strip-ansi';

/** Longest incomplete escape sequence held back waiting for its end, in characters. */
const MAX_HELD = 4096;

/** True when `tail` (starting at ESC or CSI) is an escape sequence that has not ended yet. */
function incomplete(tail: string): boolean {
  if (tail.length > MAX_HELD) return false;
  if (tail === '\x1b' || tail === '\x9b') return true;
  const kind = tail[0] === '\x9b' ? '[' : tail[1];
  const body = tail.slice(tail[0] === '\x9b' ? 1 : 2);
  if (kind === '[') return !/[\x40-\x7e]/.test(body);
  if (kind === ']' || kind === 'P' || kind === '_' || kind === '^') return !/\x07|\x1b\\|\x9c/.test(body);
  return false;
}

export class TerminalTextFilter {
  private held = '';

  /** Filters one chunk of a stream; may hold back the start of an unfinished escape sequence or a final CR. */
  push(text: string): string {
    let input = this.held + text;
    this.held = '';
    const esc = Math.max(input.lastIndexOf('\x1b'), input.lastIndexOf('\x9b'));
    if (esc >= 0 && incomplete(input.slice(esc))) {
      this.held = input.slice(esc);
      input = input.slice(0, esc);
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
  return stripAnsi(text)
    .replace(/\r\n?/g, '\n')
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
}
