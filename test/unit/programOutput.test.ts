import assert from 'node:assert/strict';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { warmKey } from '../../src/core/run/warm';
import type { RunResult } from '../../src/core/run/result';
import { OutputWriter } from '../../src/vscode/outputWriter';
import { channelRunProfile, footer, MAX_LINE_CHARS, ProgramOutput, STDERR_PREFIX } from '../../src/vscode/programOutput';
import { profileOf } from '../support/profiles';

/** A stand-in for the output channel that records appends (structural: only `append` and `show` are used). */
function fakeChannel() {
  const appends: string[] = [];
  return { appends, channel: { append: (t: string) => appends.push(t), show: () => undefined } as never };
}

const b = (text: string) => Buffer.from(text, 'utf8');
const profile = profileOf();
const result = (r: Partial<RunResult>): RunResult => ({
  outcome: 'exited', exitCode: 0, signal: null, durationMs: 12.3, message: 'm', containerName: 'c',
  stdout: { bytesKept: 0, truncated: false }, stderr: { bytesKept: 0, truncated: false }, ...r,
});

describe('program output framing (unit)', () => {
  it('frames a run with header and footer, marks stderr lines, strips ANSI', () => {
    const { channel } = fakeChannel();
    const out = new ProgramOutput(channel);
    const frame = out.begin('a.py', 'python', 'workspace', profile);
    frame.sink('stdout', b('\x1b[31mred\x1b[0m line\npart'));
    frame.sink('stderr', b('oops\nsecond'));
    frame.sink('stdout', b('ial\n'));
    frame.end(result({ exitCode: 3 }));
    const text = out.text();
    assert.match(text, /▶ a\.py\n  profile python \(workspace\) · image img · network off\n  limits 512 MiB memory, 1 CPU, 128 processes, 30 s, 1048576 bytes per stream\n/);
    assert.ok(text.includes(`red line\npart\n${STDERR_PREFIX}oops\n${STDERR_PREFIX}second\nial\n`), text);
    assert.match(text, /■ exited with code 3 · 12 ms\n$/);
    assert.doesNotMatch(text, /\x1b/);
  });

  it('holds an escape sequence split across chunks until it completes', () => {
    const { channel } = fakeChannel();
    const out = new ProgramOutput(channel);
    const frame = out.begin('x', 'p', 'user', profile);
    frame.sink('stdout', b('a\x1b[3'));
    frame.sink('stdout', b('2mb\n'));
    frame.end(result({}));
    assert.ok(out.text().includes('\nab\n'), JSON.stringify(out.text()));
  });

  it('decodes the program\'s bytes: split characters once, invalid and cut ones as U+FFFD', () => {
    const { channel } = fakeChannel();
    const out = new ProgramOutput(channel);
    const frame = out.begin('x', 'p', 'user', profile);
    const text = b('grüße 世界\n');
    for (const byte of text) frame.sink('stdout', Uint8Array.of(byte));
    frame.sink('stderr', Uint8Array.of(0x62, 0xff, 0x0a));
    frame.sink('stdout', Uint8Array.of(0x61, 0xe4)); // the output bound cut a character
    frame.end(result({}));
    assert.ok(out.text().includes(`grüße 世界\n${STDERR_PREFIX}b\uFFFD\na\uFFFD\n■`), JSON.stringify(out.text()));
  });

  it('cuts very long lines with a marker, counting what was cut', () => {
    const { channel } = fakeChannel();
    const out = new ProgramOutput(channel);
    const frame = out.begin('x', 'p', 'user', profile);
    frame.sink('stdout', b('y'.repeat(MAX_LINE_CHARS + 10)));
    frame.sink('stdout', b('z'.repeat(5) + '\nnext\n'));
    frame.end(result({}));
    const text = out.text();
    assert.ok(text.includes('y'.repeat(MAX_LINE_CHARS) + ' … [15 more characters cut]\nnext\n'));
  });

  it('names every outcome in the footer', () => {
    assert.equal(footer(result({ exitCode: 137, signal: 'SIGKILL' })), 'exited with code 137 (SIGKILL) · 12 ms');
    assert.match(footer(result({ outcome: 'timed-out', exitCode: null })), /^timed out/);
    assert.match(footer(result({ outcome: 'cancelled', exitCode: null })), /^cancelled/);
    assert.match(footer(result({ outcome: 'output-limit', exitCode: null })), /^output limit exceeded/);
    assert.match(footer(result({ outcome: 'oom-killed', exitCode: 137 })), /^killed: out of memory/);
    assert.match(footer(result({ outcome: 'failed-to-start', exitCode: null })), /^failed/);
  });
});

describe('output batching (unit)', () => {
  it('coalesces many small writes into few appends, and flushes on demand', async () => {
    const appends: string[] = [];
    const w = new OutputWriter({ append: (t) => appends.push(t) }, 20, 1000);
    for (let i = 0; i < 500; i++) w.write('x');
    assert.equal(appends.length, 0);
    await new Promise((r) => setTimeout(r, 40));
    assert.deepEqual(appends, ['x'.repeat(500)]);
    w.write('y'.repeat(1500));
    assert.equal(appends.length, 2, 'a large pending batch flushes at once');
    w.write('z');
    w.flush();
    assert.equal(appends.join(''), 'x'.repeat(500) + 'y'.repeat(1500) + 'z');
  });
});

describe('output-channel run environment (unit)', () => {
  it('adds NO_COLOR=1 and TERM=dumb to the profile\'s env, keeping its other variables', () => {
    const p = profileOf({ env: { PYTHONUNBUFFERED: '1' } });
    const run = channelRunProfile(p);
    assert.deepEqual(run.env, { NO_COLOR: '1', TERM: 'dumb', PYTHONUNBUFFERED: '1' });
    assert.deepEqual(p.env, { PYTHONUNBUFFERED: '1' }, 'the settings\' profile changed');
    assert.deepEqual({ ...run, env: p.env }, p, 'something other than env changed');
    assert.deepEqual(ProfileSchema.parse(run), run, 'the run profile is not a valid profile');
  });

  it('a variable the profile sets keeps the profile\'s value', () => {
    const p = profileOf({ env: { TERM: 'xterm-256color', NO_COLOR: '' } });
    assert.deepEqual(channelRunProfile(p).env, { NO_COLOR: '', TERM: 'xterm-256color' });
  });

  it('gives the warm pool the same key for the preparation and the run, and a different one than the bare profile', () => {
    const p = profileOf();
    assert.equal(warmKey({ name: 'python', profile: channelRunProfile(p) }), warmKey({ name: 'python', profile: channelRunProfile(profileOf()) }));
    assert.notEqual(warmKey({ name: 'python', profile: channelRunProfile(p) }), warmKey({ name: 'python', profile: p }));
  });
});

describe('program output: our own lines (unit)', () => {
  it('filters the footer, notices and refusal lines, which quote program, engine and settings text', () => {
    const { channel } = fakeChannel();
    const out = new ProgramOutput(channel);
    out.line('[sandbox-runner] sandboxRunner.profiles.a\x1b]0;t\x07b: is invalid');
    const frame = out.begin('a\x1b[2J.py', 'python', 'workspace', profile);
    frame.sink('notice', 'warm start \x1b]52;c;Zm9v\x07off\n');
    frame.end(result({
      outcome: 'failed-to-start', exitCode: null, message: 'Could not start: \x1b]52;c;ZWNobw==\x07x\x1b[2J',
      error: { code: 'start-failed', message: 'm', fix: 'Fix it.', detail: '' },
    }));
    const text = out.text();
    assert.doesNotMatch(text, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/, JSON.stringify(text));
    assert.ok(text.includes('sandboxRunner.profiles.ab: is invalid\n'), text);
    assert.ok(text.includes('▶ a.py\n'), text);
    assert.ok(text.includes('warm start off\n'), text);
    assert.match(text, /■ failed · Could not start: x Fix it\.\n$/);
  });
});
