import assert from 'node:assert/strict';
import { TerminalTextFilter } from '../../src/core';

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
