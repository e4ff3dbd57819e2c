/**
 * Attacks on the stdin protocol and the pre-code checks against real engines (attack branch,
 * 2026-11-30). Each test FAILS if its attack works.
 * - Checks on one engine, code on another: the Engine API client resolves the endpoint itself
 *   (endpoint.ts) while the CLI resolves its own; a CLI that disagrees (here a `dockerPath`
 *   wrapper that drops DOCKER_HOST, as an alias or shim might) must not get code into a container
 *   the checks never saw.
 * - A profile environment (a workspace may change `env` without consent) that hides `sh` or the
 *   launcher's tools: the code runs at most once, and never looks like success without running.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { awaitRemovals } from '../../src/core/container/removals';
import { contextDir } from '../../src/core/engine/endpoint';
import { engineOptions } from '../../src/core/engine/engineTarget';
import { LABELS } from '../../src/core/ownership/labels';
import { runInSandbox } from '../../src/core/run/runner';
import type { DockerOptions } from '../../src/core/engine/contracts';
import { engineDocker, pythonProfile, requireEngine, run, shellProfile } from './helpers';

const ENGINE2_SOCKET = '/run/sandbox-runner-engine2/docker.sock';
const ENGINE2_HOST = `unix://${ENGINE2_SOCKET}`;
const LOCAL_HOST = 'unix:///var/run/docker.sock';

/** Containers (any state) of this process on the engine at `host`. */
async function ownOn(host: string): Promise<string[]> {
  const r = await execa('docker', ['ps', '-a', '--filter', `label=${LABELS.ownerPid}=${process.pid}`, '--format', '{{.Names}}'], { env: { DOCKER_HOST: host, DOCKER_CONTEXT: '' } });
  return String(r.stdout).split('\n').filter(Boolean);
}

describe('attacks on the protocol and the pre-code checks (engine)', function () {
  this.timeout(120_000);
  before(requireEngine);

  describe('checks on one engine, code on another', () => {
    let dir: string;
    let wrapper: string;
    before(async function () {
      // Engine 2 must answer: with its socket stale the API client would fall back to the CLI,
      // which inspects the right container, and there would be no disagreement to test.
      if (!existsSync(ENGINE2_SOCKET)) this.skip();
      const up = await execa('docker', ['version', '--format', '{{.Server.Version}}'], { env: { DOCKER_HOST: ENGINE2_HOST, DOCKER_CONTEXT: '' }, reject: false, timeout: 20_000 });
      if (up.exitCode !== 0) this.skip();
      dir = await mkdtemp(join(tmpdir(), 'sr-attack-cli-'));
      wrapper = join(dir, 'docker');
      // A docker CLI that resolves its endpoint differently from the runner: it drops the
      // DOCKER_HOST the runner gives it, so it runs containers on the local engine while the API
      // client (option host) inspects engine 2.
      await writeFile(wrapper, '#!/bin/sh\nunset DOCKER_HOST DOCKER_CONTEXT\nexec docker "$@"\n');
      await chmod(wrapper, 0o755);
    });
    after(async () => {
      // Whatever the run left on the local engine (the CLI's side) is removed here.
      if (!dir) return;
      for (const n of await ownOn(LOCAL_HOST).catch(() => [])) await execa('docker', ['rm', '-f', '-v', n], { env: { DOCKER_HOST: LOCAL_HOST }, reject: false });
      await rm(dir, { recursive: true, force: true });
    });

    it('the code never runs in a container the checks did not inspect', async () => {
      const docker: DockerOptions = { ...engineOptions({ host: ENGINE2_HOST }), dockerPath: wrapper };
      let stdout = '';
      const result = await runInSandbox({
        profileName: 'attack', profile: shellProfile(), code: 'echo CODE-RAN-ON-UNCHECKED-ENGINE\n', docker,
        onOutput: (stream, data) => stream === 'stdout' && (stdout += Buffer.from(data).toString('utf8')),
      });
      await awaitRemovals();
      assert.doesNotMatch(stdout, /CODE-RAN-ON-UNCHECKED-ENGINE/, `the code ran unchecked: ${result.outcome}`);
      assert.notEqual(result.outcome, 'exited');
    });

    it('the container the CLI started on its engine does not outlive the refused run', async () => {
      const docker: DockerOptions = { ...engineOptions({ host: ENGINE2_HOST }), dockerPath: wrapper };
      const before = new Set(await ownOn(LOCAL_HOST));
      const result = await runInSandbox({ profileName: 'attack', profile: shellProfile(), code: 'true\n', docker });
      await awaitRemovals();
      const left = (await ownOn(LOCAL_HOST)).filter((n) => !before.has(n));
      assert.deepEqual(left, [], `the refused run (${result.outcome}) left ${left.join(', ')} on the CLI's engine`);
    });
  });

  it('`docker context use` while a run is in flight: the run\'s container is still removed from the engine it ran on', async function () {
    // The CLI resolved the current context when `docker run` started; every later control call
    // (checks, removal) resolves again. Switching the current context mid-run must not send the
    // removal to the new engine and leave the container on the old one.
    if (!existsSync(ENGINE2_SOCKET)) this.skip();
    const dir = await mkdtemp(join(tmpdir(), 'sr-attack-ctx-'));
    try {
      const context = (name: string, host: string) => {
        const meta = join(dir, 'contexts', 'meta', contextDir(name));
        return mkdir(meta, { recursive: true }).then(() =>
          writeFile(join(meta, 'meta.json'), JSON.stringify({ Name: name, Metadata: {}, Endpoints: { docker: { Host: host, SkipTLSVerify: false } } })));
      };
      await context('sr-here', LOCAL_HOST);
      await context('sr-there', ENGINE2_HOST);
      await writeFile(join(dir, 'config.json'), JSON.stringify({ currentContext: 'sr-here' }));
      const docker: DockerOptions = { env: { DOCKER_HOST: '', DOCKER_CONTEXT: '', DOCKER_CONFIG: dir } };
      const before = new Set(await ownOn(LOCAL_HOST));
      let stdout = '';
      let switched = false;
      const result = await runInSandbox({
        profileName: 'attack', profile: shellProfile(), code: 'echo started\nsleep 2\necho done\n', docker,
        onOutput: (stream, data) => {
          if (stream !== 'stdout') return;
          stdout += Buffer.from(data).toString('utf8');
          if (!switched && stdout.includes('started')) {
            switched = true;
            void writeFile(join(dir, 'config.json'), JSON.stringify({ currentContext: 'sr-there' }));
          }
        },
      });
      await awaitRemovals();
      const left = (await ownOn(LOCAL_HOST)).filter((n) => !before.has(n));
      for (const n of left) await execa('docker', ['rm', '-f', '-v', n], { env: { DOCKER_HOST: LOCAL_HOST }, reject: false });
      assert.ok(switched, `the run never printed (${result.message})`);
      assert.deepEqual(left, [], `the run (${result.outcome}) left its container on the engine it ran on`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('detach keys in the code (default ctrl-p,ctrl-q and a client config\'s detachKeys) never detach the run into a fake success', async () => {
    // The frame carries the code over the attached stdin: an engine or CLI that honoured detach
    // keys there would end `docker run -i` with exit 0 while the program never ran (or still runs).
    const dir = await mkdtemp(join(tmpdir(), 'sr-attack-detach-'));
    try {
      await writeFile(join(dir, 'config.json'), JSON.stringify({ detachKeys: 'ctrl-e,e' }));
      const base = engineDocker() ?? {};
      const docker: DockerOptions = { ...base, env: { ...base.env, DOCKER_CONFIG: dir } };
      const code = '# \u0010\u0011 \u0005e\necho START\nsleep 1\necho END\n';
      let stdout = '';
      const result = await runInSandbox({
        profileName: 'attack', profile: shellProfile(), code, docker,
        onOutput: (stream, data) => stream === 'stdout' && (stdout += Buffer.from(data).toString('utf8')),
      });
      assert.equal(result.outcome, 'exited', result.message);
      assert.equal(stdout, 'START\nEND\n', 'the run detached or lost output');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('a profile environment that hides the launcher\'s tools', () => {
    // The code appends one line per execution to its stdout; a second execution (launcher path,
    // then a fallback) would print it twice.
    const cases: { what: string; profile: () => ReturnType<typeof shellProfile>; code: string }[] = [
      { what: 'PATH without sh (busybox)', profile: () => shellProfile({ env: { PATH: '/nonexistent' } }), code: 'echo EXECUTED\n' },
      { what: 'PATH without sh but with python3', profile: () => pythonProfile({ env: { PYTHONUNBUFFERED: '1', PATH: '/usr/local/bin' } }), code: 'print("EXECUTED")\n' },
      { what: 'PATH with sh but without dd/wc/chmod', profile: () => shellProfile({ command: ['/bin/sh', '${file}'], env: { PATH: '/nonexistent' } }), code: 'echo EXECUTED\n' },
    ];
    for (const c of cases) {
      it(`${c.what}: the code runs at most once, and "exited 0" only if it ran`, async () => {
        const r = await run(c.profile(), c.code);
        const count = (r.stdout.match(/EXECUTED/g) ?? []).length;
        assert.ok(count <= 1, `the code ran ${count} times (${r.result.outcome})`);
        if (r.result.outcome === 'exited' && r.result.exitCode === 0) assert.equal(count, 1, 'reported success without running the code');
      });
    }
  });
});
