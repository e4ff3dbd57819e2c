/**
 * Hostile input and programs for interactive runs (issue 11; security review "attack2"): the CLI's
 * `-i` must end when the program ends, whatever its standard input does (never closes, never stops,
 * binary, huge), and a terminal run's frame must arrive whole whatever bytes the code ends with.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { execa } from 'execa';
import type { TtySize } from '../../src/core/interactive';
import { CLI, cliEnv, IMAGES, noLeftoversAfterEach, productContainers, requireEngine, run, shellProfile } from './helpers';
import { makeWorkspace } from '../support/workspace';

const TTY: TtySize = { columns: 80, rows: 24 };

describe('sandbox-run -i with hostile standard input (engine)', function () {
  this.timeout(60_000);
  let ws: string;
  before(async () => {
    await requireEngine();
    ws = await makeWorkspace('sr-cli-i-hostile-', { 'sandboxRunner.profiles': { sh: { image: IMAGES.busybox, command: ['sh', '${file}'], extensions: ['.sh'] } } });
    await writeFile(join(ws, 'quick.sh'), 'echo done\n');
    await writeFile(join(ws, 'cat.sh'), 'cat\n');
    await writeFile(join(ws, 'head.sh'), 'head -c 10 | od -An -tx1 | tr -d " \\n"; echo\n');
  });
  after(() => rm(ws, { recursive: true, force: true }));

  /**
   * Runs the CLI with `-i FILE` and a stdin fed by `feed` (which gets the child's stdin), and
   * returns its result and how long it took (ms); fails when it is still running after 30 s.
   */
  async function cliWith(file: string, feed: (stdin: NodeJS.WritableStream) => void) {
    const env = cliEnv();
    const started = Date.now();
    const child = execa('node', [CLI, '-q', '--workspace', ws, '-i', file], { reject: false, stripFinalNewline: false, cwd: ws, stdin: 'pipe', timeout: 30_000, ...(env ? { env } : {}) });
    child.stdin!.on('error', () => undefined); // EPIPE once the CLI stops reading
    feed(child.stdin!);
    const r = await child;
    const ms = Date.now() - started;
    assert.deepEqual(await productContainers(child.pid!), [], 'the CLI left a container behind');
    return { r, ms };
  }

  it('a program that exits without reading ends the CLI while its stdin stays open and silent (engine)', async () => {
    const { r, ms } = await cliWith('quick.sh', () => undefined /* never written, never closed */);
    assert.equal(r.timedOut, false, `still running after ${ms} ms`);
    assert.equal(r.stdout, 'done\n');
    assert.equal(r.exitCode, 0, r.stderr);
  });

  it('a program that exits without reading ends the CLI while its stdin never stops (yes-like) (engine)', async () => {
    let timer: NodeJS.Timeout | undefined;
    const { r, ms } = await cliWith('quick.sh', (stdin) => {
      const chunk = Buffer.alloc(64 * 1024, 'y\n');
      const pump = () => {
        while (stdin.write(chunk)) { /* fill until backpressure */ }
        timer = setTimeout(pump, 5);
      };
      pump();
    });
    clearTimeout(timer);
    assert.equal(r.timedOut, false, `still running after ${ms} ms`);
    assert.equal(r.stdout, 'done\n');
    assert.equal(r.exitCode, 0, r.stderr);
  });

  it('a program that reads 10 bytes of 64 MiB of binary input and exits ends the CLI (engine)', async () => {
    const data = randomBytes(64 * 1024 * 1024);
    const { r, ms } = await cliWith('head.sh', (stdin) => stdin.end(data));
    assert.equal(r.timedOut, false, `still running after ${ms} ms`);
    assert.equal(r.stdout, `${data.subarray(0, 10).toString('hex')}\n`);
    assert.equal(r.exitCode, 0, r.stderr);
  });

  it('a program echoing 64 MiB of binary input back is stopped by the output bound and ends the CLI (engine)', async () => {
    const { r, ms } = await cliWith('cat.sh', (stdin) => stdin.end(randomBytes(64 * 1024 * 1024)));
    assert.equal(r.timedOut, false, `still running after ${ms} ms`);
    assert.match(r.stderr, /stdout passed its limit/);
    assert.notEqual(r.exitCode, 0);
  });
});

describe('terminal runs with code ending in detach-key bytes (engine)', function () {
  this.timeout(60_000);
  before(requireEngine);
  noLeftoversAfterEach();

  // Docker's attach holds a stdin chunk ending in a prefix of the detach sequence: a frame ending
  // so would never complete. Ctrl-^ (0x1e) starts every sequence; Ctrl-] (0x1d) when the code
  // ends in 0x1e; Ctrl-P Ctrl-Q is Docker's default.
  for (const tail of [[0x1e], [0x1d], [0x1e, 0x1d], [0x10], [0x10, 0x11], [0x1e, 0x01], [0x1e, 0x1e, 0x1e]]) {
    it(`code ending in ${tail.map((b) => `0x${b.toString(16)}`).join(' ')} arrives whole and runs (engine)`, async () => {
      const code = Buffer.concat([Buffer.from('od -An -tx1 "$0" | tr -d " \\n"; echo; exit 0 #'), Buffer.from(tail)]);
      const input = new PassThrough();
      const out: Buffer[] = [];
      const started = Date.now();
      const done = run(shellProfile({ lineEndings: 'keep', limits: { timeoutSeconds: 20 } }), code as unknown as string, {
        interactive: { input, tty: TTY },
        onOutput: (stream, data) => {
          if (stream !== 'notice') out.push(Buffer.from(data));
        },
      }).then((c) => c.result);
      input.end();
      const r = await done;
      assert.equal(r.outcome, 'exited', `${r.message} after ${Date.now() - started} ms`);
      assert.equal(Buffer.concat(out).toString('latin1'), `${code.toString('hex')}\r\n`);
    });
  }
});
