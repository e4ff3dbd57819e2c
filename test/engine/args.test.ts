/**
 * Program arguments (issue 12) on a real engine, on the cold and the warm path
 * (`SANDBOX_RUNNER_TEST_PATH=warm`), with a terminal, and on the direct path: the program's argv
 * after the command's own words is exactly the given list, hostile words included, and nothing
 * of it passed through a shell. The engine is chosen through the environment (helpers.ts `ENGINE`).
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { MAX_PROGRAM_ARGS } from '../../src/core/admission/programArgs';
import type { WarmPool } from '../../src/core/run/warm';
import { ENGINE_KIND, engineCli, engineIsLocal, IMAGES, noLeftoversAfterEach, pythonProfile, requireEngine, run, shellProfile, TEST_PATH } from './helpers';
import { HOSTILE_ARGS } from '../unit/hostileArgs';

/** A busybox copy without `/bin/sh` (its runs take the direct path), built here, never pulled. */
const NO_SHELL_IMAGE = 'sandbox-runner-test/no-shell-args:1';

const PRINT_ARGV = 'import json, sys\nprint(json.dumps(sys.argv[1:]))\n';

describe(`program arguments on the ${TEST_PATH} path (engine)`, function () {
  this.timeout(60_000);
  before(async function () {
    this.timeout(120_000);
    await requireEngine();
  });
  noLeftoversAfterEach();

  it('sys.argv[1:] is exactly the given arguments, hostile ones included, and the program still reads its stdin', async () => {
    const profile = pythonProfile();
    // On the warm path: the run must take the container the pool prepared (the arguments travel in the frame).
    const pool = (globalThis as { [k: symbol]: WarmPool | undefined })[Symbol.for('sandbox-runner.test.warm-pool')];
    pool?.prepare({ name: 'test', profile });
    if (pool) assert.ok(await pool.ready({ name: 'test', profile }), 'no warm container was prepared');
    const idle = pool?.idleNames() ?? [];
    const r = await run(profile, PRINT_ARGV + 'import sys\nprint(repr(sys.stdin.read()))\n', { args: HOSTILE_ARGS });
    if (TEST_PATH === 'warm') assert.ok(idle.includes(r.result.containerName), `the run did not take the warm container (${r.result.containerName} not in ${idle.join(', ')})`);
    assert.equal(r.result.outcome, 'exited', `${r.result.message} ${r.stderr}`);
    const [argv, stdin] = r.stdout.split('\n');
    assert.deepEqual(JSON.parse(argv!), HOSTILE_ARGS);
    assert.equal(stdin, "''", 'stdin after the frame is empty without interactive input');
    assert.equal(r.stderr, '');
  });

  it('they follow the command\'s own words after ${file} was replaced, and no shell ran them ($(id) is a word, not a command)', async () => {
    const r = await run(shellProfile({ command: ['sh', '${file}', 'own word'] }), 'for a in "$@"; do printf "[%s]" "$a"; done\n', { args: ['$(id)', '; id', ''] });
    assert.equal(r.result.outcome, 'exited', r.result.message);
    assert.equal(r.stdout, '[own word][$(id)][; id][]');
  });

  it('interactive over a pipe: the arguments arrive, then the input', async () => {
    const input = new PassThrough();
    input.end('typed\n');
    const r = await run(pythonProfile(), PRINT_ARGV + 'print(input())\n', { args: ['-x', 'a b'], interactive: { input } });
    assert.equal(r.result.outcome, 'exited', `${r.result.message} ${r.stderr}`);
    assert.equal(r.stdout, '["-x", "a b"]\ntyped\n');
  });

  it('with a terminal: the arguments arrive through the raw terminal byte for byte', async () => {
    const input = new PassThrough();
    const r = await run(pythonProfile(), PRINT_ARGV, { args: HOSTILE_ARGS, interactive: { input, tty: { rows: 24, columns: 200 } } });
    input.end();
    assert.equal(r.result.outcome, 'exited', `${r.result.message} ${r.stdout}`);
    assert.deepEqual(JSON.parse(r.stdout.trim()), HOSTILE_ARGS);
  });

  it('past the bound the run is refused before any container exists, saying why', async () => {
    const r = await run(pythonProfile(), PRINT_ARGV, { args: Array(MAX_PROGRAM_ARGS + 1).fill('x') });
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'invalid-arguments');
    assert.match(r.result.message, /257 program arguments were given; a run takes at most 256/);
    const nul = await run(pythonProfile(), PRINT_ARGV, { args: ['a\0b'] });
    assert.equal(nul.result.error?.code, 'invalid-arguments');
    assert.equal(r.stdout + nul.stdout, '');
  });

  describe('the direct path (an image without sh)', () => {
    const applies = ENGINE_KIND !== 'podman' && engineIsLocal();
    before(async function () {
      if (!applies) return;
      this.timeout(120_000);
      const dockerfile = `FROM ${IMAGES.busybox}\nRUN ["/bin/busybox", "rm", "-f", "/bin/sh"]\n`;
      await engineCli(['build', '--network', 'none', '-q', '-t', NO_SHELL_IMAGE, '-'], { input: dockerfile, env: { DOCKER_BUILDKIT: '0' } });
    });
    after(async () => {
      if (applies) await engineCli(['image', 'rm', '-f', NO_SHELL_IMAGE], { reject: false });
    });

    it(`the arguments are appended to the docker create argv${applies ? '' : ' [not applicable: the direct path runs on a local Docker engine only]'}`, async function () {
      if (!applies) return;
      const r = await run(shellProfile({ image: NO_SHELL_IMAGE, command: ['printf', '%s\\0', '${file}'] }), 'x\n', { args: HOSTILE_ARGS });
      assert.equal(r.result.outcome, 'exited', `${r.result.message} ${r.stderr}`);
      assert.deepEqual(r.stdout.split('\0').slice(1, -1), HOSTILE_ARGS);
    });
  });
});
