/**
 * Fault injection against the real engine: engine unreachable, crashed or hung, the attached CLI
 * or the container killed mid-run, the docker binary missing, the runner process killed, races
 * between cancel, timeout and exit, full file systems and hostile output. After every fault no
 * container of this process and no snippet directory may remain, and no run may hang.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { LABELS } from '../../src/core/ownership/labels';
import { leasePathFor, leasePeriodMs, STALE_PERIODS } from '../../src/core/ownership/ownerLease';
import { procEvidenceOff } from '../../src/core/engine/procLiveness';
import { runInSandbox } from '../../src/core/run/runner';
import { stateDir } from '../../src/core/stateDir';
import type { RunRequest } from '../../src/core/run/request';
import type { RunResult } from '../../src/core/run/result';
import { chunkText, CLI, cliEnv, containerExists, daemonOnly, dockerBin, engineCli, engineDocker, IMAGES, productContainers, requireEngine, requireSomeRan, shellProfile, waitFor } from './helpers';

let faults = 0;
let leaked = 0;
let root: string;
/** Per-run snippet directories are made here, so a leftover one is seen. */
let snippets: string;

/** One fault kind: counted; afterwards no container of this process and no snippet directory may remain. */
function fault(title: string, timeoutMs: number, fn: () => Promise<void>): void {
  it(title, async function () {
    this.timeout(timeoutMs);
    faults += 1;
    let failure: unknown;
    try {
      await fn();
    } catch (e) {
      failure = e;
    }
    // Counted (and cleaned, so the next fault starts clean) even when the fault's own checks failed.
    const containers = await productContainers();
    const dirs = await readdir(snippets);
    leaked += containers.length + dirs.length;
    await Promise.all(containers.map((c) => engineCli(['rm', '-f', '-v', c], { reject: false })));
    await Promise.all(dirs.map((d) => rm(join(snippets, d), { recursive: true, force: true })));
    if (failure) throw failure;
    assert.deepEqual(containers, [], 'leaked containers');
    assert.deepEqual(dirs, [], 'leaked snippet directories');
  });
}

/** Output of one cold-path run, by stream. */
interface Ran {
  readonly result: RunResult;
  readonly stdout: string;
  readonly stderr: string;
  /** The container name, known once `docker create` was about to run. */
  readonly name: () => string | undefined;
}

/** Starts a cold-path run (never the warm pool) with the snippet under {@link snippets}. */
function start(code: string, extra: Partial<RunRequest> & { profile?: RunRequest['profile'] } = {}): { done: Promise<Ran>; name: () => string | undefined; output: () => string } {
  let stdout = '';
  let stderr = '';
  let name: string | undefined;
  const done = runInSandbox({
    profileName: 'fault',
    profile: extra.profile ?? shellProfile({ limits: { timeoutSeconds: 20 } }),
    code,
    tempRoot: snippets,
    onOutput: (s, t) => {
      if (s === 'stdout') stdout += chunkText(t);
      else if (s === 'stderr') stderr += chunkText(t);
    },
    onArgv: (argv) => (name = argv[argv.indexOf('--name') + 1]),
    docker: engineDocker(),
    ...extra,
  }).then((result) => ({ result, stdout, stderr, name: () => name }));
  return { done, name: () => name, output: () => stdout };
}

const runCold = (code: string, extra: Partial<RunRequest> = {}) => start(code, extra).done;

/** The engine CLI under test (see helpers' ENGINE), single-quoted for the fake docker scripts below. */
const DOCKER = `'${dockerBin().replace(/'/g, `'\\''`)}'`;

/** A shell script used as `dockerPath`: a docker CLI with one behaviour changed. */
async function fakeDocker(fileName: string, body: string): Promise<string> {
  const path = join(root, fileName);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

describe('fault injection (engine)', function () {
  this.timeout(60_000);

  before(async () => {
    await requireEngine();
    root = await mkdtemp(join(tmpdir(), 'sr-fault-'));
    snippets = join(root, 'snippets');
    await mkdir(snippets);
  });

  after(async () => {
    if (root) await rm(root, { recursive: true, force: true });
    console.log(`    fault suite: ${faults} faults, ${leaked} leaked`);
    requireSomeRan('fault suite', faults, 'faults');
  });

  const NO_DAEMON = 'Podman has no daemon or socket: each CLI call is the engine, and DOCKER_HOST does not reach it';
  daemonOnly('engine unreachable at start (DOCKER_HOST points at a missing socket)', NO_DAEMON, () => fault('engine unreachable at start (DOCKER_HOST points at a missing socket)', 20_000, async () => {
    const r = await runCold('echo x\n', { docker: { env: { DOCKER_HOST: `unix://${join(root, 'nonexistent.sock')}` } } });
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'daemon-unreachable');
    assert.match(r.result.message, /The Docker engine of host "unix:\/\/.*nonexistent\.sock" is not reachable\. Check that this engine is running/);
    assert.equal(r.result.cleanupError, undefined);
  }));

  daemonOnly('engine crashed: a stale socket refuses connections', NO_DAEMON, () => fault('engine crashed: a stale socket refuses connections', 20_000, async () => {
    const sock = join(root, 'crashed.sock');
    // A server that dies without cleaning up leaves its socket file: connections are refused.
    const server = execa('node', ['-e', 'require("net").createServer().listen(process.argv[1], () => console.log("up"))', sock], { reject: false });
    await waitFor(() => existsSync(sock), 10_000, 'the socket');
    server.kill('SIGKILL');
    await server;
    assert.ok(existsSync(sock));
    const r = await runCold('echo x\n', { docker: { env: { DOCKER_HOST: `unix://${sock}` } } });
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'daemon-unreachable');
  }));

  daemonOnly('engine hung: the socket accepts but never answers', NO_DAEMON, () => fault('engine hung: the socket accepts but never answers', 20_000, async () => {
    const sock = join(root, 'hung.sock');
    const server = execa('node', ['-e', 'const s=[];require("net").createServer((c)=>s.push(c)).listen(process.argv[1], () => console.log("up"))', sock], { reject: false });
    try {
      await waitFor(() => existsSync(sock), 10_000, 'the socket');
      const t0 = Date.now();
      const r = await runCold('echo x\n', { docker: { env: { DOCKER_HOST: `unix://${sock}` }, controlTimeoutMs: 1500 } });
      assert.equal(r.result.outcome, 'failed-to-start');
      assert.equal(r.result.error?.code, 'engine-error');
      assert.match(r.result.message, /did not answer within 2 s/);
      assert.ok(Date.now() - t0 < 8000, `took ${Date.now() - t0} ms`);
      // The same with a time limit shorter than the hang: the limit times the program, which never
      // started, so the control timeout ends the run as the engine's failure, and nothing hangs.
      const t1 = Date.now();
      const short = await runCold('echo x\n', {
        profile: shellProfile({ limits: { timeoutSeconds: 0.5 } }),
        docker: { env: { DOCKER_HOST: `unix://${sock}` }, controlTimeoutMs: 1500 },
      });
      assert.equal(short.result.outcome, 'failed-to-start', short.result.message);
      assert.match(short.result.message, /did not answer within 2 s/);
      assert.ok(Date.now() - t1 < 8000, `took ${Date.now() - t1} ms`);
    } finally {
      server.kill('SIGKILL');
      await server;
    }
  }));

  fault('engine connection lost mid-run (the attached docker CLI is killed)', 30_000, async () => {
    const run = start('echo started; sleep 30\n');
    await waitFor(() => run.output().includes('started'), 20_000, 'the program to start');
    const name = run.name()!;
    const pids = String((await execa('pgrep', ['-f', `run --interactive .*--name ${name} `], { reject: false })).stdout).split('\n').filter(Boolean);
    assert.equal(pids.length, 1, `attached CLI processes: ${pids.join(',')}`);
    process.kill(Number(pids[0]), 'SIGKILL');
    const r = await run.done;
    assert.equal(r.result.outcome, 'engine-error');
    assert.match(r.result.message, /connection to the program was lost: "docker run" was killed by SIGKILL while the container was running/);
    assert.equal(r.result.exitCode, null, 'must not report the exit code of a program that was still running');
    assert.equal(await containerExists(name), false);
  });

  fault('container removed by someone else mid-run', 30_000, async () => {
    const run = start('echo started; sleep 30\n');
    await waitFor(() => run.output().includes('started'), 20_000, 'the program to start');
    await engineCli(['rm', '-f', run.name()!]);
    const r = await run.done;
    // `rm -f` stops the container, then removes it (Docker: SIGKILL; Podman: SIGTERM first). An
    // inspect between the two (seen on Podman under load, cold and warm) reads an exited container
    // killed by that signal: a true status, reported as such. Otherwise the status is gone with the
    // container: an engine error saying so.
    if (r.result.outcome === 'exited') {
      const byStop = { 137: 'SIGKILL', 143: 'SIGTERM' } as Record<number, string>;
      assert.ok(r.result.exitCode !== null && byStop[r.result.exitCode] !== undefined, r.result.message);
      assert.equal(r.result.signal, byStop[r.result.exitCode!], r.result.message);
    } else {
      assert.equal(r.result.outcome, 'engine-error', r.result.message);
      assert.match(r.result.message, /status could not be read|connection to the program was lost/);
    }
    assert.equal(r.result.cleanupError, undefined);
  });

  fault('docker binary missing, and not executable', 20_000, async () => {
    const missing = await runCold('echo x\n', { docker: { dockerPath: join(root, 'no-such-docker') } });
    assert.equal(missing.result.outcome, 'failed-to-start');
    assert.equal(missing.result.error?.code, 'docker-missing');
    assert.match(missing.result.message, /ENOENT/);
    const notExec = join(root, 'docker-not-executable');
    await writeFile(notExec, '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    const denied = await runCold('echo x\n', { docker: { dockerPath: notExec } });
    assert.equal(denied.result.outcome, 'failed-to-start');
    assert.equal(denied.result.error?.code, 'docker-missing');
    assert.match(denied.result.message, /EACCES/);
  });

  fault('image missing', 20_000, async () => {
    const r = await runCold('echo x\n', { profile: shellProfile({ image: 'sandbox-runner-test/absent:1' }) });
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'image-missing');
  });

  fault('the engine discards a limit (real engine warning: Block I/O weight)', 20_000, async () => {
    // The kernel here has no blkio weight; the engine creates the container anyway and warns.
    const dockerPath = await fakeDocker('docker-blkio', `if [ "$1" = run ]; then shift; exec ${DOCKER} run --blkio-weight 100 "$@"; fi\nexec ${DOCKER} "$@"`);
    const r = await runCold('echo ran\n', { docker: { dockerPath } });
    assert.equal(r.stdout, '');
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'limits-unsupported');
    assert.match(r.result.message, /cannot enforce block I\/O limit on this host \("Your kernel does not support Block I\/O weight/);
    assert.equal(await containerExists(r.result.containerName), false);
  });

  fault('the engine discards a limit (swap accounting off: memory limited without swap)', 20_000, async () => {
    const warning = 'WARNING: Your kernel does not support swap limit capabilities or the cgroup is not mounted. Memory limited without swap.';
    const dockerPath = await fakeDocker('docker-noswap', `if [ "$1" = run ]; then echo '${warning}' >&2; exec ${DOCKER} "$@"; fi\nexec ${DOCKER} "$@"`);
    const r = await runCold('echo ran\n', { docker: { dockerPath } });
    assert.equal(r.stdout, '');
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'limits-unsupported');
    assert.match(r.result.message, /limits\.memoryMiB \(swap off: --memory-swap\)/);
    assert.match(r.result.message, /swapaccount=1/);
    assert.equal(await containerExists(r.result.containerName), false);
  });

  fault('the client adds a variable to the container (a CLI wrapper adding --env): refused before the code is sent', 20_000, async () => {
    const dockerPath = await fakeDocker('docker-env', 'if [ "$1" = run ]; then shift; exec docker run --env INJECTED=1 "$@"; fi\nexec docker "$@"');
    const r = await runCold('echo ran\n', { docker: { dockerPath } });
    assert.equal(r.stdout, '');
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'container-refused');
    assert.match(r.result.message, /"INJECTED".*nothing was run\. Remove the engine or client setting/);
    assert.equal(await containerExists(r.result.containerName), false);
  });

  fault('the client mounts a host directory the profile never asked for: refused before the code is sent', 20_000, async () => {
    // /usr/share exists on any engine's host (a remote-like engine cannot see this client's /tmp).
    const dockerPath = await fakeDocker('docker-bind', `if [ "$1" = run ]; then shift; exec docker run --mount type=bind,src=/usr/share,dst=/peek,readonly "$@"; fi\nexec docker "$@"`);
    const r = await runCold('ls /peek\n', { docker: { dockerPath } });
    assert.equal(r.stdout, '');
    assert.equal(r.result.error?.code, 'container-refused');
    assert.match(r.result.message, /\/peek/);
    assert.equal(await containerExists(r.result.containerName), false);
  });

  fault('sandbox-run killed with SIGKILL mid-run, orphan removed by the next --reap', 40_000, async () => {
    const ws = join(root, 'ws');
    await mkdir(join(ws, '.vscode'), { recursive: true });
    await writeFile(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'sandboxRunner.profiles': { shell: { image: IMAGES.busybox } } }));
    const cli = execa('node', [CLI, '--workspace', ws, '--profile', 'shell', '-'], { reject: false, input: 'echo ready; sleep 60\n', env: cliEnv() });
    let out = '';
    cli.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('ready'), 20_000, 'the program to start');
    cli.kill('SIGKILL');
    await cli;
    const orphans = await productContainers(cli.pid!);
    assert.equal(orphans.length, 1, 'SIGKILL leaves the container (nothing can clean up in the killed process)');
    const name = orphans[0]!;
    const snippetDir = String((await engineCli(['inspect', '--format', '{{range .Mounts}}{{if eq .Destination "/sandbox"}}{{.Source}}{{end}}{{end}}', name])).stdout).trim();
    assert.equal(snippetDir, '', 'the code travelled over stdin: no host directory holds it');
    // The killed CLI's engine work directory (docker.ts engineWorkDir) is left too, until the sweep.
    const engineDirs = async () => (await readdir(tmpdir())).filter((n) => n.startsWith(`sandbox-runner-engine-${cli.pid}-`));
    assert.equal((await engineDirs()).length, 1, 'the killed CLI left its engine work directory');
    // Without /proc (SANDBOX_RUNNER_NO_PROC=1, as on macOS and Windows) only the owner lease can
    // prove the CLI dead: its file stays, and is stale after 6 refresh periods (the CLI inherits
    // this run's SANDBOX_RUNNER_LEASE_PERIOD_MS).
    if (procEvidenceOff()) await new Promise((r) => setTimeout(r, STALE_PERIODS * leasePeriodMs() + 700));
    // The killed CLI could not remove its lease file; this test does, after the sweep.
    const lease = String((await engineCli(['inspect', '--format', `{{index .Config.Labels "${LABELS.ownerLease}"}}`, name])).stdout).trim();
    const reap = await execa('node', [CLI, '--reap'], { reject: false, env: cliEnv() });
    assert.equal(reap.exitCode, 0, String(reap.stderr));
    assert.match(String(reap.stdout), new RegExp(`^removed\\t${name}$`, 'm'));
    assert.match(String(reap.stderr), /removed \d+ orphaned container\(s\)/);
    assert.deepEqual(await productContainers(cli.pid!), []);
    const leaseFile = leasePathFor(stateDir(), lease);
    if (leaseFile) await rm(leaseFile, { force: true });
    if (procEvidenceOff()) {
      // Engine work directories are judged by the pid and start time in their name, which needs
      // /proc (reaper.ts): without it the directory stays (a known gap). This test removes it.
      for (const n of await engineDirs()) await rm(join(tmpdir(), n), { recursive: true, force: true });
      return;
    }
    assert.deepEqual(await engineDirs(), [], 'the dead run\'s engine work directory was left');
  });

  fault('cancel racing normal exit (30 iterations)', 60_000, async () => {
    const outcomes: Record<string, number> = {};
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all([0, 1, 2].map(async () => {
        const controller = new AbortController();
        const delay = Math.floor(Math.random() * 700);
        const timer = setTimeout(() => controller.abort(), delay);
        const r = await runCold('echo hi\n', { signal: controller.signal });
        clearTimeout(timer);
        outcomes[r.result.outcome] = (outcomes[r.result.outcome] ?? 0) + 1;
        if (r.result.outcome === 'exited') {
          assert.equal(r.result.exitCode, 0);
          assert.equal(r.stdout, 'hi\n');
        } else {
          assert.equal(r.result.outcome, 'cancelled', `${r.result.outcome}: ${r.result.message}`);
          // Removed (null), or the program's own status when it ended within the interrupt grace
          // (whatever the shell makes of a SIGINT at that moment: 0, 2, 130…).
          assert.ok(r.result.exitCode === null || Number.isInteger(r.result.exitCode), `exit code ${r.result.exitCode}`);
        }
        assert.equal(r.result.cleanupError, undefined);
      }));
    }
    assert.equal((outcomes.exited ?? 0) + (outcomes.cancelled ?? 0), 30, JSON.stringify(outcomes));
  });

  fault('20 concurrent runs with random cancels', 240_000, async () => {
    // This fault is about cancels racing runs: the runs that must exit get a limit far above
    // their 3 s program.
    const unhurried = shellProfile({ limits: { timeoutSeconds: 200 } });
    const runs = Array.from({ length: 20 }, (_, i) => {
      const controller = new AbortController();
      const cancel = i % 2 === 0;
      const timer = cancel ? setTimeout(() => controller.abort(), Math.floor(Math.random() * 2000)) : undefined;
      return runCold(`echo start ${i}; sleep 3; echo done ${i}\n`, { signal: controller.signal, profile: unhurried }).then((r) => {
        clearTimeout(timer);
        return { i, cancel, r };
      });
    });
    for (const { i, cancel, r } of await Promise.all(runs)) {
      if (cancel) {
        assert.equal(r.result.outcome, 'cancelled', `run ${i}: ${r.result.message}`);
      } else {
        assert.equal(r.result.outcome, 'exited', `run ${i}: ${r.result.message}`);
        assert.equal(r.stdout, `start ${i}\ndone ${i}\n`);
      }
    }
  });

  fault('cancel before docker create (while mounts are checked and the snippet is written)', 30_000, async () => {
    // runInSandbox runs synchronously up to its first await; these aborts land before or during create.
    const aborts: ((abort: () => void) => void)[] = [
      (abort) => abort(),
      (abort) => queueMicrotask(abort),
      (abort) => setImmediate(abort),
      (abort) => setTimeout(abort, 1),
      (abort) => setTimeout(abort, 5),
      (abort) => setTimeout(abort, 20),
    ];
    for (const schedule of aborts) {
      const controller = new AbortController();
      const pending = runCold('echo ran\n', { signal: controller.signal });
      schedule(() => controller.abort());
      const r = await pending;
      assert.equal(r.result.outcome, 'cancelled', r.result.message);
      assert.equal(r.stdout, '');
      assert.equal(await containerExists(r.result.containerName), false, 'a container created after the cancel was left');
    }
  });

  fault('tiny timeouts right after the code was sent', 60_000, async () => {
    for (const t of [0.1, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.6]) {
      // The limit times the program (stop.ts `started`): it expires while the launcher reads the
      // frame or the shell starts. The program would sleep 60 s: a run that ends well before
      // shows the timeout ended it, on any runtime.
      const r = await runCold('sleep 60\n', { profile: shellProfile({ limits: { timeoutSeconds: t } }) });
      assert.equal(r.result.outcome, 'timed-out', `${t} s: ${r.result.message}`);
      assert.ok(r.result.durationMs < 30_000, `${t} s took ${r.result.durationMs} ms`);
      assert.equal(await containerExists(r.result.containerName), false);
    }
  });

  fault('the tmpfs fills up (ENOSPC is a normal exit)', 20_000, async () => {
    const r = await runCold('dd if=/dev/zero of=/tmp/fill bs=65536 count=64 2>/dev/null; echo "dd=$?"; wc -c < /tmp/fill; echo alive\n', {
      profile: shellProfile({ limits: { tmpfsMiB: 1, fileSizeMiB: 16 } }),
    });
    assert.equal(r.result.outcome, 'exited');
    assert.equal(r.result.exitCode, 0);
    const [dd, size, alive] = r.stdout.trim().split('\n');
    assert.equal(dd, 'dd=1');
    assert.ok(Number(size) <= 1024 * 1024, size);
    assert.equal(alive, 'alive');
  });

  fault('invalid UTF-8 output', 20_000, async () => {
    const r = await runCold("printf '\\377\\376ok\\n\\300'; printf '\\355\\240\\200' >&2\n");
    assert.equal(r.result.outcome, 'exited');
    assert.equal(r.result.stdout.bytesKept, 6);
    assert.equal(r.result.stderr.bytesKept, 3);
    assert.equal(r.stdout, '\uFFFD\uFFFDok\n\uFFFD');
    assert.ok(/^\uFFFD+$/.test(r.stderr), JSON.stringify(r.stderr));
  });

  fault('output on both streams at the bound at once', 20_000, async () => {
    const r = await runCold('yes out & yes err >&2 & wait\n', { profile: shellProfile({ limits: { outputBytes: 4096, timeoutSeconds: 20 } }) });
    assert.equal(r.result.outcome, 'output-limit');
    assert.ok(r.result.stdout.bytesKept <= 4096 && r.result.stderr.bytesKept <= 4096);
    assert.ok(r.result.stdout.truncated || r.result.stderr.truncated);
    assert.equal(Buffer.byteLength(r.stdout), r.result.stdout.bytesKept);
    assert.equal(Buffer.byteLength(r.stderr), r.result.stderr.bytesKept);
    assert.match(r.stdout, /^(out\n)*(o|ou|out)?$/);
    assert.match(r.stderr, /^(err\n)*(e|er|err)?$/);
    assert.ok(r.result.durationMs < 10_000);
  });

  fault('no host directory is written for a cold run (a missing temp root changes nothing)', 20_000, async () => {
    // Before issue 10 the snippet went through a per-run host directory under tempRoot: ENOENT here.
    const r = await runCold('echo x\n', { tempRoot: join(root, 'does-not-exist') });
    assert.equal(r.result.outcome, 'exited', r.result.message);
    assert.equal(r.stdout, 'x\n');
    assert.deepEqual(await readdir(snippets), [], 'nothing under the temp root either');
  });
});
