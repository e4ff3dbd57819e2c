/**
 * Which engine, and which mounts it can see (issue 10), against real engines: the local one, and
 * the second, "remote-like" dockerd (scripts/engine2-up.sh: own mount, network and pid
 * namespaces, private /tmp) at ENGINE2_HOST. The local engine is addressed explicitly (its
 * default socket), so these tests mean the same whatever DOCKER_HOST the suite runs with.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, open, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { awaitRemovals } from '../../src/core/container/removals';
import { engineIdentity } from '../../src/core/engine/engine';
import { engineOptions } from '../../src/core/engine/engineTarget';
import { LABELS } from '../../src/core/ownership/labels';
import { probeEngineView } from '../../src/core/mounts/mountProbe';
import { runInSandbox } from '../../src/core/run/runner';
import type { DockerOptions } from '../../src/core/engine/contracts';
import { CLI, IMAGES, requireEngine, shellProfile } from './helpers';
import { makeWorkspace } from '../support/workspace';

const ENGINE2_SOCKET = '/run/sandbox-runner-engine2/docker.sock';
const ENGINE2_HOST = `unix://${ENGINE2_SOCKET}`;
const LOCAL_HOST = 'unix:///var/run/docker.sock';
/**
 * Where the engines share files: /var/tmp (engine 2 has only /tmp of its own, and the clone itself
 * may sit under /tmp, as a CI checkout can).
 */
const SHARED_ROOT = '/var/tmp';

/** Product containers of this process on the engine at `host`. */
async function ownContainers(host: string, ownerPid = process.pid): Promise<string[]> {
  await awaitRemovals(); // a run's result comes before its container's removal ends (removals.ts)
  const r = await execa('docker', ['ps', '-a', '--filter', `label=${LABELS.ownerPid}=${ownerPid}`, '--format', '{{.Names}}'], { env: { DOCKER_HOST: host, DOCKER_CONTEXT: '' } });
  return String(r.stdout).split('\n').filter(Boolean);
}

async function requireEngine2(): Promise<void> {
  if (!existsSync(ENGINE2_SOCKET)) throw new Error(`The second engine is not running (${ENGINE2_SOCKET}); run "bash scripts/engine2-up.sh" first.`);
  const r = await execa('docker', ['image', 'inspect', IMAGES.busybox], { env: { DOCKER_HOST: ENGINE2_HOST }, reject: false });
  if (r.exitCode !== 0) throw new Error(`The second engine lacks ${IMAGES.busybox}; run "bash scripts/engine2-up.sh" first.`);
}

/** Runs `code` with a read-only mount of `source` at /data on the engine of `docker`; collects stdout and that mount's `--mount` value. */
async function runWithMount(docker: DockerOptions, source: string, code: string, tempRoot?: string) {
  let argv: readonly string[] = [];
  let stdout = '';
  const result = await runInSandbox({
    profileName: 'mounts', profile: shellProfile({ mounts: [{ source, target: '/data' }] }), code, docker, tempRoot,
    onArgv: (a) => (argv = a), onOutput: (stream, data) => stream === 'stdout' && (stdout += Buffer.from(data).toString('utf8')),
  });
  return { result, stdout, mountArg: argv.find((a, i) => argv[i - 1] === '--mount' && a.includes('dst=/data')) ?? '' };
}

describe('engine choice and the mount probe (engine)', function () {
  this.timeout(120_000);
  const local = engineOptions({ host: LOCAL_HOST });
  const engine2 = engineOptions({ host: ENGINE2_HOST });
  let tmpRoot: string;
  let sharedRoot: string;
  let snippetRoot: string;
  before(async () => {
    await requireEngine();
    tmpRoot = await mkdtemp(join(tmpdir(), 'sr-engine-mounts-'));
    await writeFile(join(tmpRoot, 'f.txt'), 'client file under tmp\n');
    await chmod(tmpRoot, 0o755); // readable by the sandbox's unprivileged user
    await mkdir(SHARED_ROOT, { recursive: true });
    sharedRoot = await mkdtemp(join(SHARED_ROOT, 'sr-engine-mounts-'));
    await chmod(sharedRoot, 0o755);
    // Until the code reaches containers over stdin (issue 10, "One protocol"), a cold run
    // bind-mounts its snippet from a temp folder: put those where the second engine sees them too.
    snippetRoot = await mkdtemp(join(SHARED_ROOT, 'sr-snippets-'));
    await chmod(snippetRoot, 0o755);
    await writeFile(join(sharedRoot, 'f.txt'), 'client file, shared path\n');
  });
  after(async () => {
    await rm(tmpRoot, { recursive: true, force: true });
    await rm(sharedRoot, { recursive: true, force: true });
    await rm(snippetRoot, { recursive: true, force: true });
  });

  it('the local engine passes the probe as local (it sees the nonce by path and this process\'s anchor), leaving nothing behind', async () => {
    const anchorDir = await mkdtemp(join(tmpdir(), 'sr-anchor-'));
    const root = await open(tmpRoot, 'r');
    const anchor = await open(anchorDir, 'r');
    try {
      const view = await probeEngineView(local, IMAGES.busybox, 'probe', { root: tmpRoot, rootFd: root.fd, anchorFd: anchor.fd });
      assert.deepEqual(view, { sees: 'yes', local: true });
      assert.deepEqual((await readdir(tmpRoot)).sort(), ['f.txt'], 'the nonce file stayed in the source root');
      assert.deepEqual(await readdir(anchorDir), []);
      assert.deepEqual(await ownContainers(LOCAL_HOST), [], 'the probe container was left behind');
    } finally {
      await root.close();
      await anchor.close();
      await rm(anchorDir, { recursive: true, force: true });
    }
  });

  it('the local engine runs a mount pinned through /proc/<pid>/fd after the probe', async () => {
    const r = await runWithMount(local, tmpRoot, 'cat /data/f.txt\n');
    assert.equal(r.result.exitCode, 0, r.result.message);
    assert.equal(r.stdout, 'client file under tmp\n');
    assert.match(r.mountArg, new RegExp(`volume-opt=device=/proc/${process.pid}/fd/\\d+/[0-9a-f]{32}`));
  });

  it('the second engine (private /tmp, own pid namespace) refuses a source under /tmp, naming the engine and why', async () => {
    await requireEngine2();
    const r = await runWithMount(engine2, tmpRoot, 'cat /data/f.txt\n', snippetRoot);
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'invalid-mount');
    assert.match(r.result.message, new RegExp(`refused because the Docker engine of host "${ENGINE2_HOST}" does not see it: the probe file written there was not found at that path on the engine`));
    assert.equal(r.stdout, '');
    assert.deepEqual(await ownContainers(ENGINE2_HOST), []);
    assert.deepEqual((await readdir(tmpRoot)).sort(), ['f.txt']);
  });

  it('the second engine mounts a path it shares by path (no pin: it cannot see this process) and the run reads the client\'s file', async () => {
    await requireEngine2();
    const r = await runWithMount(engine2, sharedRoot, 'cat /data/f.txt\n', snippetRoot);
    assert.equal(r.result.outcome, 'exited', r.result.message);
    assert.equal(r.stdout, 'client file, shared path\n');
    assert.match(r.mountArg, new RegExp(`^type=bind,src=${sharedRoot},dst=/data,readonly$`));
    assert.deepEqual(await ownContainers(ENGINE2_HOST), []);
  });

  it('names the engine it talks to: the identity of each engine', async () => {
    const id = await engineIdentity(local);
    assert.ok(id, 'the local engine did not answer docker version');
    assert.deepEqual(id.target, { kind: 'host', name: LOCAL_HOST, explicit: true });
    assert.match(`${id.name} ${id.version}`, /^(Docker Engine|Podman) \S+$/);
    assert.notEqual(id.runtime, '');
  });

  describe('sandbox-run', () => {
    // An image only the local engine has: a run that reaches the second engine cannot find it.
    const LOCAL_ONLY = 'sandbox-runner-test/engineselect-local-only:1';
    let ws: string;
    before(async () => {
      await requireEngine2();
      await execa('docker', ['tag', IMAGES.busybox, LOCAL_ONLY], { env: { DOCKER_HOST: LOCAL_HOST } });
      ws = await makeWorkspace('sr-cli-engine-', { 'sandboxRunner.profiles': { only: { image: LOCAL_ONLY, command: ['sh', '${file}'], extensions: ['.sh'] } } });
      await writeFile(join(ws, 'a.sh'), 'echo ran here\n');
    });
    after(async () => {
      await execa('docker', ['rmi', LOCAL_ONLY], { env: { DOCKER_HOST: LOCAL_HOST }, reject: false });
      await rm(ws, { recursive: true, force: true });
    });
    // TMPDIR: the snippet folder where both engines see it (see `snippetRoot`).
    const cli = (args: string[], env: Record<string, string>) =>
      execa('node', [CLI, '--workspace', ws, ...args], { reject: false, stdin: 'ignore', env: { DOCKER_CONTEXT: '', TMPDIR: snippetRoot, ...env } });

    it('honours DOCKER_HOST, and a missing image names that engine and the pull command for it', async () => {
      const r = await cli([join(ws, 'a.sh')], { DOCKER_HOST: ENGINE2_HOST });
      assert.equal(r.exitCode, 125, String(r.stderr));
      assert.ok(
        String(r.stderr).includes(`The image "${LOCAL_ONLY}" is not present on the Docker engine of host "${ENGINE2_HOST}", and runs never pull implicitly. Pull it once with "docker --host ${ENGINE2_HOST} pull ${LOCAL_ONLY}"`),
        String(r.stderr),
      );
      assert.match(String(r.stderr), new RegExp(`engine host "${ENGINE2_HOST}" · Docker Engine \\S+ · runtime runc\\]`));
    });

    it('--context chooses the engine over an inherited DOCKER_HOST, and the summary says so', async () => {
      const r = await cli(['--context', 'default', join(ws, 'a.sh')], { DOCKER_HOST: ENGINE2_HOST });
      assert.equal(r.exitCode, 0, String(r.stderr));
      assert.equal(String(r.stdout), 'ran here');
      assert.match(String(r.stderr), /\[profile only, image sandbox-runner-test\/engineselect-local-only:1, network off, engine context "default" · Docker Engine \S+ · runtime runc\]/);
    });

    it('--reap sweeps the engine --context chooses, and names it', async () => {
      const r = await cli(['--reap', '--context', 'default'], { DOCKER_HOST: ENGINE2_HOST });
      assert.equal(r.exitCode, 0, String(r.stderr));
      assert.match(String(r.stderr), /removed \d+ orphaned container\(s\).*, kept \d+ \(engine context "default"\)\./);
      const bad = await cli(['--reap', '--context', 'no such'], {});
      assert.equal(bad.exitCode, 2);
      assert.match(String(bad.stderr), /--context "no such" is not a docker context name/);
    });
  });
});
