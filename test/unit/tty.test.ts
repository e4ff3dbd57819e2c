/** Interactive runs with a terminal (issue 11): the pure parts (argv, detach keys, the TTY launcher and its markers). */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { buildRunArgv, buildTtyCreateArgv, type ContainerSpec } from '../../src/core/container/argv';
import { buildTtyStartArgv, DETACH_KEYS_LENGTH, detachKeys } from '../../src/core/container/ttyStart';
import { encodeTtyFrame, PreambleReader, TTY_LAUNCHER, TTY_PREAMBLE, ttySide } from '../../src/core/container/launcher';
import { isSandboxError } from '../../src/core/errors';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';

function spec(extra: Partial<ContainerSpec> = {}): ContainerSpec {
  return {
    name: 'sandbox-runner-r1',
    profile: ProfileSchema.parse({ image: 'python:3', command: ['python3', '${file}'], extensions: ['.py'] }),
    snippetFileName: 'main.py',
    mounts: [],
    labels: { 'sandbox-runner': '1' },
    ...extra,
  };
}

describe('terminal runs: argv (unit)', () => {
  it('the create argv is the cold run argv with `create --interactive --tty` and the TTY launcher, nothing else changed', () => {
    const run = [...buildRunArgv(spec())];
    const tty = [...buildTtyCreateArgv(spec())];
    assert.deepEqual(tty.slice(0, 3), ['create', '--interactive', '--tty']);
    assert.deepEqual(run.slice(0, 3), ['run', '--interactive', '--sig-proxy=false']);
    const launcherAt = (a: string[]) => a.indexOf('-c') + 1;
    assert.equal(tty[launcherAt(tty)], TTY_LAUNCHER);
    // Same floor, content flags, entrypoint, image and program argv: only the head and the launcher differ.
    const strip = (a: string[]) => a.slice(3).map((x, i) => (i + 3 === launcherAt(a) ? 'LAUNCHER' : x));
    assert.deepEqual(strip(tty), strip(run));
  });

  it('the Podman create argv keeps its floor (catatonit -g as the entrypoint, seccomp profile)', () => {
    const tty = buildTtyCreateArgv(spec({ engine: 'podman', seccompProfile: '/x/seccomp.json', initPath: '/usr/bin/catatonit' }));
    assert.ok(tty.includes('seccomp=/x/seccomp.json'));
    const at = tty.indexOf('--entrypoint');
    assert.deepEqual(tty.slice(at, at + 7), ['--entrypoint', '/run/sandbox-runner-init', '--', 'python:3', '-g', '--', 'sh']);
  });

  it('the start argv attaches stdin with the run\'s detach keys, and refuses malformed names or keys', () => {
    const keys = detachKeys(new Uint8Array(DETACH_KEYS_LENGTH), 0x0a);
    assert.deepEqual(buildTtyStartArgv('sandbox-runner-r1', keys), ['start', '--attach', '--interactive', '--detach-keys', keys, 'sandbox-runner-r1']);
    for (const [name, k] of [['-x', keys], ['sandbox-runner-r1', 'ctrl-p,ctrl-q;rm'], ['sandbox-runner-r1', '']]) {
      assert.throws(() => buildTtyStartArgv(name!, k!), (e: unknown) => isSandboxError(e) && e.code === 'invalid-profile');
    }
  });
});

describe('terminal runs: detach keys (unit)', () => {
  it('start with Ctrl-^ and never contain the frame\'s last byte, whatever the random bytes', () => {
    const code = (k: string) => (k === 'ctrl-^' ? 0x1e : k === 'ctrl-]' ? 0x1d : k.charCodeAt(5) - 0x60);
    for (let last = 0; last < 256; last++) {
      for (const fill of [0, 9, 13, 255]) {
        const keys = detachKeys(new Uint8Array(DETACH_KEYS_LENGTH).fill(fill), last).split(',');
        assert.equal(keys.length, DETACH_KEYS_LENGTH);
        assert.equal(keys[0], last === 0x1e ? 'ctrl-]' : 'ctrl-^');
        assert.ok(keys.every((k) => /^ctrl-([a-z]|\^|\])$/.test(k) && code(k) !== last), `${last}: ${keys.join(',')}`);
      }
    }
  });

  it('differ between runs (random)', () => {
    const a = detachKeys(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), 0x0a);
    const b = detachKeys(new Uint8Array([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]), 0x0a);
    assert.notEqual(a, b);
    assert.throws(() => detachKeys(new Uint8Array(3), 0x0a), RangeError);
  });
});

describe('terminal runs: frame and launcher (unit)', () => {
  it('the frame carries the byte count, rows and columns, then the bytes unchanged; sides are clamped', () => {
    const body = Buffer.from([0x03, 0x04, 0x0d, 0x0a, 0xff]);
    assert.deepEqual(encodeTtyFrame(body, { rows: 30, columns: 100 }), Buffer.concat([Buffer.from('5 30 100\n'), body]));
    assert.deepEqual(encodeTtyFrame('', { rows: 0, columns: 1e9 }), Buffer.from('0 1 65535\n'));
    assert.deepEqual([ttySide(NaN), ttySide(24.9), ttySide(-3)], [1, 24, 1]);
  });

  it('the TTY launcher is constant and makes the terminal raw, without echo, before it says it waits', () => {
    assert.doesNotMatch(TTY_LAUNCHER, /python|main/);
    const raw = TTY_LAUNCHER.indexOf('stty raw -echo');
    assert.ok(raw > TTY_LAUNCHER.indexOf('s=$(stty -g)') && raw < TTY_LAUNCHER.indexOf('sandbox-runner:waiting'));
    assert.ok(TTY_LAUNCHER.indexOf('stty "$s"') < TTY_LAUNCHER.indexOf('sandbox-runner:ready'), 'the terminal is restored before ready');
  });

  it('run by a real sh without stty, it says no-stty and stops before reading anything', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sr-tty-unit-'));
    try {
      const r = await execa('/bin/sh', ['-c', TTY_LAUNCHER, join(dir, 'main.sh'), 'true'], { env: { PATH: dir }, extendEnv: false, input: '3 24 80\nabc', reject: false });
      assert.equal(r.exitCode, 125);
      assert.equal(r.stdout, TTY_PREAMBLE.noStty);
      await assert.rejects(readFile(join(dir, 'main.sh')), 'no file was written');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the preamble reader finds the RS-closed markers on the terminal stream, also split, and no-stty', () => {
    const whole = TTY_PREAMBLE.waiting + TTY_PREAMBLE.ready + 'out\r\n';
    for (let cut = 0; cut <= whole.length; cut++) {
      const r = new PreambleReader(TTY_PREAMBLE);
      const out = Buffer.concat([r.push(Buffer.from(whole.slice(0, cut), 'latin1')), r.push(Buffer.from(whole.slice(cut), 'latin1'))]);
      assert.equal(out.toString('latin1'), 'out\r\n');
      assert.equal(r.verdict, 'ready');
    }
    const r = new PreambleReader(TTY_PREAMBLE);
    r.note(Buffer.from('Error: cannot start\n'));
    r.push(Buffer.from(TTY_PREAMBLE.noStty, 'latin1'));
    assert.equal(r.verdict, 'no-stty');
    assert.equal(r.waited, false);
    assert.match(r.heldText(), /^Error: cannot start\n/);
    const pipe = new PreambleReader();
    pipe.push(Buffer.from(TTY_PREAMBLE.noStty, 'latin1'));
    assert.equal(pipe.verdict, 'pending', 'the pipe launcher has no no-stty marker');
  });
});
