import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { TerminalOutput } from '../../src/cli/terminalOutput';

/** A stream standing in for a terminal or a pipe, collecting what is written. */
function fakeStream(isTTY: boolean) {
  const s = new PassThrough() as PassThrough & { isTTY: boolean; text: string };
  s.isTTY = isTTY;
  s.text = '';
  s.on('data', (d: Buffer) => (s.text += d.toString()));
  return s;
}

describe('CLI terminal output (unit)', () => {
  it('filters program output to a terminal, passes it raw to a pipe or with --raw', () => {
    const tty = fakeStream(true);
    const pipe = fakeStream(false);
    const t = new TerminalOutput(() => undefined, false, tty as never, pipe as never);
    t.program('stdout', '\x1b]52;c;ZXZpbA==\x07ok\rhidden\n');
    t.program('stderr', '\x1b[31merr\x1b[0m\n');
    t.end();
    assert.equal(tty.text, 'ok\nhidden\n');
    assert.equal(pipe.text, '\x1b[31merr\x1b[0m\n');
    const rawTty = fakeStream(true);
    new TerminalOutput(() => undefined, true, rawTty as never, fakeStream(false) as never).program('stdout', '\x1b[1mb\n');
    assert.equal(rawTty.text, '\x1b[1mb\n');
  });

  it('reports a closed pipe once and stops writing', () => {
    const out = fakeStream(false);
    const err = fakeStream(false);
    let closed = 0;
    const t = new TerminalOutput(() => closed++, false, out as never, err as never);
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    out.emit('error', epipe);
    err.emit('error', epipe);
    t.program('stdout', 'more\n');
    t.line('summary');
    assert.equal(closed, 1);
    assert.equal(t.closed, true);
    assert.equal(out.text + err.text, '');
  });
});
