/**
 * Control calls (inspect, kill, remove, version) against the real engine, on each transport:
 * the Engine API over the unix socket, the Engine API through `docker system dial-stdio` (what
 * ssh and tcp contexts use; forced here for the local socket), and the docker CLI. The answers
 * must agree, and failures must map to the same typed errors.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { execa } from 'execa';
import { awaitRemovals, scheduleRemoval } from '../../src/core/container/removals';
import { controlApi } from '../../src/core/engine/control';
import { engineVersion } from '../../src/core/engine/engine';
import { imageVolumes, inspectContainer, inspectImage, inspectState } from '../../src/core/engine/inspect';
import { isSandboxError } from '../../src/core/errors';
import { listContainers, removeContainer, signalContainer } from '../../src/core/engine/containerOps';
import { resolveEndpoint } from '../../src/core/engine/endpoint';
import type { DockerOptions } from '../../src/core/engine/contracts';
import { containerExists, IMAGES, requireEngine, waitFor } from './helpers';

const TRANSPORTS: Record<string, DockerOptions> = {
  api: { controlTransport: 'auto' },
  'dial-stdio': { controlTransport: 'dial-stdio' },
  cli: { controlTransport: 'cli' },
};
const SUITE = `engineapi-${randomUUID().slice(0, 8)}`;

/** Creates (and optionally starts) a plain container labelled for this suite. */
async function make(started = false): Promise<string> {
  const name = `sr-engineapi-${randomUUID()}`;
  await execa('docker', ['create', '--name', name, '--label', `${SUITE}=1`, '--network', 'none', '--log-driver', 'none', IMAGES.busybox, 'sleep', '60']);
  if (started) await execa('docker', ['start', name]);
  return name;
}

/** `docker system dial-stdio` children of this process (pids). */
async function dialChildren(): Promise<number[]> {
  const out: number[] = [];
  for (const p of await readdir('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    const stat = await readFile(`/proc/${p}/stat`, 'utf8').catch(() => '');
    const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
    if (ppid !== String(process.pid)) continue;
    const cmd = (await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (cmd.includes('dial-stdio')) out.push(Number(p));
  }
  return out;
}

describe('engine API control calls (engine)', function () {
  this.timeout(60_000);
  before(requireEngine);
  after(async () => {
    const left = String((await execa('docker', ['ps', '-aq', '--filter', `label=${SUITE}=1`])).stdout).split('\n').filter(Boolean);
    if (left.length) await execa('docker', ['rm', '-f', ...left], { reject: false });
  });

  it('uses the API on this engine (Docker CLI, unix socket) and the CLI when asked', async () => {
    assert.equal((await controlApi({}))?.transport.kind, 'unix');
    assert.equal((await controlApi({ controlTransport: 'dial-stdio' }))?.transport.kind, 'dial-stdio');
    assert.equal(await controlApi({ controlTransport: 'cli' }), undefined);
    const v = await engineVersion({});
    const cli = String((await execa('docker', ['version', '--format', '{{.Server.Version}} {{.Server.APIVersion}}'])).stdout).trim();
    assert.equal(`${v.version} ${v.apiVersion}`, cli);
    assert.equal(v.via, 'api');
    assert.equal((await engineVersion({ controlTransport: 'dial-stdio' })).version, v.version);
    assert.equal((await engineVersion({ controlTransport: 'cli' })).version, v.version);
    assert.match(v.name, /Docker/);
  });

  for (const [transport, opts] of Object.entries(TRANSPORTS)) {
    it(`${transport}: inspect agrees with docker inspect, kill reaches a running container, remove removes`, async () => {
      const name = await make(true);
      const cli = JSON.parse(String((await execa('docker', ['container', 'inspect', name])).stdout)) as { Id: string; Name: string; State: { Pid: number } }[];
      const got = await inspectContainer(opts, name);
      assert.equal(got.Id, cli[0]!.Id);
      assert.equal(got.Name, cli[0]!.Name);
      assert.equal((got.Config?.Labels ?? {})[SUITE], '1');
      const state = await inspectState(opts, name);
      assert.equal(state.status, 'running');
      assert.equal(state.pid, cli[0]!.State.Pid);

      const listed = await listContainers(opts, [`${SUITE}=1`], [SUITE]);
      assert.ok(listed.some((c) => c.name === name && c.labels[SUITE] === '1'), JSON.stringify(listed));

      assert.equal(await signalContainer(opts, name, 'SIGKILL'), true);
      await waitFor(async () => (await inspectState(opts, name)).status === 'exited', 20_000, 'the container to exit');
      assert.equal((await inspectState(opts, name)).exitCode, 137);
      assert.equal(await signalContainer(opts, name, 'SIGKILL'), false, 'a stopped container cannot be signalled');

      await removeContainer(opts, name);
      assert.equal(await containerExists(name), false);
    });

    it(`${transport}: a missing container or image fails as the CLI path fails`, async () => {
      const missing = `sr-engineapi-missing-${randomUUID()}`;
      await removeContainer(opts, missing); // "No such container" is success
      assert.equal(await signalContainer(opts, missing, 'SIGINT'), false);
      await assert.rejects(inspectContainer(opts, missing), (e: unknown) =>
        isSandboxError(e) && e.code === 'engine-error' && e.message === `Docker could not inspect container ${missing}: No such container: ${missing}.`);
      await assert.rejects(inspectImage(opts, 'sandbox-runner-test/missing:1'), (e: unknown) => isSandboxError(e) && e.code === 'image-missing');
      assert.deepEqual(await imageVolumes(opts, IMAGES.volume), ['/data']);
      assert.deepEqual(await imageVolumes(opts, IMAGES.busybox), []);
      assert.equal((await inspectImage(opts, IMAGES.busybox)).Id, String((await execa('docker', ['image', 'inspect', '--format', '{{.Id}}', IMAGES.busybox])).stdout).trim());
    });

    it(`${transport}: an unreachable engine is "daemon-unreachable"`, async () => {
      await assert.rejects(inspectContainer({ ...opts, host: 'unix:///nonexistent/docker.sock' }, 'x'), (e: unknown) => isSandboxError(e) && e.code === 'daemon-unreachable');
    });

    it(`${transport}: a removal on an unreachable engine is a failure, unless the container may never have been created`, async () => {
      const nowhere = { ...opts, host: 'unix:///nonexistent/docker.sock' };
      await awaitRemovals();
      await scheduleRemoval(nowhere, `sandbox-runner-${randomUUID()}`, Promise.resolve(), () => true).catch(() => undefined);
      assert.deepEqual(await awaitRemovals(), [], 'a run that never reached the engine reports no failed cleanup');
      await scheduleRemoval(nowhere, `sandbox-runner-${randomUUID()}`).catch(() => undefined);
      const failures = await awaitRemovals();
      assert.equal(failures.length, 1);
      assert.match(failures[0]!.error, /not reachable/);
    });
  }

  it('a hung engine is an engine error after controlTimeoutMs, not a wait forever nor a CLI retry', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sr-engineapi-hung-'));
    const sock = join(dir, 'docker.sock');
    const held: Socket[] = [];
    const server = createServer((c) => held.push(c)); // accepts, never answers
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      const t0 = Date.now();
      await assert.rejects(inspectContainer({ host: `unix://${sock}`, controlTimeoutMs: 400 }, 'x'), (e: unknown) =>
        isSandboxError(e) && e.code === 'engine-error' && /did not answer/.test(e.message));
      const took = Date.now() - t0;
      assert.ok(took >= 380 && took < 5000, `took ${took} ms`);
    } finally {
      held.forEach((c) => c.destroy());
      await new Promise((r) => server.close(r));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('dial-stdio keeps one connection for many calls', async () => {
    const opts = { controlTransport: 'dial-stdio' } as const;
    const names = await Promise.all([make(), make()]);
    for (let i = 0; i < 5; i++) await Promise.all(names.map((n) => inspectContainer(opts, n)));
    assert.equal((await dialChildren()).length, 1, 'one dial-stdio child serves every call');
    for (const n of names) await removeContainer(opts, n);
  });

  it('an idle dial-stdio child never keeps Node alive: a process that made calls through it exits by itself', async () => {
    // Proved in a separate Node process: counting this process's handles also counts whatever
    // earlier tests left running in the background (seen in CI), so it cannot prove the property.
    const name = await make();
    const script = `import { inspectContainer } from ${JSON.stringify(join(process.cwd(), 'src/core/engine/inspect'))};
      (async () => { for (let i = 0; i < 5; i++) await inspectContainer({ controlTransport: 'dial-stdio' }, process.argv[2]); console.log('calls done'); })()
        .catch((e) => { console.error(e); process.exitCode = 3; });`;
    const bundle = await build({ stdin: { contents: script, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'silent' });
    const child = execa(process.execPath, ['-', name], { input: bundle.outputFiles[0]!.text, reject: false, timeout: 30_000 });
    const result = await child;
    assert.equal(result.timedOut, false, 'the process was still alive 30 s after its last call: an idle dial-stdio child kept it alive');
    assert.equal(result.exitCode, 0, String(result.stderr));
    assert.match(String(result.stdout), /calls done/);
    await removeContainer({}, name);
  });

  it('follows a docker context made by the real CLI (DOCKER_CONFIG, DOCKER_CONTEXT, --context)', async () => {
    const config = await mkdtemp(join(tmpdir(), 'sr-engineapi-config-'));
    try {
      const socket = resolveEndpoint({})?.socketPath;
      assert.ok(socket, 'this suite runs against a unix socket engine');
      await execa('docker', ['context', 'create', 'sr-test', '--docker', `host=unix://${socket}`], { env: { DOCKER_CONFIG: config } });
      await execa('docker', ['context', 'create', 'sr-nowhere', '--docker', 'host=unix:///nonexistent/docker.sock'], { env: { DOCKER_CONFIG: config } });
      const viaEnv: DockerOptions = { env: { DOCKER_CONFIG: config, DOCKER_CONTEXT: 'sr-test', DOCKER_HOST: '' } };
      assert.deepEqual(resolveEndpoint(viaEnv), { host: `unix://${socket}`, source: 'env-context', context: 'sr-test', socketPath: socket });
      const name = await make();
      assert.equal((await inspectContainer(viaEnv, name)).Name, `/${name}`);
      assert.equal((await inspectContainer({ ...viaEnv, controlTransport: 'dial-stdio' }, name)).Name, `/${name}`);
      // An explicit context beats DOCKER_HOST in the environment, for the API and the CLI alike.
      const explicit: DockerOptions = { env: { DOCKER_CONFIG: config, DOCKER_HOST: 'unix:///nonexistent/docker.sock' }, context: 'sr-test' };
      for (const t of ['auto', 'dial-stdio', 'cli'] as const) assert.equal((await inspectState({ ...explicit, controlTransport: t }, name)).status, 'created', t);
      const nowhere: DockerOptions = { env: { DOCKER_CONFIG: config }, context: 'sr-nowhere' };
      await assert.rejects(inspectContainer(nowhere, name), (e: unknown) => isSandboxError(e) && e.code === 'daemon-unreachable');
      // A missing context is the CLI's to report.
      assert.equal(resolveEndpoint({ env: { DOCKER_CONFIG: config }, context: 'sr-missing' }), undefined);
      await assert.rejects(inspectContainer({ env: { DOCKER_CONFIG: config }, context: 'sr-missing' }, name), (e: unknown) => isSandboxError(e) && /sr-missing/.test(e.detail));
      await removeContainer(viaEnv, name);
      assert.equal(await containerExists(name), false);
    } finally {
      await rm(config, { recursive: true, force: true });
    }
  });
});
