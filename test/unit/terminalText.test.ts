import assert from 'node:assert/strict';
import { TerminalTextFilter } from '../../src/core/output/terminalText';

function run(chunks: string[]): string {
  const f = new TerminalTextFilter();
  return chunks.map((c) => f.push(c)).join('') + f.end();
}

describe('terminal text filter (unit)', () => {
  it('removes colours, titles and OSC 52 clipboard writes, also when split across chunks', () => {
    assert.equal(run(['\x1b[31mred\x1b[0m\n']), 'red\n');
    assert.equal(run(['a\x1b]0;ti', 'tle\x07b\n']), 'ab\n');
    assert.equal(run(['x\x1b]52;c;ZXZpbA==', '\x1b\\y']), 'xy');
    assert.equal(run(['p\x1b', '[', '2J', 'q']), 'pq');
    assert.equal(run(['\x9b31mz']), 'z');
  });

  it('turns a lone CR into a line feed (no overwriting), keeps CRLF as one line break', () => {
    assert.equal(run(['secret\rvisible\n']), 'secret\nvisible\n');
    assert.equal(run(['one\r', '\ntwo\r\n']), 'one\ntwo\n');
  });

  it('drops other control characters but keeps tabs, line feeds and text', () => {
    assert.equal(run(['a\tb\x07\x08\x00c\u0085d\n', 'héllo 世界']), 'a\tbcd\nhéllo 世界');
  });

  it('gives up holding an unterminated sequence at the end of the stream', () => {
    assert.equal(run(['ok\x1b]0;never ends']), 'ok');
  });
});

describe('terminal text filter: Windows Terminal and other terminals\' string sequences (unit)', () => {
  const cases: Array<[string, string]> = [
    ['OSC 0 title (BEL)', 'a\x1b]0;pwned\x07b'],
    ['OSC 2 title (ST)', 'a\x1b]2;pwned\x1b\\b'],
    ['OSC 52 clipboard write', 'a\x1b]52;c;cm0gLXJmIH4=\x07b'],
    ['OSC 9;4 progress (Windows Terminal, ConEmu)', 'a\x1b]9;4;1;50\x07b'],
    ['OSC 9 notification (ConEmu mode)', 'a\x1b]9;Update ready, run setup.exe\x07b'],
    ['OSC 9;9 working directory (Windows Terminal)', 'a\x1b]9;9;C:\\Windows\x1b\\b'],
    ['OSC 777 notification', 'a\x1b]777;notify;title;body\x07b'],
    ['OSC 133/633 shell integration marks', 'a\x1b]133;A\x07\x1b]633;E;rm -rf ~\x07b'],
    ['DCS request status string (DECRQSS)', 'a\x1bP$qm\x1b\\b'],
    ['DCS sixel image', 'a\x1bPq#0;2;0;0;0#0~~@@vv\x1b\\b'],
    ['APC (kitty graphics)', 'a\x1b_Gf=100,a=T;AAAA\x1b\\b'],
    ['PM and SOS', 'a\x1b^private\x1b\\\x1bXstring\x1b\\b'],
    ['C1 OSC and DCS with C1 ST', 'a\x9d0;pwned\x9c\x90$qm\x9cb'],
    ['win32-input-mode and window ops (CSI)', 'a\x1b[?9001h\x1b[21t\x1b[2 qb'],
  ];
  for (const [name, text] of cases) {
    it(`removes ${name} with its payload`, () => {
      assert.equal(run([text]), 'ab');
    });
  }

  it('holds a string sequence split anywhere, also right before the "\\" of its ESC \\ terminator', () => {
    assert.equal(run(['a\x1bP$q', 'm\x1b', '\\b']), 'ab');
    assert.equal(run(['a\x1b]9;4;1;', '50\x1b', '\\b']), 'ab');
    assert.equal(run(['a\x1b]8;;https://x.example/\x1b\\li', 'nk\x1b]8;;\x1b', '\\b']), 'alinkb');
    assert.equal(run(['a\x9d0;ti', 'tle\x9c', 'b']), 'ab');
  });
});
