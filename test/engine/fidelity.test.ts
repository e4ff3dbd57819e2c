/**
 * Run fidelity on a real engine, on the cold and the warm path (`SANDBOX_RUNNER_TEST_PATH=warm`):
 * the outcome comes from the launcher's preamble and the engine, never from program text;
 * shebang snippets run; cancel and timeout interrupt the program's process group before removal;
 * and the sandbox rule that ended a run is named, as a fact where the kernel or engine showed it
 * and as a hint where only the exit status suggests it. (Death by SIGBUS on a full /dev/shm needs
 * mmap, which the test image's minimal Python lacks: the unit tests cover its wording.)
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WarmPool } from '../../src/core/run/warm';
import { chunkText, engineCli, IMAGES, noLeftoversAfterEach, pythonProfile, requireEngine, run, shellProfile, TEST_PATH, waitFor } from './helpers';

/** A copy of the busybox test image without `/bin/sh` (built here, never pulled). */
const NO_SHELL_IMAGE = 'sandbox-runner-test/no-shell:1';
/** A busybox copy whose ENTRYPOINT says a line on stderr, then execs its arguments (as many images do). */
const ENTRYPOINT_IMAGE = 'sandbox-runner-test/entrypoint:1';

/** Cancels `pending`'s run as soon as `text` appeared on its stdout. */
function cancelWhen(seen: () => string, text: string, controller: AbortController): Promise<void> {
  return waitFor(() => seen().includes(text), 20_000, `"${text}" on stdout`).then(() => controller.abort());
}

describe(`run fidelity on the ${TEST_PATH} path (engine)`, function () {
  this.timeout(60_000);
  before(async function () {
    this.timeout(120_000);
    await requireEngine();
    // RUN in exec form needs no shell; the applets stay, only the shell goes.
    const dockerfile = `FROM ${IMAGES.busybox}\nRUN ["/bin/busybox", "rm", "-f", "/bin/sh"]\n`;
    await engineCli(['build', '--network', 'none', '-q', '-t', NO_SHELL_IMAGE, '-'], { input: dockerfile, env: { DOCKER_BUILDKIT: '0' } });
    const entrypoint = `FROM ${IMAGES.busybox}\nENTRYPOINT ["/bin/sh", "-c", "echo 'entrypoint: setting up' >&2; exec \\"$@\\"", "entrypoint"]\n`;
    await engineCli(['build', '--network', 'none', '-q', '-t', ENTRYPOINT_IMAGE, '-'], { input: entrypoint, env: { DOCKER_BUILDKIT: '0' } });
  });
  noLeftoversAfterEach();
  after(async () => {
    await engineCli(['image', 'rm', '-f', NO_SHELL_IMAGE, ENTRYPOINT_IMAGE], { reject: false });
  });

  describe('outcomes come from the launcher and the engine, never from program text', () => {
    it('a program that prints the init process\'s exec-failure line and exits 127 exited by itself, and ran once', async () => {
      const fake = '[FATAL tini (7)] exec python3 failed: No such file or directory [Repair](command:workbench.action.terminal.sendSequence?%7B%7D)';
      const r = await run(pythonProfile(), `import sys\nprint("ran")\nsys.stderr.write(${JSON.stringify(fake + '\n')})\nsys.exit(127)\n`);
      assert.equal(r.result.outcome, 'exited', r.result.message);
      assert.equal(r.result.exitCode, 127);
      assert.equal(r.result.error, undefined);
      assert.equal(r.stdout, 'ran\n', 'the code ran exactly once');
      assert.equal(r.stderr, fake + '\n', 'the line is program output, shown as it is');
    });

    it('a program that prints "exec sh failed" ran once and is not re-run on another path', async () => {
      const r = await run(shellProfile(), 'echo ran; echo "[FATAL tini (7)] exec sh failed: No such file or directory" >&2; echo "Error: No such container: x" >&2; exit 127\n');
      assert.equal(r.result.outcome, 'exited', r.result.message);
      assert.equal(r.stdout, 'ran\n');
      assert.equal(r.result.exitCode, 127);
    });

    it('a command missing from the image is a start failure named by the launcher, and nothing ran', async () => {
      const r = await run(shellProfile({ command: ['/no/such/interpreter', '${file}'] }), 'echo x\n');
      assert.equal(r.result.outcome, 'failed-to-start');
      assert.equal(r.result.error?.code, 'start-failed');
      assert.match(r.result.message, /command "\/no\/such\/interpreter" was not found in the image/);
      assert.equal(r.stdout + r.stderr, '', 'launcher text is never program output');
    });

    it('the image\'s ENTRYPOINT never runs before the launcher: a program that ran is never "could not start", nor re-run', async () => {
      const r = await run(shellProfile({ image: ENTRYPOINT_IMAGE }), 'echo ran; echo bye >&2; exit 7\n');
      assert.equal(r.result.outcome, 'exited', r.result.message);
      assert.equal(r.result.exitCode, 7);
      assert.equal(r.stdout, 'ran\n');
      assert.equal(r.stderr, 'bye\n');
      const twice = await run(shellProfile({ image: ENTRYPOINT_IMAGE }), 'echo ran; exit 127\n');
      assert.equal(twice.stdout, 'ran\n', 'the code ran once');
      assert.equal(twice.result.exitCode, 127);
    });

    it('the docker CLI\'s own warnings before the preamble change nothing: the code runs once, its status stands', async () => {
      const cfg = await mkdtemp(join(tmpdir(), 'sr-fidelity-cfg-'));
      const docker = { env: { DOCKER_CONFIG: cfg } };
      // A run with its own docker options skips the shared pool: on the warm path use one with them.
      const pool = TEST_PATH === 'warm' ? new WarmPool({ docker }) : undefined;
      try {
        await writeFile(join(cfg, 'config.json'), '{bad json');
        for (const [code, status] of [['echo ran; exit 3\n', 3], ['echo ran; exit 127\n', 127]] as const) {
          const profile = shellProfile();
          if (pool) {
            pool.prepare({ name: 'cfg', profile });
            assert.equal(await pool.ready({ name: 'cfg', profile }), true);
          }
          const r = await run(profile, code, { docker, warm: pool, profileName: 'cfg' });
          assert.equal(r.result.outcome, 'exited', r.result.message);
          assert.equal(r.result.exitCode, status);
          assert.equal(r.stdout, 'ran\n', 'the code ran once');
          assert.doesNotMatch(r.stderr, /WARNING|config file/i, 'the CLI\'s words are not program output');
        }
      } finally {
        await pool?.dispose();
        await rm(cfg, { recursive: true, force: true });
      }
    });

    it('a profile that hides sh from the launcher sends only itself to the direct path, not the image\'s other profiles', async () => {
      const hidden = await run(pythonProfile({ command: ['/usr/bin/python3', '${file}'], env: { PATH: '/nonexistent' } }), 'print("x")\n', { warm: undefined });
      assert.equal(hidden.stdout, 'x\n');
      const missing = await run(pythonProfile({ command: ['/no/such/interpreter', '${file}'] }), 'print(1)\n');
      assert.equal(missing.result.outcome, 'failed-to-start', missing.result.message);
      assert.equal(missing.result.error?.code, 'start-failed');
    });

    it('an image without sh runs its command directly; its exit 127 is the program\'s own', async () => {
      const profile = shellProfile({ image: NO_SHELL_IMAGE, command: ['cat', '${file}'] });
      const r = await run(profile, 'printed by cat\n');
      assert.equal(r.result.outcome, 'exited', r.result.message);
      assert.equal(r.stdout, 'printed by cat\n');
      assert.equal(r.stderr, '', 'docker-init\'s complaint about sh is not program output');
      const missing = await run(shellProfile({ image: NO_SHELL_IMAGE, command: ['no-such-tool', '${file}'] }), 'x\n');
      assert.equal(missing.result.outcome, 'exited', missing.result.message);
      assert.equal(missing.result.exitCode, 127);
    });
  });

  describe('snippets', () => {
    it('a shebang snippet runs as the command itself ("command": ["${file}"])', async () => {
      const r = await run(shellProfile({ command: ['${file}'] }), '#!/bin/sh\necho "shebang ran as $0"\n');
      assert.equal(r.result.outcome, 'exited', `${r.result.message} ${r.stderr}`);
      assert.equal(r.result.exitCode, 0);
      assert.equal(r.stdout, 'shebang ran as /sandbox/main.sh\n');
    });
  });

  describe('interrupt, then removal', () => {
    const loop =
      'import time\ntry:\n    print("loop", flush=True)\n    while True:\n        time.sleep(0.05)\n' +
      'except KeyboardInterrupt:\n    print("KeyboardInterrupt", flush=True)\n    raise\nfinally:\n    print("finally ran", flush=True)\n';

    it('cancel delivers SIGINT first: the program\'s except and finally run, then the container goes', async () => {
      const controller = new AbortController();
      let out = '';
      const pending = run(pythonProfile(), loop, { signal: controller.signal, onOutput: (s, t) => { if (s === 'stdout') out += chunkText(t); } });
      await cancelWhen(() => out, 'loop', controller);
      const r = await pending;
      assert.equal(r.result.outcome, 'cancelled');
      assert.equal(out, 'loop\nKeyboardInterrupt\nfinally ran\n');
      assert.equal(r.result.exitCode, 130, 'the program\'s own status (death by SIGINT) within the grace period');
      assert.match(r.result.message, /had exited with code 130 within the grace period after SIGINT/);
    });

    it('the interrupt reaches the whole process group (a program under sh -c)', async () => {
      const controller = new AbortController();
      let out = '';
      const inner = 'import time\ntry:\n    print("inner up", flush=True)\n    time.sleep(100)\nfinally:\n    print("inner finally", flush=True)\n';
      const script = `cat > /tmp/inner.py <<'EOF'\n${inner}EOF\nsh -c 'python3 /tmp/inner.py'\n`;
      const pending = run(shellProfile({ image: IMAGES.python }), script, {
        signal: controller.signal,
        onOutput: (s, t) => { if (s === 'stdout') out += chunkText(t); },
      });
      await cancelWhen(() => out, 'inner up', controller);
      const r = await pending;
      assert.equal(r.result.outcome, 'cancelled');
      assert.match(out, /inner finally/);
    });

    it('a program that ignores SIGINT is removed after limits.interruptGraceSeconds', async () => {
      const controller = new AbortController();
      let out = '';
      const code = 'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint("ignoring", flush=True)\ntime.sleep(100)\n';
      const pending = run(pythonProfile({ limits: { interruptGraceSeconds: 0.5 } }), code, {
        signal: controller.signal,
        onOutput: (s, t) => { if (s === 'stdout') out += chunkText(t); },
      });
      await cancelWhen(() => out, 'ignoring', controller);
      const r = await pending;
      assert.equal(r.result.outcome, 'cancelled');
      assert.equal(r.result.exitCode, null, 'removed, not exited');
    });

    it('a forced cancel (second Ctrl-C) removes the container at once, whatever the grace', async () => {
      const controller = new AbortController();
      const force = new AbortController();
      let out = '';
      const code = 'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint("ignoring", flush=True)\ntime.sleep(100)\n';
      const pending = run(pythonProfile({ limits: { interruptGraceSeconds: 60 } }), code, {
        signal: controller.signal,
        forceSignal: force.signal,
        onOutput: (s, t) => { if (s === 'stdout') out += chunkText(t); },
      });
      await cancelWhen(() => out, 'ignoring', controller);
      const t0 = Date.now();
      force.abort();
      const r = await pending;
      assert.equal(r.result.outcome, 'cancelled');
      assert.ok(Date.now() - t0 < 30_000, 'gone long before the 60 s grace');
    });

    it('a timeout delivers SIGTERM first, and the outcome stays timed-out', async () => {
      const code = 'import signal, sys, time\ndef term(*_):\n    print("got SIGTERM", flush=True)\n    sys.exit(3)\nsignal.signal(signal.SIGTERM, term)\ntime.sleep(100)\n';
      // A grace far above signal delivery on a busy machine: the handler's output and status prove SIGTERM came first.
      const r = await run(pythonProfile({ limits: { timeoutSeconds: 2, interruptGraceSeconds: 30 } }), code);
      assert.equal(r.result.outcome, 'timed-out');
      assert.equal(r.stdout, 'got SIGTERM\n');
      assert.equal(r.result.exitCode, 3);
      assert.equal(r.result.rule?.key, 'limits.timeoutSeconds');
    });
  });

  describe('the sandbox rule behind a failure', () => {
    it('file-size limit: exit 153 is named as SIGXFSZ with limits.fileSizeMiB, as a hint', async () => {
      const r = await run(shellProfile(), 'dd if=/dev/zero of=/tmp/big bs=1048576 count=20 2>/dev/null\n');
      assert.equal(r.result.outcome, 'exited');
      assert.equal(r.result.exitCode, 153);
      assert.equal(r.result.signal, 'SIGXFSZ');
      assert.equal(r.result.rule?.key, 'limits.fileSizeMiB');
      assert.equal(r.result.rule?.certain, false);
      assert.match(r.result.message, /Exit 153 is how a process killed by SIGXFSZ ends; the file-size limit limits\.fileSizeMiB \(16 MiB/);
    });

    it('process limit reached by threads: named as a fact from the pids cgroup', async () => {
      const code =
        'import threading, time\nts = []\nfor i in range(200):\n    t = threading.Thread(target=time.sleep, args=(1.5,))\n    t.start()\n    ts.append(t)\n';
      const r = await run(pythonProfile(), code);
      assert.equal(r.result.outcome, 'exited');
      assert.equal(r.result.exitCode, 1);
      assert.match(r.stderr, /can't start new thread/);
      assert.equal(r.result.rule?.key, 'limits.pids', r.result.message);
      assert.equal(r.result.rule?.certain, true);
      assert.match(r.result.message, /process limit limits\.pids \(128, threads count too\) refused/);
    });

    it('a program that hits the process limit and exits at once is still named by limits.pids (the watch starts before the code is sent)', async () => {
      // Before issue 10 the watch started after the program did (an inspect away): a fast program
      // and its cgroup were gone by then, and the note was missing in most runs.
      // The cgroup goes with the container 20–50 ms after the refused fork, and the watch polls it
      // (2 ms at first): a machine busy enough to starve the poller can still miss one, so the test
      // asks for most runs (before issue 10: 1 of 12 named).
      const messages: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await run(shellProfile({ limits: { pids: 8 } }), 'i=0; while [ $i -lt 20 ]; do sleep 2 & i=$((i+1)); done 2>/dev/null; exit 0\n');
        assert.equal(r.result.outcome, 'exited', r.result.message);
        if (r.result.rule?.key !== 'limits.pids') messages.push(`run ${i}: ${r.result.message}`);
      }
      assert.ok(messages.length <= 1, `named in ${5 - messages.length} of 5 runs: ${messages.join(' | ')}`);
    });

    it('a child killed by the OOM killer leaves the program\'s own status; the memory rule is named as a fact', async () => {
      const code =
        'import os, sys\npid = os.fork()\nif pid == 0:\n    x = []\n    while True:\n        x.append(b"x" * 1024 * 1024)\n' +
        'os.waitpid(pid, 0)\nprint("parent exits 1 by itself")\nsys.exit(1)\n';
      const r = await run(pythonProfile({ limits: { memoryMiB: 32 } }), code);
      assert.equal(r.stdout, 'parent exits 1 by itself\n');
      assert.equal(r.result.outcome, 'exited', r.result.message);
      assert.equal(r.result.exitCode, 1);
      assert.equal(r.result.rule?.key, 'limits.memoryMiB');
      assert.equal(r.result.rule?.certain, true);
    });

    it('text imitating a rule changes nothing: a normal exit names no limit', async () => {
      const r = await run(shellProfile(), 'echo "The process limit limits.pids (128, threads count too) refused 5 new processes" >&2; exit 1\n');
      assert.equal(r.result.outcome, 'exited');
      assert.equal(r.result.rule, undefined);
      assert.match(r.result.message, /^Exited with code 1 in \d+ ms\.$/);
    });

    it('/dev/shm has the size limits.shmMiB gives it (the engine default is 64 MiB whatever the profile says)', async () => {
      const size = await run(shellProfile({ limits: { shmMiB: 96 } }), 'df -m /dev/shm | tail -1\n');
      assert.match(size.stdout, /\s96\s/, size.stdout);
    });
  });
});
