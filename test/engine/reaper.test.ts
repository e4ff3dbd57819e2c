/**
 * The orphan sweep against the real engine. Containers are created (not run) with hand-made owner
 * labels for each liveness case; only the provably dead owners' containers may go. Assertions are
 * about this suite's own containers only: other users of the engine may have theirs.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import {
  anchorRoots, currentBootId, currentPidNamespace, currentStartTime, isSandboxError, LABELS, PRODUCT_LABEL, reapOrphans,
  removeOwnContainers, resolveEndpoint, runInSandbox, statStartTime,
} from '../../src/core';
import { chunkText, containerExists, engineCli, IMAGES, requireEngine, shellProfile, waitFor } from './helpers';

const CLI = resolve(__dirname, '../../../dist/cli.js');
/** The profile label of this suite's containers (they are named as the product names them). */
const SUITE = `reaptest-${randomUUID().slice(0, 8)}`;
/** An image whose Dockerfile carries the product's labels (built here from the busybox test image). */
const LABELLED_IMAGE = `sandbox-runner-test/labelled-${SUITE}:1`;

/** Labels as `ownerLabels` makes them, for owner `pid`, with `over` replacing some. */
function labelsFor(pid: number, start: string, over: Record<string, string | undefined> = {}): Record<string, string> {
  const all: Record<string, string | undefined> = {
    [PRODUCT_LABEL]: '1',
    [LABELS.ownerPid]: String(pid),
    [LABELS.ownerPidNamespace]: currentPidNamespace(),
    [LABELS.ownerStart]: start,
    [LABELS.ownerBoot]: currentBootId(),
    [LABELS.host]: hostname(),
    [LABELS.runId]: randomUUID(),
    [LABELS.profile]: SUITE,
    ...over,
  };
  return Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
}

/**
 * Creates a product-labelled container (optionally started) named as the product names its own:
 * `sandbox-runner-<run-id label>`. `suffix` only tells the cases apart in failures.
 */
async function make(suffix: string, labels: Record<string, string>, started = false): Promise<string> {
  assert.ok(suffix);
  const name = `sandbox-runner-${labels[LABELS.runId]}`;
  const args = ['create', '--name', name, '--network', 'none', '--user', '65534:65534', '--cap-drop', 'ALL', '--log-driver', 'none'];
  for (const [k, v] of Object.entries(labels)) args.push('--label', `${k}=${v}`);
  await engineCli([...args, IMAGES.busybox, 'sleep', '60']);
  if (started) await engineCli(['start', name]);
  return name;
}

/** Start time (clock ticks since boot) of a live process. */
const startOf = (pid: number) => statStartTime(readFileSync(`/proc/${pid}/stat`, 'utf8'))!;

/** A pid that no process has (a child that already exited and was reaped). */
async function deadPid(): Promise<number> {
  const child = execa('true');
  await child;
  const pid = child.pid!;
  assert.throws(() => process.kill(pid, 0), /ESRCH/);
  return pid;
}

describe('orphan sweep (engine)', function () {
  this.timeout(60_000);
  // A live owner for the whole suite: started when the suite starts, not when mocha loads the file
  // (the suites before this one can take longer than any fixed sleep).
  let sleeper: ReturnType<typeof execa>;

  before(async () => {
    await requireEngine();
    sleeper = execa('sleep', ['600'], { reject: false });
  });
  after(async () => {
    sleeper.kill('SIGKILL');
    await sleeper;
    const left = String((await engineCli(['ps', '-aq', '--filter', `label=${LABELS.profile}=${SUITE}`])).stdout).split('\n').filter(Boolean);
    if (left.length) await engineCli(['rm', '-f', ...left], { reject: false });
    await engineCli(['image', 'rm', '-f', LABELLED_IMAGE], { reject: false });
  });

  it('removes only the containers whose owner is provably gone, and says why it keeps the others', async () => {
    const dead = await deadPid();
    const live = sleeper.pid!;
    const names = {
      dead: await make('dead', labelsFor(dead, '12345')),
      deadRunning: await make('dead-running', labelsFor(dead, '12345'), true),
      deadNoStart: await make('dead-no-start-label', labelsFor(dead, '', { [LABELS.ownerStart]: undefined })),
      reused: await make('pid-reused', labelsFor(live, String(Number(startOf(live)) + 1))),
      alive: await make('alive', labelsFor(live, startOf(live))),
      otherHost: await make('other-host', labelsFor(dead, '1', { [LABELS.host]: 'another-machine' })),
      otherNs: await make('other-pidns', labelsFor(dead, '1', { [LABELS.ownerPidNamespace]: 'pid:[4026530000]' })),
      otherBoot: await make('other-boot', labelsFor(dead, '1', { [LABELS.ownerBoot]: '00000000-0000-0000-0000-000000000000' })),
      // Another client of a shared engine with this host name, in its initial pid namespace (the
      // same inode on every machine), made by a version without the boot label: not provably ours.
      noBoot: await make('no-boot', labelsFor(dead, '1', { [LABELS.ownerBoot]: undefined })),
      noNs: await make('no-pidns', labelsFor(dead, '1', { [LABELS.ownerPidNamespace]: undefined })),
      badPid: await make('bad-pid', labelsFor(dead, '1', { [LABELS.ownerPid]: 'abc' })),
      self: await make('self', labelsFor(process.pid, currentStartTime())),
    };

    const report = await reapOrphans();
    const mine = new Set(Object.values(names));
    const removed = report.removed.filter((n) => mine.has(n)).sort();
    const kept = Object.fromEntries(report.kept.filter((k) => mine.has(k.name)).map((k) => [k.name, k.reason]));

    assert.deepEqual(removed, [names.dead, names.deadRunning, names.deadNoStart, names.reused].sort());
    for (const n of removed) assert.equal(await containerExists(n), false, n);
    assert.match(kept[names.alive]!, new RegExp(`its owner \\(pid ${live}\\) is still running`));
    assert.match(kept[names.otherHost]!, /liveness is unknown: it was started on host "another-machine"/);
    assert.match(kept[names.otherNs]!, /liveness is unknown: its owner ran in pid namespace pid:\[4026530000\]/);
    assert.match(kept[names.otherBoot]!, /liveness is unknown: its owner ran under another boot/);
    assert.match(kept[names.noBoot]!, /liveness is unknown: the owner-boot label is missing/);
    assert.match(kept[names.noNs]!, /liveness is unknown: the owner-pidns label is missing/);
    assert.match(kept[names.badPid]!, /liveness is unknown: the owner-pid label is missing or malformed/);
    assert.match(kept[names.self]!, /belongs to this process/);
    for (const n of Object.keys(kept)) assert.equal(await containerExists(n), true, n);

    // Shutdown: this process's own containers go, nobody else's.
    const own = await removeOwnContainers();
    assert.deepEqual(own.removed.filter((n) => mine.has(n)), [names.self]);
    assert.equal(await containerExists(names.self), false);
    assert.equal(await containerExists(names.alive), true);
  });

  it('sweeps the engine chosen by the options (a context, through the API and dial-stdio): this client\'s dead owner goes, another client\'s stays', async () => {
    const config = await mkdtemp(join(tmpdir(), 'sr-reap-config-'));
    try {
      const socket = resolveEndpoint({})?.socketPath;
      assert.ok(socket, 'this suite runs against a unix socket engine');
      await execa('docker', ['context', 'create', 'sr-reap', '--docker', `host=unix://${socket}`], { env: { DOCKER_CONFIG: config } });
      for (const controlTransport of ['auto', 'dial-stdio'] as const) {
        const dead = await deadPid();
        const mineDead = await make('this-client-dead', labelsFor(dead, '5'));
        // Another client host with the same host name (the boot id tells them apart).
        const otherClient = await make('other-client', labelsFor(dead, '5', { [LABELS.ownerBoot]: randomUUID() }));
        // DOCKER_HOST points nowhere: only the context option can reach the engine.
        const docker = { env: { DOCKER_CONFIG: config, DOCKER_HOST: 'unix:///nonexistent/docker.sock' }, context: 'sr-reap', controlTransport };
        const report = await reapOrphans({ docker });
        assert.ok(report.removed.includes(mineDead), `${controlTransport}: ${JSON.stringify(report)}`);
        assert.match(report.kept.find((k) => k.name === otherClient)?.reason ?? '', /another boot or client host/);
        assert.equal(await containerExists(mineDead), false);
        assert.equal(await containerExists(otherClient), true);
        await execa('docker', ['rm', '-f', otherClient]);
      }
    } finally {
      await rm(config, { recursive: true, force: true });
    }
  });

  it('sandbox-run --reap also removes the pin anchor folder of a SIGKILLed run with a mount', async () => {
    const ws = await mkdtemp(join(tmpdir(), 'sr-reap-ws-'));
    const data = await mkdtemp(join(tmpdir(), 'sr-reap-data-'));
    const anchors = async () =>
      (await Promise.all(anchorRoots().map((root) => readdir(root).catch(() => [] as string[])))).flat().filter((n) => n.startsWith('sandbox-runner-pin-'));
    try {
      await mkdir(join(ws, '.vscode'));
      await writeFile(join(ws, '.vscode', 'settings.json'), JSON.stringify({
        'sandboxRunner.profiles': { m: { image: IMAGES.busybox, command: ['sh', '${file}'], extensions: ['.sh'], mounts: [{ source: data, target: '/mnt/d' }] } },
      }));
      await writeFile(join(ws, 's.sh'), 'echo up; sleep 30\n');
      const before = new Set(await anchors());
      const child = execa('node', [CLI, '--workspace', ws, '--allow-loosening', join(ws, 's.sh')], { reject: false, buffer: { stdout: false } });
      let out = '';
      child.stdout?.on('data', (d: Buffer) => (out += chunkText(d)));
      await waitFor(() => out.includes('up'), 20_000, 'the run to start');
      const mine = (await anchors()).filter((n) => !before.has(n) && n.startsWith(`sandbox-runner-pin-${child.pid}-`));
      assert.equal(mine.length, 1, 'the run pinned its mount through one anchor named after its owner');
      child.kill('SIGKILL');
      await child;
      const r = await execa('node', [CLI, '--reap'], { reject: false });
      assert.equal(r.exitCode, 0, String(r.stderr));
      assert.match(String(r.stdout), new RegExp(`removed\t.*${mine[0]}`));
      assert.deepEqual((await anchors()).filter((n) => mine.includes(n)), [], 'the anchor folder was left behind');
    } finally {
      await rm(ws, { recursive: true, force: true });
      await rm(data, { recursive: true, force: true });
    }
  });

  it('sandbox-run --reap removes an orphan, keeps a live run, and exits 0', async () => {
    const orphan = await make('cli-orphan', labelsFor(await deadPid(), '7'), true);
    let out = '';
    const controller = new AbortController();
    const pending = runInSandbox({
      profileName: 'reaper',
      profile: shellProfile(),
      code: 'echo started; sleep 30\n',
      signal: controller.signal,
      onOutput: (_s, t) => (out += chunkText(t)),
    });
    try {
      await waitFor(() => out.includes('started'), 20_000, 'the run to start');
      const r = await execa('node', [CLI, '--reap'], { reject: false });
      assert.equal(r.exitCode, 0, String(r.stderr));
      assert.match(String(r.stdout), new RegExp(`^removed\\t${orphan}$`, 'm'));
      assert.match(String(r.stdout), new RegExp(`^kept\\tsandbox-runner-[0-9a-f-]{36}\\tits owner \\(pid ${process.pid}\\) is still running$`, 'm'));
      assert.match(String(r.stderr), /^sandbox-run: removed [1-9]\d* orphaned container\(s\), kept [1-9]\d* \(engine [^)]*\)\.$/m);
      assert.equal(await containerExists(orphan), false);
    } finally {
      controller.abort();
    }
    assert.equal((await pending).outcome, 'cancelled', 'the sweep must not have touched the live run');
  });

  it('an unreachable engine is an error, not an empty sweep', async () => {
    const env = { DOCKER_HOST: 'unix:///nonexistent/docker.sock' };
    await assert.rejects(reapOrphans({ docker: { env } }), (e: unknown) => isSandboxError(e) && e.code === 'daemon-unreachable');
    const r = await execa('node', [CLI, '--reap'], { reject: false, env });
    assert.equal(r.exitCode, 125);
    assert.match(String(r.stderr), /The Docker engine of host "unix:\/\/\/nonexistent\/docker\.sock" is not reachable\. Check that this engine is running/);
  });
  it('keeps a container whose product labels come from its image, not from the product', async () => {
    const dead = await deadPid();
    // The image's LABEL lines: a dead owner pid and this host's ids, as a real orphan would have.
    const labels = labelsFor(dead, '12345');
    const dockerfile = [`FROM ${IMAGES.busybox}`, ...Object.entries(labels).map(([k, v]) => `LABEL ${JSON.stringify(k)}=${JSON.stringify(v)}`)].join('\n');
    await engineCli(['build', '--network', 'none', '-q', '-t', LABELLED_IMAGE, '-'], { input: dockerfile + '\n', env: { DOCKER_BUILDKIT: '0' } });
    // Another tool's containers from that image: one with its own name, one even named like ours
    // (for the image's run id), both stopped, as orphans are.
    const other = `othertool-${SUITE}`;
    const lookalike = `sandbox-runner-${labels[LABELS.runId]}`;
    for (const name of [other, lookalike]) {
      await engineCli(['create', '--name', name, '--network', 'none', '--log-driver', 'none', '--label', `${LABELS.profile}=${SUITE}`, LABELLED_IMAGE, 'true']);
    }
    const seen = String((await engineCli(['inspect', '--format', `{{index .Config.Labels "${LABELS.ownerPid}"}}`, other])).stdout).trim();
    assert.equal(seen, String(dead), 'the container carries the image\'s owner labels');
    const report = await reapOrphans();
    assert.equal(report.removed.includes(other), false);
    assert.equal(report.removed.includes(lookalike), false);
    assert.match(report.kept.find((k) => k.name === other)?.reason ?? '', /its name is not sandbox-runner-<run id>/);
    assert.match(report.kept.find((k) => k.name === lookalike)?.reason ?? '', /its image carries the product's labels/);
    assert.equal(await containerExists(other), true);
    assert.equal(await containerExists(lookalike), true);
    await engineCli(['rm', '-f', other, lookalike]);
  });
});
