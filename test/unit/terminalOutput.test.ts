import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { dataRow, ownLine, TerminalOutput } from '../../src/cli/terminalOutput';

/** A stream standing in for a terminal or a pipe, collecting the bytes written. */
function fakeStream(isTTY: boolean) {
  const chunks: Buffer[] = [];
  const s = new PassThrough() as PassThrough & { isTTY: boolean; bytes: () => Buffer; readonly text: string };
  s.isTTY = isTTY;
  s.on('data', (d: Buffer) => chunks.push(d));
  s.bytes = () => Buffer.concat(chunks);
  Object.defineProperty(s, 'text', { get: () => s.bytes().toString('utf8') });
  return s;
}

const b = (text: string) => Buffer.from(text, 'utf8');
/** bytes(range(256)): every byte value, most of them invalid as UTF-8. */
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe('CLI terminal output (unit)', () => {
  it('filters program output to a terminal, passes it raw to a pipe or with --raw', () => {
    const tty = fakeStream(true);
    const pipe = fakeStream(false);
    const t = new TerminalOutput(() => undefined, false, tty as never, pipe as never);
    t.program('stdout', b('\x1b]52;c;ZXZpbA==\x07ok\rhidden\n'));
    t.program('stderr', b('\x1b[31merr\x1b[0m\n'));
    t.end();
    assert.equal(tty.text, 'ok\nhidden\n');
    assert.equal(pipe.text, '\x1b[31merr\x1b[0m\n');
    const rawTty = fakeStream(true);
    new TerminalOutput(() => undefined, true, rawTty as never, fakeStream(false) as never).program('stdout', b('\x1b[1mb\n'));
    assert.equal(rawTty.text, '\x1b[1mb\n');
  });

  it('shows a runner notice on a terminal even after the program left a string sequence open on stderr', () => {
    for (const open of ['\x1b]8;;file:///etc/passwd', '\x1b]0;title', '\x1bP', '\x1b_', '\u009d']) {
      const out = fakeStream(true);
      const err = fakeStream(true);
      const t = new TerminalOutput(() => undefined, false, out as never, err as never);
      t.program('stderr', b(`boom${open}`));
      t.program('notice', '\n[sandbox-runner] stdout passed its limit of 1024 bytes; stopping the run.\n');
      t.program('stderr', b('\x07after\n'));
      t.end();
      assert.equal(err.text, 'boom\n[sandbox-runner] stdout passed its limit of 1024 bytes; stopping the run.\nafter\n', JSON.stringify(open));
    }
  });

  it('writes the program\'s bytes unchanged to a pipe or file (no decoding)', () => {
    const pipe = fakeStream(false);
    const err = fakeStream(false);
    const t = new TerminalOutput(() => undefined, false, pipe as never, err as never);
    for (let i = 0; i < 4; i++) t.program('stdout', ALL_BYTES);
    t.program('stderr', ALL_BYTES.subarray(0xc0, 0xc1)); // a lone UTF-8 lead byte
    t.end();
    assert.equal(pipe.bytes().length, 1024);
    assert.ok(pipe.bytes().equals(Buffer.concat([ALL_BYTES, ALL_BYTES, ALL_BYTES, ALL_BYTES])));
    assert.ok(err.bytes().equals(Buffer.from([0xc0])));
  });

  it('--raw writes the program\'s bytes unchanged to a terminal too', () => {
    const tty = fakeStream(true);
    const t = new TerminalOutput(() => undefined, true, tty as never, fakeStream(true) as never);
    t.program('stdout', ALL_BYTES);
    t.end();
    assert.ok(tty.bytes().equals(ALL_BYTES));
  });

  it('decodes for a terminal: a character split across chunks shows once, invalid bytes as U+FFFD', () => {
    const tty = fakeStream(true);
    const t = new TerminalOutput(() => undefined, false, tty as never, fakeStream(true) as never);
    const world = b('世界\n');
    t.program('stdout', world.subarray(0, 2));
    t.program('stdout', world.subarray(2, 4));
    t.program('stdout', world.subarray(4));
    t.program('stdout', Buffer.from([0x66, 0xff, 0x0a, 0xe4])); // ends inside a character
    t.end();
    assert.equal(tty.text, '世界\nf\uFFFD\n\uFFFD');
  });

  it('writes runner notices as text to stderr, filtered for a terminal', () => {
    const out = fakeStream(false);
    const err = fakeStream(true);
    const t = new TerminalOutput(() => undefined, false, out as never, err as never);
    t.program('notice', '\n[sandbox-runner] stdout passed its limit\n');
    assert.equal(out.text, '');
    assert.equal(err.text, '\n[sandbox-runner] stdout passed its limit\n');
  });

  it('reports a closed pipe once and stops writing', () => {
    const out = fakeStream(false);
    const err = fakeStream(false);
    let closed = 0;
    const t = new TerminalOutput(() => closed++, false, out as never, err as never);
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    out.emit('error', epipe);
    err.emit('error', epipe);
    t.program('stdout', b('more\n'));
    t.line('summary');
    assert.equal(closed, 1);
    assert.equal(t.closed, true);
    assert.equal(out.text + err.text, '');
  });

  it('a closed stdout (| head -1) still lets the summary reach stderr', () => {
    const out = fakeStream(false);
    const err = fakeStream(false);
    let closed = 0;
    const t = new TerminalOutput(() => closed++, false, out as never, err as never);
    out.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    t.program('stdout', b('more\n'));
    t.line('summary');
    assert.equal(closed, 1);
    assert.equal(out.text, '');
    assert.equal(err.text, 'sandbox-run: summary\n');
  });

  it('a closed terminal (EIO, the window went away) ends the run instead of crashing the CLI', () => {
    const out = fakeStream(true);
    const err = fakeStream(true);
    let closed = 0;
    const t = new TerminalOutput(() => closed++, false, out as never, err as never);
    const eio = Object.assign(new Error('write EIO'), { code: 'EIO' });
    assert.doesNotThrow(() => out.emit('error', eio));
    assert.doesNotThrow(() => err.emit('error', eio));
    t.program('stdout', b('tick\n'));
    assert.equal(closed, 1);
    assert.equal(t.closed, true);
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

  // Issue 25: "Result: 42sandbox-run: Exited with code 0 …".
  it('starts our own lines and notices on a line of their own when the program\'s last line had no line feed', () => {
    // One screen: both streams are a terminal.
    const out = fakeStream(true);
    const err = fakeStream(true);
    const t = new TerminalOutput(() => undefined, false, out as never, err as never);
    t.program('stdout', b('Result: 42'));
    t.end();
    t.line('Exited with code 0 in 5 ms.');
    assert.equal(out.text, 'Result: 42');
    assert.equal(err.text, '\nsandbox-run: Exited with code 0 in 5 ms.\n');
    // A line that ended: nothing added.
    const err2 = fakeStream(true);
    const t2 = new TerminalOutput(() => undefined, false, fakeStream(true) as never, err2 as never);
    t2.program('stdout', b('done\n'));
    t2.line('Exited with code 0 in 5 ms.');
    t2.program('notice', '[sandbox-runner] notice\n');
    assert.equal(err2.text, 'sandbox-run: Exited with code 0 in 5 ms.\n[sandbox-runner] notice\n');
    // Pipes: stdout's open line is not stderr's; stderr's own open line is, and its bytes stay as they were.
    const pOut = fakeStream(false);
    const pErr = fakeStream(false);
    const p = new TerminalOutput(() => undefined, false, pOut as never, pErr as never);
    p.program('stdout', b('no newline'));
    p.line('first');
    p.program('stderr', b('partial'));
    p.program('notice', '[sandbox-runner] a notice\n');
    p.program('stderr', b('again'));
    p.line('second');
    assert.equal(pOut.text, 'no newline');
    assert.equal(pErr.text, 'sandbox-run: first\npartial\n[sandbox-runner] a notice\nagain\nsandbox-run: second\n');
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
