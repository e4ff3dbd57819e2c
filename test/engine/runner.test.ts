import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { admitContainer } from '../../src/core/admission/admit';
import { buildRunArgv } from '../../src/core/container/argv';
import { engineSpec } from '../../src/core/engine/podman/engineSpec';
import { leaseTestHooks, openRunLease } from '../../src/core/container/lease';
import { mountProofProblems } from '../../src/core/admission/mountProof';
import { inspectContainer } from '../../src/core/engine/inspect';
import { BRIDGE, TEST_RUNTIME } from '../support/profiles';
import { RUNSC_MIN_PIDS } from '../../src/core/profiles/limits';
import { LABELS, ownerLabels, WARM_LABEL } from '../../src/core/ownership/labels';
import { resolveMounts } from '../../src/core/mounts/mounts';
import { runInSandbox } from '../../src/core/run/runner';
import { runTestHooks } from '../../src/core/run/session';
import { scheduleRemoval } from '../../src/core/container/removals';
import { WarmPool } from '../../src/core/run/warm';
import { bridgeGateway, chunkText, containerExists, containerHostProcesses, processAlive, ENGINE_KIND, engineCli, engineDocker, engineIsLocal, engineSeesClientFiles, hostProcesses, IMAGES, LOCAL_DOCKER_HOST, noLeftoversAfterEach, productContainers, pythonProfile, requireEngine, routedEngine, run, shellProfile, waitFor } from './helpers';

/**
 * Lists this process's warm containers (of one profile, or all) every 20 ms until `stop()`
 * (which resolves once the last listing ended): `seen` collects the names of listings that
 * ended while `recording()` held.
 */
function watchWarm(profile?: string, recording: () => boolean = () => true): { seen: Set<string>; stop: () => Promise<void> } {
  const seen = new Set<string>();
  const filters = [`label=${WARM_LABEL}`, `label=${LABELS.ownerPid}=${process.pid}`, ...(profile ? [`label=${LABELS.profile}=${profile}`] : [])];
  let watching = true;
  const loop = (async () => {
    while (watching) {
      const names = String((await engineCli(['ps', '-a', '--format', '{{.Names}}', ...filters.flatMap((f) => ['--filter', f])])).stdout).split('\n').filter(Boolean);
      if (recording()) for (const n of names) seen.add(n);
      await delay(20);
    }
  })();
  return { seen, stop: () => ((watching = false), loop) };
}

describe('runner on a real engine (engine)', function () {
  this.timeout(60_000);
  before(requireEngine);
  noLeftoversAfterEach();

  it('runs a Python snippet: stdout streamed, exit 0, container removed', async () => {
    const r = await run(pythonProfile(), 'print("hello from python", 6 * 7)\n');
    assert.equal(r.result.outcome, 'exited');
    assert.equal(r.result.exitCode, 0);
    assert.equal(r.stdout, 'hello from python 42\n');
    assert.equal(r.stderr, '');
    assert.equal(r.result.stdout.bytesKept, 21);
    assert.ok(r.result.durationMs > 0);
    assert.equal(await containerExists(r.result.containerName), false);
  });

  it('runs a shell snippet and keeps UTF-8 intact', async () => {
    const r = await run(shellProfile(), 'echo "grüße 世界"; printf "%s\\n" "$0"\n');
    assert.equal(r.result.outcome, 'exited');
    assert.equal(r.stdout, 'grüße 世界\n/sandbox/main.sh\n');
  });

  it('returns a non-zero exit code exactly, and keeps stderr separate from stdout', async () => {
    const r = await run(pythonProfile(), 'import sys\nprint("out")\nprint("err", file=sys.stderr)\nsys.exit(42)\n');
    assert.equal(r.result.outcome, 'exited');
    assert.equal(r.result.exitCode, 42);
    assert.equal(r.result.signal, null);
    assert.equal(r.stdout, 'out\n');
    assert.equal(r.stderr, 'err\n');
    assert.match(r.result.message, /^Exited with code 42 in \d+ ms\.$/);
  });

  it('reports a program killed by a signal through the init process status', async () => {
    const r = await run(shellProfile(), 'kill -TERM $$\n');
    assert.equal(r.result.outcome, 'exited');
    assert.equal(r.result.exitCode, 143);
    assert.equal(r.result.signal, 'SIGTERM');
  });

  it('ends a `while True` loop at the timeout and removes its container', async () => {
    // The limit times the program from the moment its code was sent (stop.ts `started`). A grace
    // far above any signal delivery: exit 143 proves SIGTERM ended the loop; a removal at the
    // grace's end would leave no exit status.
    const timeoutSeconds = TEST_RUNTIME === 'runsc' ? 12 : 6;
    const r = await run(pythonProfile({ limits: { timeoutSeconds, interruptGraceSeconds: 30 } }), 'while True:\n    pass\n');
    assert.equal(r.result.outcome, 'timed-out');
    assert.equal(r.result.exitCode, 143, 'SIGTERM first ended the loop within the grace period');
    assert.ok(r.result.durationMs >= timeoutSeconds * 1000 && r.result.durationMs < (timeoutSeconds + 30) * 1000, `duration ${r.result.durationMs}`);
    assert.equal(await containerExists(r.result.containerName), false);
  });

  it('times the program, not the start: a start slower than the limit still runs the program', async () => {
    // The hook holds the run after admission, before the code is sent, for 2.5 s: a busy engine's
    // slow create and start. With a 1 s limit the program must still run (stop.ts `started`).
    runTestHooks.beforeCode = () => delay(2500);
    try {
      const r = await run(shellProfile({ limits: { timeoutSeconds: 1 } }), 'echo ran\n');
      assert.equal(r.result.outcome, 'exited', r.result.message);
      assert.equal(r.stdout, 'ran\n');
      assert.ok(r.result.durationMs >= 2500, `duration ${r.result.durationMs}`);
    } finally {
      runTestHooks.beforeCode = undefined;
    }
  });

  it('cancel mid-run removes the container and stops its detached children', async () => {
    const marker = `31${Math.floor(Math.random() * 1e6)}`;
    const controller = new AbortController();
    let started = false;
    let name: string | undefined;
    const pending = run(shellProfile(), `(setsid sleep ${marker} &) ; echo started; sleep 600\n`, {
      signal: controller.signal,
      onArgv: (argv) => (name = argv[argv.indexOf('--name') + 1]),
      onOutput: (_s, text) => {
        if (chunkText(text).includes('started')) started = true;
      },
    });
    await waitFor(() => started, 20_000, 'the snippet to start');
    // Under runc the detached child is a host process; under gVisor it lives in the sandbox's own
    // kernel, and the container's host processes (sandbox, gofer, stubs) are what must end.
    const gvisor = TEST_RUNTIME === 'runsc';
    let held: number[] = [];
    if (gvisor) {
      await waitFor(async () => (held = await containerHostProcesses(name!)).length > 0, 5000, 'the container\'s host processes');
    } else {
      await waitFor(async () => (await hostProcesses(`sleep ${marker}`)).length > 0, 5000, 'the detached child');
    }
    controller.abort();
    const r = await pending;
    assert.equal(r.result.outcome, 'cancelled');
    assert.equal(await containerExists(r.result.containerName), false);
    assert.deepEqual(await hostProcesses(`sleep ${marker}`), []);
    for (const pid of held) assert.equal(await processAlive(pid), false, `the container's host process ${pid} outlived the cancel`);
  });

  it('a signal aborted before the run starts nothing', async () => {
    const r = await run(shellProfile(), 'echo no\n', { signal: AbortSignal.abort() });
    assert.equal(r.result.outcome, 'cancelled');
    assert.equal(r.stdout, '');
    assert.equal(await containerExists(r.result.containerName), false);
  });

  it('ends a flood at the output bound, keeping exactly the bound, with a truncation notice', async () => {
    const bound = 64 * 1024;
    const r = await run(shellProfile({ limits: { outputBytes: bound, timeoutSeconds: 30 } }), 'yes 0123456789abcdef\n');
    assert.equal(r.result.outcome, 'output-limit');
    assert.equal(r.result.stdout.bytesKept, bound);
    assert.equal(r.result.stdout.truncated, true);
    assert.equal(Buffer.byteLength(r.stdout), bound);
    assert.equal(r.stdout, '0123456789abcdef\n'.repeat(bound / 17 + 1).slice(0, bound));
    assert.match(r.notice, /stdout passed its limit of 65536 bytes/);
    assert.ok(r.result.durationMs < 15_000, `flood took ${r.result.durationMs} ms to stop`);
  });

  it('bounds stderr on its own', async () => {
    const r = await run(shellProfile({ limits: { outputBytes: 2048 } }), 'echo fine; yes err 1>&2\n');
    assert.equal(r.result.outcome, 'output-limit');
    assert.equal(r.result.stderr.bytesKept, 2048);
    assert.equal(r.result.stdout.truncated, false);
    assert.equal(r.stdout, 'fine\n');
  });

  it('reports a memory hog as oom-killed', async () => {
    const r = await run(pythonProfile({ limits: { memoryMiB: 32 } }), 'x = []\nwhile True:\n    x.append(bytearray(8 * 1024 * 1024))\n');
    assert.equal(r.result.outcome, 'oom-killed', r.result.message + r.stderr);
    assert.equal(r.result.exitCode, 137);
    assert.match(r.result.message, /32 MiB/);
  });

  it('a missing image gives the clear error and creates nothing', async () => {
    const before = await productContainers();
    const r = await run(pythonProfile({ image: 'sandbox-runner-test/does-not-exist:1' }), 'print(1)\n');
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'image-missing');
    // Named on the engine in use: the local one ("default" context) or the suite's DOCKER_HOST.
    assert.match(r.result.message, /not present on the Docker engine of (context "default"|host "[^"]+").*"(docker|podman) (--host \S+ )?pull sandbox-runner-test\/does-not-exist:1"/);
    assert.deepEqual(await productContainers(), before);
  });

  it('an image that declares a VOLUME is refused before anything runs', async () => {
    const r = await run(shellProfile({ image: IMAGES.volume }), 'echo ran\n');
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'image-has-volumes');
    assert.match(r.result.message, /\/data/);
    assert.equal(r.stdout, '');
  });

  it('the rest of stdin after the code frame belongs to the program (binary, no trailing newline)', async () => {
    leaseTestHooks.stdinAfterFrame = Buffer.from([0x00, 0x0a, 0xff, 0x41]);
    try {
      const r = await run(shellProfile(), 'od -An -tx1 | tr -d " \\n"; echo; wc -c < /sandbox/main.sh\n');
      assert.equal(r.result.outcome, 'exited', r.result.message);
      assert.equal(r.stdout, `000aff41\n${Buffer.byteLength('od -An -tx1 | tr -d " \\n"; echo; wc -c < /sandbox/main.sh\n')}\n`);
    } finally {
      delete leaseTestHooks.stdinAfterFrame;
    }
  });

  // Issue 25: the footer, the diagnostic, the CLI summary and an agent's result are built from
  // the result; output that arrives after the CLI process ended must still be in it. The hook holds
  // every output byte until the attached CLI process has ended, then until the result settled
  // (or 3 s passed): a result that does not wait for the output settles first and misses it.
  it('the result comes only after every output byte reached the sink, even when the bytes arrive after the CLI process ended', async () => {
    let resultSettled: () => void = () => undefined;
    const settled = new Promise<void>((r) => (resultSettled = r));
    let heldPastExit = 0;
    leaseTestHooks.outputStage = (ended) => new Transform({
      transform(chunk: Buffer, _encoding, done) {
        void ended.then(() => Promise.race([settled, delay(3000)])).then(() => {
          heldPastExit += chunk.length;
          done(null, chunk);
        });
      },
    });
    const code = 'import sys\nprint("before", flush=True)\nsys.stderr.write("IndexError")\nsys.stderr.flush()\nsys.stderr.write(": list index out of range\\n")\nsys.exit(1)\n';
    try {
      const seen = { stdout: '', stderr: '' };
      const pending = runInSandbox({
        profileName: 'test', profile: pythonProfile(), code, docker: engineDocker() ?? {},
        onOutput: (stream, data) => {
          if (stream !== 'notice') seen[stream] += chunkText(data);
        },
      });
      const result = await pending.finally(resultSettled);
      const atResult = { ...seen };
      assert.equal(result.outcome, 'exited', result.message);
      assert.equal(result.exitCode, 1);
      assert.ok(heldPastExit > 0, 'the hook held no output past the CLI process\'s end');
      assert.equal(atResult.stdout, 'before\n');
      assert.equal(atResult.stderr, 'IndexError: list index out of range\n');
      assert.equal(result.stderr.bytesKept, Buffer.byteLength(atResult.stderr));
    } finally {
      delete leaseTestHooks.outputStage;
    }
  });

  // Issue 10: "Images without sh keep a bind-mount fallback on a local engine only. On an engine
  // that cannot see local paths, that fallback is refused with a message that says why."
  it('an image without sh: the code is mounted from this machine on a local engine only; elsewhere the run is refused, saying why, and nothing runs', async function () {
    this.timeout(120_000);
    const image = 'sandbox-runner-test/no-shell-runner:1';
    // RUN in exec form needs no shell; the applets stay, only the shell goes.
    await engineCli(['build', '--network', 'none', '-q', '-t', image, '-'], { input: `FROM ${IMAGES.busybox}\nRUN ["/bin/busybox", "rm", "-f", "/bin/sh"]\n`, env: { DOCKER_BUILDKIT: '0' } });
    const tempRoot = await mkdtemp(join(tmpdir(), 'sr-no-shell-'));
    try {
      const r = await run(shellProfile({ image, command: ['cat', '${file}'] }), 'printed by cat\n', { tempRoot });
      if (ENGINE_KIND === 'podman') {
        assert.equal(r.result.outcome, 'failed-to-start', r.result.message);
        assert.match(r.result.message, /has no "sh" to receive the code over stdin, and on Podman/);
        assert.equal(r.stdout + r.stderr, '', 'nothing ran');
      } else if (await engineSeesClientFiles()) {
        assert.equal(r.result.outcome, 'exited', r.result.message);
        assert.equal(r.stdout, 'printed by cat\n');
      } else {
        assert.equal(r.result.outcome, 'failed-to-start', r.result.message);
        assert.equal(r.result.error?.code, 'start-failed', r.result.message);
        assert.match(r.result.message, /has no "sh" to receive the code over stdin/);
        assert.match(r.result.message, /cannot see this machine's files/);
        assert.ok(process.env.DOCKER_HOST && r.result.message.includes(process.env.DOCKER_HOST), `the message names the engine: ${r.result.message}`);
        assert.equal(r.stdout + r.stderr, '', 'nothing ran');
      }
      assert.deepEqual(await readdir(tempRoot), [], 'no snippet directory or probe file is left on the host');
    } finally {
      await rm(tempRoot, { recursive: true, force: true });
      await engineCli(['image', 'rm', '-f', image], { reject: false });
    }
  });

  it('a missing docker binary gives the clear error', async () => {
    const r = await run(shellProfile(), 'echo x\n', { docker: { dockerPath: '/nonexistent/docker' } });
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'docker-missing');
    assert.match(r.result.message, /\/nonexistent\/docker.*ENOENT.*sandboxRunner\.dockerPath/);
  });

  it('a warm container removed behind the pool\'s back falls back to the cold path, with no engine text in the output', async () => {
    const pool = new WarmPool({ docker: engineDocker() });
    try {
      const profile = shellProfile();
      pool.prepare({ name: 'stale', profile });
      assert.equal(await pool.ready({ name: 'stale', profile }), true);
      const [stale] = pool.idleNames();
      await engineCli(['rm', '-f', stale!]);
      const r = await run(profile, 'echo fresh; echo err >&2\n', { warm: pool, profileName: 'stale' });
      assert.equal(r.result.outcome, 'exited', r.result.message);
      assert.equal(r.stdout, 'fresh\n');
      assert.equal(r.stderr, 'err\n');
      assert.notEqual(r.result.containerName, stale);
    } finally {
      await pool.dispose();
    }
  });

  it('a run that arrives while the pool prepares the profile\'s container waits for it and takes it; a cancel ends the wait', async () => {
    const pool = new WarmPool({ docker: engineDocker() });
    const profile = shellProfile();
    const watch = watchWarm();
    const warmNames = watch.seen;
    try {
      pool.prepare({ name: 'soon', profile });
      assert.deepEqual(pool.idleNames(), [], 'the container is still being prepared when the run starts');
      const r = await run(profile, 'echo warm\n', { warm: pool, profileName: 'soon' });
      await watch.stop();
      assert.equal(r.result.outcome, 'exited', r.result.message);
      assert.equal(r.stdout, 'warm\n');
      assert.ok(warmNames.has(r.result.containerName), `the run took the prepared container (warm: ${[...warmNames].join(', ')}; the run's: ${r.result.containerName})`);
      // The run above prepared a replacement; a run cancelled while waiting for it ends as cancelled, with no container of its own.
      await pool.dispose();
      const again = new WarmPool({ docker: engineDocker() });
      try {
        again.prepare({ name: 'later', profile });
        const abort = new AbortController();
        const cancelled = run(profile, 'echo never\n', { warm: again, profileName: 'later', signal: abort.signal });
        await delay(50);
        abort.abort();
        const c = await cancelled;
        assert.equal(c.result.outcome, 'cancelled', c.result.message);
        assert.equal(c.stdout, '');
      } finally {
        await again.dispose();
      }
    } finally {
      await watch.stop();
      await pool.dispose();
    }
  });

  it('a taken container\'s replacement starts after the run\'s program exits, or at once when another run asks for it', async () => {
    const pool = new WarmPool({ docker: engineDocker(), refillAfterMs: 120_000 });
    const named = { name: 'refill', profile: shellProfile() };
    try {
      pool.prepare(named);
      assert.equal(await pool.ready(named), true);
      const [first] = pool.idleNames();
      // While a run's program runs (from its first line to its last), no replacement is beside it.
      let running = false;
      const during = watchWarm('refill', () => running);
      const a = run(named.profile, 'echo a; sleep 3; echo z\n', {
        warm: pool,
        profileName: 'refill',
        onOutput: (stream, data) => {
          if (stream !== 'stdout') return;
          if (Buffer.from(data).toString().includes('a')) running = true;
          if (Buffer.from(data).toString().includes('z')) running = false;
        },
      });
      const ra = await a.finally(() => during.stop());
      assert.deepEqual([...during.seen], [first], 'only the running container, no replacement while its program runs');
      assert.equal(ra.result.outcome, 'exited', ra.result.message);
      assert.equal(ra.result.containerName, first);
      // After the exit the replacement is made.
      assert.equal(await pool.ready(named), true);
      const [second] = pool.idleNames();
      assert.ok(second && second !== first);
      // A second run while one runs: it asks for the replacement, which starts at once.
      const abort = new AbortController();
      let startedLong!: () => void;
      const longBegun = new Promise<void>((r) => (startedLong = r));
      const long = run(named.profile, 'echo long; sleep 60\n', { warm: pool, profileName: 'refill', signal: abort.signal, onOutput: () => startedLong() });
      await longBegun;
      const watchB = watchWarm('refill');
      const seen = watchB.seen;
      const b = await run(named.profile, 'echo b\n', { warm: pool, profileName: 'refill' }).finally(() => watchB.stop());
      assert.equal(b.result.outcome, 'exited', b.result.message);
      assert.equal(b.stdout, 'b\n');
      assert.ok(seen.has(b.result.containerName) && b.result.containerName !== second, `the second run took the replacement, a warm container (warm: ${[...seen].join(', ')}; the run's: ${b.result.containerName})`);
      abort.abort();
      const rl = await long;
      assert.equal(rl.result.outcome, 'cancelled', 'the long run was still running when the second run ended');
      assert.equal(rl.result.containerName, second);
    } finally {
      await pool.dispose();
    }
  });

  it('runs concurrent snippets independently', async () => {
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => run(shellProfile(), `echo run ${n}; exit ${n}\n`)),
    );
    assert.deepEqual(results.map((r) => [r.result.exitCode, r.stdout]), [1, 2, 3, 4].map((n) => [n, `run ${n}\n`]));
  });
});

describe('isolation floor on a real engine (engine)', function () {
  this.timeout(60_000);
  before(requireEngine);
  afterEach(async () => {
    assert.deepEqual(await productContainers(), []);
  });

  it('has no network: only the loopback interface, and the host bridge gateway is unreachable', async () => {
    const gateway = await bridgeGateway();
    const code = [
      'import socket',
      'print(sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").readlines()[2:]))',
      'try:',
      `    socket.create_connection(("${gateway}", 2375), timeout=2)`,
      '    print("connected")',
      'except OSError as e:',
      '    print("blocked", e.errno)',
    ].join('\n');
    const r = await run(pythonProfile(), code);
    // No route: 101 = ENETUNREACH from Linux; gVisor's own network stack says 113 = EHOSTUNREACH.
    assert.match(r.stdout, /^\['lo'\]\nblocked (101|113)\n$/);
    // Control: with the opt-in bridge network the same address is routable (connected, or refused
    // by the host: 111 = ECONNREFUSED), so the probe above tested a real address. An engine without
    // a bridge (engine 2) has no route to any host address: the control runs on the local engine.
    const open = await run(pythonProfile(BRIDGE), code, { docker: await routedEngine() });
    assert.match(open.stdout, /^\['eth0', 'lo'\]\n(connected|blocked 111)\n$/, open.stdout + open.stderr);
  });

  it('runs as a non-root user with no capabilities and no new privileges', async () => {
    const r = await run(shellProfile(), 'id -u; id -g; grep -E "^(CapEff|CapPrm|CapBnd|NoNewPrivs)" /proc/self/status\n');
    // gVisor's /proc/<pid>/status has no NoNewPrivs line: there the escape suite's setuid-root
    // attempt ("gain root through a setuid-root binary") shows the flag at work, on both runtimes.
    const noNewPrivs = TEST_RUNTIME === 'runsc' ? '' : 'NoNewPrivs:\t1\n';
    assert.equal(
      r.stdout,
      `65534\n65534\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n${noNewPrivs}`,
    );
  });

  it('has a read-only root, a noexec /tmp, a writable workdir and HOME, and the snippet in its own tmpfs', async () => {
    const code = [
      'touch /etc/x 2>/dev/null && echo root-writable || echo root-ro',
      'touch /sandbox/x 2>/dev/null && echo snippet-writable || echo snippet-ro',
      'cp /bin/busybox /tmp/b && (/tmp/b true 2>/dev/null && echo tmp-exec || echo tmp-noexec)',
      'echo hi > ./f && cat ./f && pwd',
      'echo $HOME && touch "$HOME/.x" && echo home-ok',
    ].join('\n');
    const r = await run(shellProfile(), code + '\n');
    // Cold and warm alike: the snippet was written from stdin into the container's own tmpfs (no
    // host path exists to protect), which the program may change.
    const snippet = 'snippet-writable';
    assert.equal(r.stdout, `root-ro\n${snippet}\ntmp-noexec\nhi\n/workspace\n/home/sandbox\nhome-ok\n`);
  });

  // Issue 25: "Read-only root named" (a hint from the program's last error lines, after a non-zero exit only).
  it('names the read-only root as a hint when a failed program\'s last error is a write outside its writable places', async () => {
    const py = await run(pythonProfile(), 'open("/var/tmp/x", "w")\n');
    assert.equal(py.result.exitCode, 1, py.result.message);
    assert.match(py.stderr, /Read-only file system: '\/var\/tmp\/x'/);
    assert.deepEqual([py.result.rule?.key, py.result.rule?.certain], ['mounts', false]);
    assert.match(py.result.message, /^Exited with code 1 in \d+ ms\. The program's last error names a write to a read-only file system \(a hint from its output\): the root filesystem is read-only; write under \/tmp or HOME \(\/home\/sandbox\) or the working directory/);
    // A world-writable directory of the read-only root (the python image's /var/tmp): under gVisor a
    // write to a root-owned directory (busybox's /x) meets EACCES before EROFS, as its kernel checks
    // permissions first; a write the permissions allow meets the read-only root on both runtimes.
    const sh = await run(shellProfile({ image: IMAGES.python }), 'echo x > /var/tmp/x\n');
    assert.notEqual(sh.result.exitCode, 0);
    assert.equal(sh.result.rule?.key, 'mounts', `${sh.stderr} ${sh.result.message}`);
    // Where writing works, or the same words with exit 0: no hint.
    const tmp = await run(shellProfile(), 'echo x > /tmp/x && cat /tmp/x\n');
    assert.equal(tmp.result.exitCode, 0);
    assert.equal(tmp.result.rule, undefined);
    const said = await run(shellProfile(), 'echo "can\'t create /x: Read-only file system" >&2\n');
    assert.equal(said.result.exitCode, 0);
    assert.equal(said.result.rule, undefined);
  });

  it('holds a fork bomb at the pids limit and a file-size bomb at the fsize limit', async () => {
    // Under gVisor the limit also holds gVisor's own host tasks, so it starts at RUNSC_MIN_PIDS there.
    // Forks until the kernel refuses one (each child sleeps): refused below the limit, on both runtimes.
    const limit = TEST_RUNTIME === 'runsc' ? RUNSC_MIN_PIDS : 16;
    const code = [
      'import os, time',
      'n = 0',
      `for i in range(${limit * 2}):`,
      '    try:',
      '        pid = os.fork()',
      '    except OSError as e:',
      '        print("refused", n, flush=True)',
      '        break',
      '    if pid == 0:',
      '        time.sleep(5)',
      '        os._exit(0)',
      '    n += 1',
      'else:',
      '    print("forked", n, flush=True)',
    ].join('\n');
    const pids = await run(pythonProfile({ limits: { pids: limit, timeoutSeconds: 20 } }), code);
    const why = `${pids.stdout}${pids.stderr}${pids.result.message}`;
    assert.doesNotMatch(pids.stdout, /forked/, why);
    if (TEST_RUNTIME === 'runsc') {
      // gVisor ends the program when it cannot give it a host task (exit 2, no Python error): the
      // host's pids cgroup refused it, and the runner names the rule from that kernel evidence.
      assert.match(pids.result.message, /The process limit limits\.pids \(\d+, threads count too\) refused/, why);
    } else {
      const m = /^refused (\d+)$/.exec(pids.stdout.trim());
      assert.ok(m && Number(m[1]) > 0 && Number(m[1]) < limit, why);
    }
    const fsize = await run(shellProfile({ limits: { fileSizeMiB: 1 } }), 'dd if=/dev/zero of=/tmp/big bs=1024 count=4096 2>/dev/null; wc -c < /tmp/big\n');
    assert.equal(fsize.stdout.trim(), String(1024 * 1024));
  });

  it('passes only the profile env, never the host environment', async () => {
    process.env.SANDBOX_RUNNER_HOST_SECRET = 'do-not-leak';
    try {
      const r = await run(shellProfile({ env: { GREETING: 'hi there' } }), 'env | sort\n');
      assert.doesNotMatch(r.stdout, /do-not-leak|SANDBOX_RUNNER_HOST_SECRET/);
      assert.match(r.stdout, /^GREETING=hi there$/m);
      assert.match(r.stdout, /^HOME=\/home\/sandbox$/m);
    } finally {
      delete process.env.SANDBOX_RUNNER_HOST_SECRET;
    }
  });
});

describe('pre-code checks on a real engine (engine)', function () {
  this.timeout(60_000);

  // The /proc proof is a local engine's (the engine mounts this process's descriptors): on an
  // engine that cannot see this machine it runs on the local engine, as a control of the same code.
  it('proves through /proc/<pid> (the init process; under gVisor the gofer) that the mount target is the checked directory, read-only where asked, before any code is sent', async () => {
    await requireEngine();
    const local = engineIsLocal() ? {} : { host: LOCAL_DOCKER_HOST };
    const root = await mkdtemp(join(tmpdir(), 'sr-proof-'));
    const [checked, other] = [join(root, 'checked'), join(root, 'other')];
    await Promise.all([mkdir(checked), mkdir(other)]);
    const profile = shellProfile({ mounts: [{ source: checked, target: '/data', mode: 'rw' }] });
    const pins = await resolveMounts({ name: 'proof', profile }, [], { docker: local });
    const name = `sandbox-runner-${randomUUID()}`;
    const argv = buildRunArgv({ name, profile, snippetFileName: 'main.sh', mounts: pins.mounts, labels: ownerLabels(name.slice(15), 'proof') });
    const lease = openRunLease(local, 'cold', name, argv);
    try {
      assert.ok(pins.mounts[0]?.pinned, 'a local engine mounts the pinned descriptor');
      assert.equal(await admitContainer(local, lease, profile, pins.mounts), true);
      assert.ok(lease.pid > 0);
      // Through the process that holds the container's files: the init process (runc), the gofer (gVisor).
      const id = String((await inspectContainer(local, name)).Id ?? '');
      const proof = (mounts: typeof pins.mounts) => mountProofProblems(id, lease.pid, mounts);
      assert.deepEqual(await proof(pins.mounts), []);
      // The same container against another pinned directory, and against a read-only wish: refused.
      const otherPins = await resolveMounts({ name: 'proof', profile: shellProfile({ mounts: [{ source: other, target: '/data', mode: 'rw' }] }) }, [], { docker: local });
      try {
        assert.match((await proof(otherPins.mounts)).join('\n'), /not the checked directory/);
      } finally {
        await otherPins.dispose();
      }
      assert.match((await proof(pins.mounts.map((m) => ({ ...m, readOnly: true })))).join('\n'), /not read-only/);
    } finally {
      lease.kill();
      await pins.dispose();
      await scheduleRemoval(local, name, lease.exit);
      await rm(root, { recursive: true, force: true });
    }
  });

  it('takes the engine\'s State.Pid for a host pid only when /proc/<pid>/cgroup names the container (an engine in another pid namespace gives its own pids)', async () => {
    await requireEngine();
    const profile = shellProfile();
    const name = `sandbox-runner-${randomUUID()}`;
    const docker = engineDocker() ?? {};
    const argv = buildRunArgv({ name, profile, snippetFileName: 'main.sh', mounts: [], labels: ownerLabels(name.slice(15), 'pid'), ...(await engineSpec(docker)) });
    const lease = openRunLease(docker, 'cold', name, argv);
    try {
      assert.equal(await admitContainer(docker, lease, profile, []), true);
      // Two plain fields: Podman's `{{json .}}` is not the docker inspect shape.
      const field = async (f: string) => String((await engineCli(['inspect', '--format', f, name])).stdout).trim();
      const inspected = { Id: await field('{{.Id}}'), State: { Pid: Number(await field('{{.State.Pid}}')) } };
      assert.ok(inspected.State.Pid > 0, 'the engine reports a pid');
      const hostCgroup = await readFile(`/proc/${inspected.State.Pid}/cgroup`, 'utf8').catch(() => '');
      if (engineIsLocal()) {
        assert.equal(lease.pid, inspected.State.Pid, 'a local engine\'s pid is this host\'s');
        assert.ok(hostCgroup.includes(inspected.Id), `the host's /proc/${lease.pid}/cgroup names the container`);
      } else {
        // Engine 2 (own pid namespace): its pid is some other process of this host, or none.
        assert.ok(!hostCgroup.includes(inspected.Id), 'premise: the engine\'s pid is not the container on this host');
        assert.equal(lease.pid, 0, `the engine's pid ${inspected.State.Pid} was taken for a host pid`);
      }
    } finally {
      lease.kill();
      await scheduleRemoval(docker, name, lease.exit);
    }
  });
});
