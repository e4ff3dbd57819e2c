import assert from 'node:assert/strict';
import { MAX_CSI_CHARS, ttyResultLead, TtyTextFilter } from '../../src/core/output/ttyText';

function run(chunks: string[]): string {
  const f = new TtyTextFilter();
  return chunks.map((c) => f.push(c)).join('') + f.end();
}

/** Every way to split `text` in two: the filter must give the same result. */
function allSplits(text: string): string[] {
  return Array.from({ length: text.length + 1 }, (_, i) => run([text.slice(0, i), text.slice(i)]));
}

describe('tty text filter for the interactive terminal (unit)', () => {
  it('keeps colours, cursor moves, erase and line editing (CR, BS), also when split across chunks', () => {
    const text = '\x1b[1;31mred\x1b[0m\r\n\x1b[2K\rName: Ad\b \ba\x1b[3D\x1b[?2004h\x1b7\x1b8\x1b(B\x1b[38;2;1;2;3mrgb\x07\t.';
    for (const out of allSplits(text)) assert.equal(out, text);
  });

  it('drops window titles, OSC 52 clipboard writes, OSC 8 hyperlinks and shell-integration sequences with their content', () => {
    assert.equal(run(['a\x1b]0;evil title\x07b']), 'ab');
    assert.equal(run(['a\x1b]2;t\x1b\\b']), 'ab');
    assert.equal(run(['x\x1b]52;c;ZXZpbA==', '\x1b\\y']), 'xy');
    assert.equal(run(['\x1b]8;;command:workbench.action.terminal.sendSequence?%7B%7D\x1b\\click\x1b]8;;\x1b\\']), 'click');
    assert.equal(run(['\x1b]8;;https://example.com\x07site\x1b]8;;\x07']), 'site');
    assert.equal(run(['\x1b]633;E;rm -rf ~\x07\x1b]133;A\x07\x1b]7;file:///etc\x07\x1b]1337;CurrentDir=/\x07\x1b]9;9;/x\x07ok']), 'ok');
    for (const out of allSplits('p\x1b]0;title\x1b\\q')) assert.equal(out, 'pq');
  });

  it('drops DCS, SOS, PM and APC strings, and the 8-bit C1 forms of every sequence', () => {
    assert.equal(run(['a\x1bP$qm\x1b\\b\x1bXsos\x1b\\c\x1b^pm\x1b\\d\x1b_apc\x1b\\e']), 'abcde');
    assert.equal(run(['a\u009d0;title\u009cb\u0090dcs\u009cc\u009b31md\u0085e']), 'ab' + 'c\x1b[31md' + 'e');
  });

  it('drops CSI t (window manipulation, title reports) but keeps other CSI sequences whole', () => {
    assert.equal(run(['a\x1b[21tb\x1b[8;100;100tc\x1b[22;0td']), 'abcd');
    assert.equal(run(['\x1b[6n\x1b[>c\x1b[?1049h']), '\x1b[6n\x1b[>c\x1b[?1049h');
  });

  it('a string ends at BEL, ST, CAN or SUB, and an ESC inside it starts a new sequence', () => {
    assert.equal(run(['a\x1b]0;x\x18b\x1b]0;y\x1ac']), 'abc');
    assert.equal(run(['a\x1b]0;x\x1b[31mb']), 'a\x1b[31mb');
  });

  it('drops other controls (NUL, SO/SI, ENQ, DEL) and aborted or over-long sequences, keeping the text', () => {
    assert.equal(run(['a\x00\x0e\x0f\x05\x7fb']), 'ab');
    assert.equal(run(['a\x1b[31\x18mb']), 'amb');
    assert.equal(run([`a\x1b[${'1;'.repeat(MAX_CSI_CHARS)}mb`]), 'ab');
    assert.equal(run(['ok\x1b]0;never ends']), 'ok');
    assert.equal(run(['ok\x1b[3']), 'ok');
  });

  it('passes text through unchanged, including non-ASCII and astral characters', () => {
    assert.equal(run(['héllo 世界 😀\r\n']), 'héllo 世界 😀\r\n');
  });
});

describe('tty result line after hostile program output, on a real emulator (unit)', () => {
  // @xterm/headless is xterm.js without a renderer: the emulator VS Code's terminal runs.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');

  /** The rows the terminal shows after header, filtered program output, lead and result (as finish() writes them). */
  async function screen(program: string): Promise<string[]> {
    const term = new Terminal({ cols: 40, rows: 8, allowProposedApi: true });
    const write = (s: string) => new Promise<void>((resolve) => term.write(s, resolve));
    const filter = new TtyTextFilter();
    const out = filter.push(program) + filter.end();
    await write('\x1b[2mheader: run x.py\x1b[0m\r\n');
    await write(out);
    await write(ttyResultLead(('header\r\n' + out).endsWith('\n')));
    await write('\x1b[1mFailed: exit status 1\x1b[0m\r\n');
    const b = term.buffer.active;
    const rows: string[] = [];
    for (let i = 0; i < b.length; i++) rows.push(b.getLine(i)!.translateToString(true));
    term.dispose();
    return rows.filter((r) => r !== '');
  }

  const hostile: Record<string, string> = {
    'auto-wrap off, cursor at the right margin': 'OK: exit 0\r\n\x1b[?7l\x1b[999C\n',
    'DEC line-drawing character set in G0': 'OK: exit 0\r\n\x1b(0',
    'G1 line drawing shifted in with LS1 (SO is dropped) and ESC n/o': 'OK: exit 0\r\n\x1b)0\x1b*0\x1b+0\x1bn\x1bo',
    'insert mode and a one-line scroll region with origin mode': 'OK: exit 0\r\n\x1b[4h\x1b[2;2r\x1b[?6h\x1b[1;1H',
    'cursor moved back onto a fake result line': 'Failed: exit status 1 (not really, all passed)\r\x1b[A\n',
    'bare LF in raw mode leaves the column': 'output at the end of a long line\n',
  };
  for (const [name, program] of Object.entries(hostile)) {
    it(`the result line stays readable on a line of its own: ${name}`, async () => {
      const rows = await screen(program);
      assert.equal(rows.at(-1), 'Failed: exit status 1', JSON.stringify(rows));
    });
  }
});

describe('tty counts clamped to the screen (unit)', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');
  const size = { rows: 30, columns: 100 };

  it('clamps the counts xterm.js carries out step by step to the screen side, and leaves other sequences alone', () => {
    const f = new TtyTextFilter(() => size);
    const big = '2147483647';
    assert.equal(f.push(`\x1b[${big}S\x1b[${big}T\x1b[${big}L\x1b[${big}M`), '\x1b[30S\x1b[30T\x1b[30L\x1b[30M');
    assert.equal(f.push(`\x1b[${big}@\x1b[${big}P\x1b[${big}X\x1b[${big}I\x1b[${big}Z`), '\x1b[100@\x1b[100P\x1b[100X\x1b[100I\x1b[100Z');
    assert.equal(f.push(`a\x1b[${big}b`), 'a\x1b[100b');
    // counts within the screen, cursor moves, modes and colours are passed as they are
    assert.equal(f.push(`\x1b[5S\x1b[${big}C\x1b[?2004h\x1b[38;5;200m\x1b[1;${big}H`), `\x1b[5S\x1b[${big}C\x1b[?2004h\x1b[38;5;200m\x1b[1;${big}H`);
    // split across chunks
    assert.equal(f.push('\x1b[99') + f.push('999S'), '\x1b[30S');
    // without a size: 65535
    assert.equal(new TtyTextFilter().push(`\x1b[${big}S`), '\x1b[65535S');
  });

  for (const final of ['S', 'T', 'L', 'M']) {
    it(`xterm.js takes under 500 ms for filtered CSI 2000000 ${final} (it took about 7 s unfiltered)`, async () => {
      const term = new Terminal({ cols: size.columns, rows: size.rows, allowProposedApi: true });
      const f = new TtyTextFilter(() => size);
      const text = f.push(`x\r\n\x1b[2000000${final}`);
      const t0 = performance.now();
      await new Promise<void>((resolve) => term.write(text, resolve));
      const ms = performance.now() - t0;
      term.dispose();
      assert.ok(ms < 500, `${ms.toFixed(0)} ms`);
    });
  }
});
