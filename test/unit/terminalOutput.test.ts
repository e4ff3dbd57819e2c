import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { dataRow, ownLine, TerminalOutput } from '../../src/cli/terminalOutput';

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

  // Issue 8: the summary and "engine said" lines quoted the snippet's stderr tail raw.
  it("filters our own lines to a terminal (summary, engine said), also with --raw", () => {
    const hostile =
      'exec python3 failed: \x1b]0;pwned title\x07\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b[3J\x1bcgone\rfake\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\';
    for (const raw of [false, true]) {
      const err = fakeStream(true);
      const t = new TerminalOutput(() => undefined, raw, fakeStream(true) as never, err as never);
      t.line(`Could not start: ${hostile} [profile python, image img, network off]`);
      t.line(`engine said: ${hostile}\x1b]52;c;`);
      assert.doesNotMatch(err.text, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/, `raw=${raw}: a control character reached the terminal: ${JSON.stringify(err.text)}`);
      assert.equal(
        err.text,
        'sandbox-run: Could not start: exec python3 failed: gone\n             fakelink [profile python, image img, network off]\n' +
          'sandbox-run: engine said: exec python3 failed: gone\n             fakelink\n',
      );
    }
  });

  it('writes our own lines to a pipe as they are', () => {
    const err = fakeStream(false);
    new TerminalOutput(() => undefined, false, fakeStream(false) as never, err as never).line('engine said: \x1b[31mred\x1b[0m');
    assert.equal(err.text, 'sandbox-run: engine said: \x1b[31mred\x1b[0m\n');
  });

  it('filters usage and profile errors that echo file names and settings keys, and data rows, for a terminal', () => {
    const tty = { isTTY: true };
    // A file name and a settings key can hold any character but / and NUL (JSON keys: any).
    assert.equal(ownLine('cannot read \x1b]52;c;Zm9v\x07a\x1b[2J.py: ENOENT.', tty), 'sandbox-run: cannot read a.py: ENOENT.\n');
    assert.equal(ownLine('sandboxRunner.profiles.x\x1b]0;t\x07\ny: is invalid', tty), 'sandbox-run: sandboxRunner.profiles.x\n             y: is invalid\n');
    assert.equal(dataRow('kept\tsandbox-runner-1\x1b[2J\tlabel\n\x9b31m', tty), 'kept\tsandbox-runner-1\tlabel \n');
    assert.equal(dataRow('a\x1b[2Jb', { isTTY: false }), 'a\x1b[2Jb\n');
    assert.equal(ownLine('a\x07b', { isTTY: undefined as unknown as boolean }), 'sandbox-run: a\x07b\n');
  });
});
