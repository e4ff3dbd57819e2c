import assert from 'node:assert/strict';
import { execa } from 'execa';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeFrame, LAUNCHER, PREAMBLE, PreambleReader } from '../../src/core/container/launcher';

/** Feeds `chunks` to a reader; returns what passed through as program stderr, and the verdict. */
function feed(chunks: string[]): { program: string; verdict: string; held: string } {
  const r = new PreambleReader();
  let program = '';
  for (const c of chunks) program += r.push(Buffer.from(c, 'latin1')).toString('latin1');
  r.end();
  return { program, verdict: r.verdict, held: r.heldText() };
}

const W = PREAMBLE.waiting;

describe('launcher preamble (unit)', () => {
  it('strips the waiting and ready markers, also split across chunks, and passes the rest unchanged', () => {
    const whole = W + PREAMBLE.ready + 'err 1\n';
    for (let cut = 0; cut <= whole.length; cut++) {
      assert.deepEqual(feed([whole.slice(0, cut), whole.slice(cut), 'more\n']), { program: 'err 1\nmore\n', verdict: 'ready', held: '' });
    }
  });

  it('recognises no-command, and keeps what follows out of program output', () => {
    const r = feed([W, PREAMBLE.noCommand, 'x']);
    assert.equal(r.verdict, 'no-command');
    assert.equal(r.program, '');
  });

  it('the CLI\'s own words before the markers are skipped and never program output', () => {
    const warning = 'WARNING: Error loading config file: /x/config.json: invalid character\n';
    for (const chunks of [[warning + W + PREAMBLE.ready + 'err\n'], [warning, W, PREAMBLE.ready.slice(0, 7), PREAMBLE.ready.slice(7) + 'err\n']]) {
      assert.deepEqual(feed(chunks), { program: 'err\n', verdict: 'ready', held: warning });
    }
  });

  it('no waiting marker means the launcher never ran: held back, never program output', () => {
    const tini = '[FATAL tini (7)] exec sh failed: No such file or directory\n';
    const r = new PreambleReader();
    r.push(Buffer.from(tini));
    r.end();
    assert.deepEqual([r.verdict, r.waited, r.heldText()], ['absent', false, tini]);
    assert.equal(feed([]).verdict, 'absent');
    assert.equal(feed([W.slice(0, 5)]).verdict, 'absent', 'a marker cut short counts as absent');
  });

  it('a ready marker before the waiting marker does not count (order is part of the protocol)', () => {
    const r = new PreambleReader();
    r.push(Buffer.from(PREAMBLE.ready, 'latin1'));
    assert.equal(r.verdict, 'pending');
    r.push(Buffer.from(W, 'latin1'));
    assert.equal(r.verdict, 'waiting');
  });

  it('text that imitates the markers after ready is program output', () => {
    const r = feed([W, PREAMBLE.ready, PREAMBLE.noCommand + W]);
    assert.equal(r.verdict, 'ready');
    assert.equal(r.program, PREAMBLE.noCommand + W);
  });
});

describe('launcher frame protocol, real script under sh (unit)', function () {
  // Real shells and dd: under a loaded machine a 1 MiB frame can take longer than mocha's 2 s.
  this.timeout(20_000);
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sr-launcher-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs the launcher with `shell` (argv), the frame of `code` plus `rest` on stdin, and a program that prints the file and then its stdin. */
  async function launch(shell: string[], code: string | Uint8Array, rest: string | Buffer = '') {
    const file = join(dir, `main-${Math.random().toString(16).slice(2)}`);
    const program = ['sh', '-c', 'od -An -tx1 -v "$0" | tr -d " \\n"; printf "|"; cat; printf "|%s" "$(stat -c %a "$0")"', file];
    const input = Buffer.concat([encodeFrame(code), Buffer.from(rest)]);
    const r = await execa(shell[0]!, [...shell.slice(1), '-c', LAUNCHER, file, ...program], { input, reject: false, encoding: 'buffer', stripFinalNewline: false });
    const [hex, stdin, mode] = Buffer.from(r.stdout as Uint8Array).toString('latin1').split('|');
    return { exitCode: r.exitCode, hex, stdin, mode, stderr: Buffer.from(r.stderr as Uint8Array).toString('latin1') };
  }

  const shells = [['dash'], ['busybox', 'sh']];
  for (const shell of shells) {
    it(`${shell.join(' ')}: N=0 writes an empty file and the program gets the rest of stdin`, async () => {
      const r = await launch(shell, '', 'after');
      assert.deepEqual([r.exitCode, r.hex, r.stdin, r.mode], [0, '', 'after', '755']);
      assert.equal(r.stderr, W + PREAMBLE.ready);
    });

    it(`${shell.join(' ')}: binary bytes without a trailing newline arrive exactly; the rest of stdin is the program's`, async () => {
      const code = Buffer.from([0x00, 0x0a, 0xff, 0x0d, 0x0a, 0x41, 0x1e, 0x0a, 0x42]);
      const r = await launch(shell, code, Buffer.from('line1\nline2'));
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(r.hex, code.toString('hex'));
      assert.equal(r.stdin, 'line1\nline2', 'the launcher must not read past the frame (busybox head -c would)');
    });

    it(`${shell.join(' ')}: a large frame (1 MiB) arrives whole`, async () => {
      const code = Buffer.alloc(1024 * 1024, 0x61);
      const r = await launch(shell, code, 'z');
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(r.hex!.length, code.length * 2);
      assert.equal(r.stdin, 'z');
    });

    it(`${shell.join(' ')}: a short frame or a bad header fails with 125 before any program runs`, async () => {
      const file = join(dir, 'short');
      for (const input of [Buffer.from('9\nabc'), Buffer.from('x1\na'), Buffer.from('')]) {
        const r = await execa(shell[0]!, [...shell.slice(1), '-c', LAUNCHER, file, 'sh', '-c', 'echo RAN'], { input, reject: false });
        assert.equal(r.exitCode, 125, String(input));
        assert.equal(r.stdout, '');
        assert.equal(r.stderr, W.trimEnd());
      }
    });
  }

  it('a missing command says no-command (exit 127), after the file was written', async () => {
    const r = await execa('dash', ['-c', LAUNCHER, join(dir, 'nc'), 'no-such-command-xyz'], { input: encodeFrame('x'), reject: false });
    assert.equal(r.exitCode, 127);
    assert.equal(r.stderr, (W + PREAMBLE.noCommand).trimEnd());
  });

  it('encodes the frame as decimal byte count, newline, bytes (UTF-8 for text)', () => {
    assert.deepEqual(encodeFrame('é'), Buffer.from([0x32, 0x0a, 0xc3, 0xa9]));
    assert.deepEqual(encodeFrame(new Uint8Array(0)), Buffer.from('0\n'));
  });
});
