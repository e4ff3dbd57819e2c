/**
 * Program arguments (issue 12) without an engine: the bounds, the frame's bytes, the direct
 * path's argv, and the real launcher script under dash and busybox sh appending each argument to
 * the program's argv byte for byte, never through the shell's parsing.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { buildCreateArgv } from '../../src/core/container/argv';
import { checkProgramArgs, MAX_PROGRAM_ARGS, MAX_PROGRAM_ARGS_BYTES } from '../../src/core/admission/programArgs';
import { encodeFrame, encodeTtyFrame, LAUNCHER, PREAMBLE } from '../../src/core/container/launcher';
import { isSandboxError } from '../../src/core/errors';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { HOSTILE_ARGS } from './hostileArgs';

describe('program arguments (unit)', function () {
  this.timeout(20_000);

  it('takes up to the bounds and refuses past them, NUL bytes and lone surrogates, naming the rule', () => {
    assert.deepEqual(checkProgramArgs(HOSTILE_ARGS), HOSTILE_ARGS);
    assert.equal(checkProgramArgs(Array(MAX_PROGRAM_ARGS).fill('x')).length, MAX_PROGRAM_ARGS);
    assert.equal(checkProgramArgs(['a'.repeat(MAX_PROGRAM_ARGS_BYTES)]).length, 1);
    const refusals: [unknown[], RegExp][] = [
      [Array(MAX_PROGRAM_ARGS + 1).fill('x'), /257 program arguments were given; a run takes at most 256/],
      [['a'.repeat(MAX_PROGRAM_ARGS_BYTES), 'b'], /65537 bytes \(UTF-8\); a run takes at most 65536/],
      [['ok', 'a\0b'], /program argument 2 contains a NUL byte/],
      [['\ud800'], /lone UTF-16 surrogate/],
      [[42], /not a string/],
    ];
    for (const [args, message] of refusals) {
      assert.throws(() => checkProgramArgs(args), (e: unknown) => isSandboxError(e) && e.code === 'invalid-arguments' && message.test(e.message));
    }
  });

  it('frames arguments as counted bytes after the code, and leaves the frame without them unchanged', () => {
    assert.deepEqual(encodeFrame('hi'), Buffer.from('2\nhi'));
    assert.deepEqual(encodeFrame('hi', ['a b', '', 'é']), Buffer.from('2 3\nhi3\na b0\n2\né' + 'end\n'));
    assert.deepEqual(encodeTtyFrame('hi', { rows: 2, columns: 3 }, ['x']), Buffer.from('2 2 3 1\nhi1\nxend\n'));
    assert.deepEqual(encodeTtyFrame('hi', { rows: 2, columns: 3 }), Buffer.from('2 2 3\nhi'));
  });

  it('the direct path appends them to the command in the docker create argv', () => {
    const argv = buildCreateArgv({
      name: 'sandbox-runner-r1', profile: ProfileSchema.parse({ image: 'img', command: ['${file}', '-x'] }), snippetHostDir: '/tmp/d', snippetFileName: 'main.py',
      mounts: [], labels: {}, args: ['$(id)', ''],
    });
    assert.deepEqual(argv.slice(-5), ['img', '/sandbox/main.py', '-x', '$(id)', '']);
  });

  describe('the launcher script appends them to the argv unchanged', () => {
    let dir = '';
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'sr-args-'));
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    /** Runs the launcher with `shell`; the program prints each argument after its first as hex, one per line, then `|` and its stdin. */
    async function launch(shell: string[], args: readonly string[], rest = '', frame?: Buffer) {
      const file = join(dir, `main-${Math.random().toString(16).slice(2)}`);
      const program = ['sh', '-c', 'shift; for a in "$@"; do printf "%s" "$a" | od -An -tx1 -v | tr -d " \\n"; echo; done; printf "|"; cat', 'program', 'first'];
      const input = Buffer.concat([frame ?? encodeFrame('code', args), Buffer.from(rest)]);
      const r = await execa(shell[0]!, [...shell.slice(1), '-c', LAUNCHER, file, ...program], { input, reject: false, encoding: 'buffer', stripFinalNewline: false });
      const [lines, stdin] = Buffer.from(r.stdout as Uint8Array).toString('latin1').split('|');
      const hex = lines!.split('\n').slice(0, -1);
      return { exitCode: r.exitCode, got: hex.map((h) => Buffer.from(h, 'hex').toString('utf8')), stdin, stderr: Buffer.from(r.stderr as Uint8Array).toString('latin1') };
    }

    for (const shell of [['dash'], ['busybox', 'sh']]) {
      it(`${shell.join(' ')}: hostile arguments arrive byte for byte, after the command's own, and the rest of stdin is the program's`, async () => {
        const r = await launch(shell, HOSTILE_ARGS, 'input\n');
        assert.equal(r.exitCode, 0, r.stderr);
        assert.deepEqual(r.got, HOSTILE_ARGS);
        assert.equal(r.stdin, 'input\n');
        assert.equal(r.stderr, PREAMBLE.waiting + PREAMBLE.ready);
      });

      it(`${shell.join(' ')}: a frame cut short inside the arguments, or without its end line, fails with 125 before the program runs`, async () => {
        const whole = encodeFrame('code', ['abc', 'def']);
        for (const frame of [whole.subarray(0, whole.length - 6), whole.subarray(0, whole.length - 4), Buffer.from('4 1\ncode3\nabcEND\n')]) {
          const r = await launch(shell, [], '', frame);
          assert.equal(r.exitCode, 125, frame.toString('latin1'));
          assert.equal(r.stderr, PREAMBLE.waiting);
        }
      });
    }
  });
});
