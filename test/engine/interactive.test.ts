/**
 * Interactive runs (issue 11) on a real engine: live input over a pipe (cold and warm paths) and
 * with a real terminal (`docker create -t -i` + `docker start -a -i`, cold only). The engine is
 * chosen through the environment (helpers.ts `ENGINE`): the local Docker, the second engine
 * (`DOCKER_HOST`) or Podman (`SANDBOX_RUNNER_TEST_DOCKER_PATH=podman`).
 */
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Profile } from '../../src/core/profiles/profileSchema';
import type { RunResult } from '../../src/core/run/result';
import type { TtySize } from '../../src/core/interactive';
import { containerExists, engineCli, IMAGES, noLeftoversAfterEach, pythonProfile, requireEngine, run, runCli, shellProfile, waitFor } from './helpers';
import { makeWorkspace } from '../support/workspace';

/** One interactive run, driven from the test: what it printed so far, typing, ending input, resizing. */
class Session {
  readonly input = new PassThrough();
  /** Every program byte so far (stdout and stderr, in arrival order), as latin1 text. */
  text = '';
  stderr = '';
  private listeners: ((size: TtySize) => void)[] = [];
  readonly done: Promise<RunResult>;

  constructor(profile: Profile, code: string | Uint8Array, tty?: TtySize, signal?: AbortSignal) {
    const interactive = {
      input: this.input,
      ...(tty ? { tty, onResize: (l: (size: TtySize) => void) => (this.listeners.push(l), () => (this.listeners = this.listeners.filter((x) => x !== l))) } : {}),
    };
    this.done = run(profile, code as string, {
      interactive,
      ...(signal ? { signal } : {}),
      onOutput: (stream, data) => {
        if (stream === 'notice') return;
        const t = Buffer.from(data).toString('latin1');
        this.text += t;
        if (stream === 'stderr') this.stderr += t;
      },
    }).then((c) => c.result);
  }

  /** Resolves once the output contains `text` (fails after 20 s, naming what it saw). */
  async sees(text: string): Promise<void> {
    await waitFor(() => this.text.includes(text), 20_000, `${JSON.stringify(text)} in ${JSON.stringify(this.text)}`);
  }

  type(text: string | Uint8Array): void {
    this.input.write(text);
  }

  end(): void {
    this.input.end();
  }

  resize(size: TtySize): void {
    for (const l of this.listeners) l(size);
  }
}

/** The output with the terminal's CR LF as LF (a cooked terminal's onlcr). */
function lf(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

const TTY: TtySize = { columns: 100, rows: 30 };

describe('interactive runs (engine)', function () {
  this.timeout(60_000);
  before(requireEngine);
  noLeftoversAfterEach();

  it('pipe: input() reads two lines typed after its prompts, stdin is no terminal, and the end of input is EOF (engine)', async () => {
    const s = new Session(pythonProfile(), [
      'import sys',
      'print("tty", sys.stdin.isatty(), flush=True)',
      'a = input("first? ")',
      'b = input("second? ")',
      'print(f"got {a}+{b}")',
      'try:',
      '    input("third? ")',
      'except EOFError:',
      '    print("EOF")',
      '',
    ].join('\n'));
    await s.sees('first? ');
    s.type('Ada\n');
    await s.sees('second? ');
    s.type('Bob\n');
    await s.sees('third? ');
    s.end();
    const r = await s.done;
    assert.equal(r.outcome, 'exited', r.message);
    assert.equal(r.exitCode, 0);
    assert.equal(s.text, 'tty False\nfirst? second? got Ada+Bob\nthird? EOF\n');
    assert.equal(await containerExists(r.containerName), false);
  });

  it('pipe: the program waits for input that has not come yet, and binary input arrives unchanged (engine)', async () => {
    const s = new Session(shellProfile(), 'echo waiting; od -An -tx1 | tr -d " \\n"; echo\n');
    await s.sees('waiting\n');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(s.text, 'waiting\n', 'the program is still reading');
    s.type(Buffer.from([0x00, 0x03, 0x04, 0x0d, 0x0a, 0xff]));
    s.end();
    const r = await s.done;
    assert.equal(r.outcome, 'exited', r.message);
    assert.equal(s.text, 'waiting\n0003040d0aff\n');
  });

  it('tty: isatty is true with the size asked for, and input() reads two lines typed into the terminal (engine)', async () => {
    const s = new Session(pythonProfile(), [
      'import os, sys',
      'print("tty", sys.stdin.isatty(), sys.stdout.isatty(), os.get_terminal_size().columns, os.get_terminal_size().lines, flush=True)',
      'a = input("first? ")',
      'b = input("second? ")',
      'print(f"got {a}+{b}")',
      '',
    ].join('\n'), TTY);
    await s.sees('first? ');
    s.type('Ada\r');
    await s.sees('second? ');
    s.type('Bob\r');
    const r = await s.done;
    assert.equal(r.outcome, 'exited', r.message);
    assert.equal(r.exitCode, 0);
    // The terminal echoes what is typed; output processing turns "\n" into "\r\n".
    assert.equal(lf(s.text), 'tty True True 100 30\nfirst? Ada\nsecond? Bob\ngot Ada+Bob\n');
    assert.equal(r.stderr.bytesKept, 0, 'a terminal merges stderr into the one stream');
  });

  // getpass in python, and the same mechanism in sh (echo off on the terminal, read a line, echo
  // on) for busybox: the secret is read and never echoed.
  for (const [title, profile, code] of [
    ['tty: getpass reads a secret that is never echoed (engine)', pythonProfile, 'import getpass\ns = getpass.getpass("Secret: ")\nprint("length", len(s), s == "hunter2")\n'],
    ['tty: a shell prompt with stty -echo reads a secret that is never echoed (engine)', shellProfile, 'stty -echo; printf "Secret: "; IFS= read -r s; stty echo; echo; [ "$s" = hunter2 ] && echo "length ${#s} True"\n'],
  ] as const) {
    it(title, async () => {
      const s = new Session(profile(), code, TTY);
      await s.sees('Secret: ');
      s.type('hunter2\r');
      const r = await s.done;
      assert.equal(r.outcome, 'exited', r.message);
      assert.equal(lf(s.text), 'Secret: \nlength 7 True\n');
      assert.ok(!s.text.includes('hunter2'));
    });
  }

  it('tty: a resize reaches the program (SIGWINCH and the new size) (engine)', async () => {
    const s = new Session(pythonProfile(), [
      'import os, signal, sys',
      'def winch(*_):',
      '    size = os.get_terminal_size()',
      '    print("resized", size.columns, size.lines, flush=True)',
      '    sys.exit(0)',
      'signal.signal(signal.SIGWINCH, winch)',
      'print("size", os.get_terminal_size().columns, os.get_terminal_size().lines, flush=True)',
      'while True:',
      '    signal.pause()',
      '',
    ].join('\n'), TTY);
    await s.sees('size 100 30');
    s.resize({ columns: 132, rows: 43 });
    const r = await s.done;
    assert.equal(r.outcome, 'exited', r.message);
    assert.equal(lf(s.text), 'size 100 30\nresized 132 43\n');
  });

  it('tty: a typed Ctrl-C (0x03) interrupts the program: KeyboardInterrupt (engine)', async () => {
    const s = new Session(pythonProfile(), 'import time\nprint("sleeping", flush=True)\ntime.sleep(30)\n', TTY);
    await s.sees('sleeping');
    s.type('\x03');
    const r = await s.done;
    assert.equal(r.outcome, 'exited', r.message);
    assert.equal(r.exitCode, 130, 'Python ends with SIGINT after an uncaught KeyboardInterrupt');
    assert.match(s.text, /\^C[\s\S]*Traceback[\s\S]*KeyboardInterrupt\r\n$/);
  });

  it('tty: the end of input is the terminal\'s end-of-file: EOFError (engine)', async () => {
    const s = new Session(pythonProfile(), 'import sys\nprint("tty", sys.stdin.isatty())\ntry:\n    input("name? ")\nexcept EOFError:\n    print("EOF")\n', TTY);
    await s.sees('name? ');
    s.end();
    const r = await s.done;
    assert.equal(r.outcome, 'exited', r.message);
    assert.equal(lf(s.text), 'tty True\nname? EOF\n');
  });

  it('tty: code with 0x03, 0x04, other control bytes and CRLF arrives byte for byte, never echoed (engine)', async () => {
    const tail = Buffer.from([0x23, 0x03, 0x04, 0x0d, 0x0a, 0x11, 0x13, 0x16, 0x1a, 0x1c, 0x7f, 0x1b, 0x5b, 0x41, 0x10, 0x11, 0xff, 0x00, 0x0d, 0x0a]);
    const code = Buffer.concat([Buffer.from('od -An -tx1 "$0" | tr -d " \\n"; echo; exit 0 #\r\n'), tail]);
    const s = new Session(shellProfile({ lineEndings: 'keep' }), code, TTY);
    s.end();
    const r = await s.done;
    assert.equal(r.outcome, 'exited', r.message);
    assert.equal(s.text, `${code.toString('hex')}\r\n`, 'the whole file, nothing echoed before it');
  });

  it('tty: the program runs inside the same floor (no capabilities, no new privileges, read-only root, no network, its user) (engine)', async () => {
    const code = 'grep -E "^(CapEff|NoNewPrivs)" /proc/self/status; id -u; touch /x 2>/dev/null || echo read-only; ls /sys/class/net; [ -t 0 ] && echo tty\n';
    const s = new Session(shellProfile(), code, TTY);
    s.end();
    const r = await s.done;
    assert.equal(r.outcome, 'exited', r.message);
    assert.equal(lf(s.text).replace(/\t+/g, ' '), 'CapEff: 0000000000000000\nNoNewPrivs: 1\n65534\nread-only\nlo\ntty\n');
  });

  it('tty: the timeout and the output bound end a terminal run as any other (engine)', async () => {
    // 6 s from the code (the limit times the program): Python's start-up on a busy machine. A grace
    // far above any signal delivery, so exit 143 shows SIGTERM came first.
    const slow = new Session(pythonProfile({ limits: { timeoutSeconds: 6, interruptGraceSeconds: 30 } }), 'print("loop", flush=True)\nwhile True:\n    pass\n', TTY);
    const t = await slow.done;
    assert.equal(t.outcome, 'timed-out', t.message);
    assert.match(slow.text, /loop/, 'the loop ran before the limit');
    assert.equal(t.exitCode, 143);
    const loud = new Session(pythonProfile({ limits: { outputBytes: 1024 } }), 'while True:\n    print("x" * 100)\n', TTY);
    const o = await loud.done;
    assert.equal(o.outcome, 'output-limit', o.message);
    assert.equal(o.stdout.bytesKept, 1024);
    assert.equal(await containerExists(o.containerName), false);
  });

  // Images without sh run on the direct path (no launcher, no stdin there): an interactive run is refused, saying why.
  it('an image without sh: an interactive run is refused with a clear error, over a pipe and with a terminal, and nothing runs (engine)', async function () {
    this.timeout(120_000);
    const image = 'sandbox-runner-test/no-shell-runner:1';
    // RUN in exec form needs no shell; the applets stay, only the shell goes (as runner.test.ts builds it).
    await engineCli(['build', '--network', 'none', '-q', '-t', image, '-'], { input: `FROM ${IMAGES.busybox}\nRUN ["/bin/busybox", "rm", "-f", "/bin/sh"]\n`, env: { DOCKER_BUILDKIT: '0' } });
    for (const tty of [undefined, TTY]) {
      const s = new Session(shellProfile({ image, command: ['cat', '${file}'] }), 'printed by cat\n', tty);
      s.end();
      const r = await s.done;
      assert.equal(r.outcome, 'failed-to-start', r.message);
      assert.match(r.message, /has no "sh".*nothing ran/);
      assert.equal(s.text, '');
    }
  });

  it('tty: cancel interrupts the program and removes the container (engine)', async () => {
    const controller = new AbortController();
    const s = new Session(pythonProfile({ limits: { interruptGraceSeconds: 5 } }), 'import sys, time\ntry:\n    print("up", sys.stdin.isatty(), flush=True)\n    time.sleep(30)\nexcept KeyboardInterrupt:\n    print("interrupted", flush=True)\n', TTY, controller.signal);
    await s.sees('up True');
    controller.abort();
    const r = await s.done;
    assert.equal(r.outcome, 'cancelled', r.message);
    assert.equal(r.exitCode, 0, 'the program handled SIGINT and exited within the grace');
    assert.match(s.text, /interrupted/);
    assert.equal(await containerExists(r.containerName), false);
  });
});

describe('sandbox-run -i (engine)', function () {
  this.timeout(60_000);
  let ws: string;
  before(async () => {
    await requireEngine();
    ws = await makeWorkspace('sr-cli-i-', { 'sandboxRunner.profiles': { python: { image: IMAGES.python } } });
    await writeFile(join(ws, 'ask.py'), 'name = input("Name? "); print(f"Hello, {name}")\n');
  });
  after(() => rm(ws, { recursive: true, force: true }));

  /** Runs the CLI in the workspace with `input` as its stdin; checks it left no container behind. */
  const cli = (args: string[], input: string) => runCli(ws, args, { stripFinalNewline: false, input });

  it('printf \'Ada\\n\' | sandbox-run -i ask.py prints the greeting (engine)', async () => {
    const r = await cli(['-q', '-i', 'ask.py'], 'Ada\n');
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, 'Name? Hello, Ada\n');
    assert.equal(r.exitCode, 0);
  });

  it('without -i the program\'s stdin stays empty, even when the CLI\'s is not (engine)', async () => {
    const r = await cli(['-q', 'ask.py'], 'Ada\n');
    assert.equal(r.stdout, 'Name? ');
    assert.match(r.stderr, /EOFError/);
    assert.equal(r.exitCode, 1);
  });

  it('-i with code from standard input (-) is a usage error, and nothing runs (engine)', async () => {
    const r = await cli(['-i', '--profile', 'python', '-'], 'print("ran")\n');
    assert.equal(r.exitCode, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /-i passes standard input to the program/);
  });
});
