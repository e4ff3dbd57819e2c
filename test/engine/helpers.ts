/** Shared helpers for the engine suites: real Docker engine, locally built test images. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa, execaSync, type Options } from 'execa';
import { awaitRemovals } from '../../src/core/container/removals';
import { cgroupNamesContainer } from '../../src/core/engine/hostPid';
import { type EngineKind, parseEngineKind } from '../../src/core/engine/engineKind';
import { runInSandbox } from '../../src/core/run/runner';
import { WarmPool } from '../../src/core/run/warm';
import type { DockerOptions } from '../../src/core/engine/contracts';
import type { Profile } from '../../src/core/profiles/profileSchema';
import type { RunRequest } from '../../src/core/run/request';
import type { RunResult } from '../../src/core/run/result';
import { waitFor } from '../support/deadlines';
import { POOL_KEY, productContainers } from './leftovers';
import {
  containerNames, describeEngine, engineCli as supportEngineCli, engineIsLocal as supportEngineIsLocal, engineKind, LOCAL_DOCKER_HOST,
  requireEngine as requireTestEngine, TEST_ENGINE,
} from '../support/engine';
import { TEST_IMAGES } from '../support/images';
import { pythonProfile, shellProfile } from '../support/profiles';

/** Images built by scripts/build-test-images.sh (never pulled): the shared test images. */
export const IMAGES = TEST_IMAGES;

/**
 * Which engine the suites run against, chosen through the environment only (see
 * test/support/engine.ts): `DOCKER_HOST` and `SANDBOX_RUNNER_TEST_DOCKER_PATH`.
 */
export const ENGINE = {
  /** The engine CLI executable: `SANDBOX_RUNNER_TEST_DOCKER_PATH` or `docker`. */
  dockerPath: TEST_ENGINE.dockerPath,
  /** `DOCKER_HOST` as given, or undefined for the CLI's default (the local engine's socket). */
  host: TEST_ENGINE.host,
  /** How setup hints and failure messages name the engine. */
  describe(): string {
    return describeEngine(TEST_ENGINE);
  },
} as const;

/** The engine CLI executable every direct engine call of the suites must use (see {@link ENGINE}). */
export function dockerBin(): string {
  return ENGINE.dockerPath;
}

/**
 * Runs the engine CLI (`dockerBin()` with `args`, argv only) against the engine under test
 * (test/support/engine.ts `engineCli`: on Podman a `run`/`create` gets the rlimits it needs).
 * Every direct engine call of the suites goes through here (or {@link dockerBin} for scripts), so
 * `DOCKER_HOST` and `SANDBOX_RUNNER_TEST_DOCKER_PATH` apply to all of them.
 * Same options and result as execa; rejects on a non-zero exit unless `reject: false`.
 */
export function engineCli<O extends Options = Options>(args: readonly string[], options?: O) {
  return supportEngineCli(args, options);
}

/** The engine as test/support/npmRegistry.ts drives it: `docker ARGS` → stdout (`lenient`: a failure is not thrown). */
export const registryEngine = (args: string[], lenient = false): Promise<string> => engineCli(args, { stdin: 'ignore', reject: !lenient }).then((r) => String(r.stdout));

/**
 * Docker options for the product's own runs against the engine under test: `dockerPath` when
 * `SANDBOX_RUNNER_TEST_DOCKER_PATH` is set (e.g. `podman`), else undefined (the product's default
 * `docker`, which reads `DOCKER_HOST` from this process's environment).
 */
export function engineDocker(): DockerOptions | undefined {
  return ENGINE.dockerPath === 'docker' ? undefined : { dockerPath: ENGINE.dockerPath };
}

/**
 * The kind of engine CLI under test, from its `--version` (the product's own `parseEngineKind`),
 * read once when the suites load so tests can be declared per engine; `docker` when the CLI
 * cannot say (the suites' `requireEngine` then fails loudly).
 */
export const ENGINE_KIND: EngineKind = engineKind(TEST_ENGINE);

/**
 * Declares a test that applies only to an engine with a daemon (Docker). On a daemonless engine
 * (Podman) it declares, under the same title marked "not applicable", a test that asserts the
 * engine really is daemonless and prints why the case does not apply, so the suite output says so
 * instead of skipping silently.
 * @param declare declares the real test (e.g. `() => fault(title, …)`)
 * @param why one sentence: what the case needs that a daemonless engine does not have
 */
export function daemonOnly(title: string, why: string, declare: () => void): void {
  if (ENGINE_KIND !== 'podman') return declare();
  it(`${title} [not applicable on Podman: ${why}]`, async () => {
    const version = String((await engineCli(['--version'], { reject: false, stdin: 'ignore' })).stdout);
    assert.equal(parseEngineKind(version), 'podman', `"${dockerBin()} --version" said: ${version}`);
    console.log(`      n/a on Podman (daemonless): ${title}: ${why}`);
  });
}

let cliPathDir: string | undefined;

/**
 * Environment for `sandbox-run` child processes of the suites: on Podman, `PATH` led by a private
 * directory whose `docker` is a symlink to the Podman CLI (the `docker` → `podman` wrapper of
 * Debian's podman-docker, which the product detects from `--version`), since the CLI has no
 * docker-path option here; elsewhere undefined (the CLI's default `docker`).
 */
export function cliEnv(): Record<string, string> | undefined {
  if (ENGINE_KIND !== 'podman') return undefined;
  if (!cliPathDir) {
    const found = execaSync('sh', ['-c', 'command -v "$1"', 'sh', dockerBin()], { reject: false });
    const target = String(found.stdout).trim();
    if (!target.startsWith('/')) throw new Error(`${dockerBin()} is not on PATH`);
    cliPathDir = mkdtempSync(join(tmpdir(), 'sr-podman-as-docker-'));
    symlinkSync(target, join(cliPathDir, 'docker'));
    const dir = cliPathDir;
    after(() => rmSync(dir, { recursive: true, force: true }));
  }
  return { PATH: `${cliPathDir}:${process.env.PATH ?? ''}` };
}

export { LOCAL_DOCKER_HOST };

/** True when the suites run against the engine on this machine's default socket (not engine 2). */
export function engineIsLocal(): boolean {
  return supportEngineIsLocal(TEST_ENGINE);
}

let hasBridgeOnce: Promise<boolean> | undefined;

/**
 * True when the engine under test has docker's default `bridge` network. The second engine
 * (scripts/engine2-up.sh) runs with `--bridge none` in a network namespace of its own: it has
 * none, so nothing a container there does can reach a host address.
 */
export function engineHasBridge(): Promise<boolean> {
  hasBridgeOnce ??= engineCli(['network', 'inspect', 'bridge'], { reject: false, stdin: 'ignore' }).then((r) => r.exitCode === 0);
  return hasBridgeOnce;
}

let seesClientFilesOnce: Promise<boolean> | undefined;

/**
 * True when the engine under test sees this client's temp files at the same path, as a local
 * engine does (and Docker Desktop, Colima or Rancher Desktop for the user's home): a throw-away
 * control container (no product label) bind-mounts a fresh directory of `os.tmpdir()` holding a
 * random nonce file and prints it. False on engine 2 (private /tmp) and on a remote host: the engine
 * refuses the bind source ("does not exist") or shows it empty. Computed once per process.
 */
export function engineSeesClientFiles(): Promise<boolean> {
  seesClientFilesOnce ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sr-engine-probe-'));
    try {
      const nonce = randomBytes(16).toString('hex');
      await writeFile(join(dir, 'nonce'), nonce, { mode: 0o644 });
      await chmod(dir, 0o755);
      const r = await engineCli(
        ['run', '--rm', '--pull', 'never', '--log-driver', 'none', '--network', 'none', '--user', '65534:65534', '--mount', `type=bind,src=${dir},dst=/probe,readonly`, IMAGES.busybox, 'cat', '/probe/nonce'],
        { reject: false, timeout: 30_000, stdin: 'ignore' },
      );
      return r.exitCode === 0 && String(r.stdout) === nonce;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return seesClientFilesOnce;
}

/**
 * Writes `files` (relative path → text) under a fresh folder of the temp dir readable by the run's
 * user (65534), for workspace mounts (workspace.test.ts, session.test.ts); the caller removes it.
 */
export async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'sr-ws-proj-'));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(root, rel, '..'), { recursive: true });
    await writeFile(join(root, rel), text, { mode: 0o644 });
  }
  // mkdtemp/mkdir leave folders 0700/0755 by umask: every folder must be enterable by another uid.
  await execa('chmod', ['-R', 'a+rX', root]);
  await chmod(root, 0o755);
  return root;
}

/** Fails the suite loudly when the engine or an image is missing; never skips (test/support/engine.ts). */
export async function requireEngine(): Promise<void> {
  await requireTestEngine(TEST_ENGINE);
}

export { pythonProfile, shellProfile };

/** A finished run with its output collected per stream. */
export interface Collected {
  readonly result: RunResult;
  /** The program's stdout and stderr decoded as UTF-8 (invalid bytes as U+FFFD). */
  readonly stdout: string;
  readonly stderr: string;
  /** Runner notices. */
  readonly notice: string;
  /** The program's bytes exactly as the sink received them. */
  readonly bytes: { readonly stdout: Buffer; readonly stderr: Buffer };
}

/** A sink chunk as text (program bytes decoded as UTF-8, a notice as it is), for quick checks. */
export function chunkText(data: string | Uint8Array): string {
  return typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
}

/**
 * Which path the engine suites exercise: `SANDBOX_RUNNER_TEST_PATH=warm` runs every snippet on
 * the warm path (a pool container prepared and ready before each run), otherwise the cold path.
 * `npm test` runs the engine suites once per path.
 */
export const TEST_PATH = process.env.SANDBOX_RUNNER_TEST_PATH === 'warm' ? 'warm' : 'cold';
// One pool per mocha process: each suite file is bundled with its own copy of this module.
const shared = globalThis as { [POOL_KEY]?: WarmPool };
if (TEST_PATH === 'warm' && !shared[POOL_KEY]) {
  const docker = engineDocker();
  const created = new WarmPool({ idleMs: 120_000, ...(docker ? { docker } : {}) });
  shared[POOL_KEY] = created;
  after(() => created.dispose());
}
const pool: WarmPool | undefined = shared[POOL_KEY];

/** Runs `code` with `profile`, collecting the output (on the warm path when TEST_PATH is warm). */
export async function run(profile: Profile, code: string, extra: Partial<RunRequest> = {}): Promise<Collected> {
  const chunks: Record<'stdout' | 'stderr', Uint8Array[]> = { stdout: [], stderr: [] };
  let notice = '';
  // A run with its own docker options (e.g. a missing binary) cannot use the pool's containers.
  const warm = extra.docker ? undefined : pool;
  if (warm && extra.warm === undefined) {
    warm.prepare({ name: extra.profileName ?? 'test', profile });
    await warm.ready({ name: extra.profileName ?? 'test', profile });
  }
  const result = await runInSandbox({
    warm,
    profileName: 'test',
    profile,
    code,
    ...(engineDocker() ? { docker: engineDocker() } : {}),
    onOutput: (stream, data) => {
      if (stream === 'notice') notice += data;
      else chunks[stream].push(data);
    },
    ...extra,
  });
  const bytes = { stdout: Buffer.concat(chunks.stdout), stderr: Buffer.concat(chunks.stderr) };
  return { result, stdout: bytes.stdout.toString('utf8'), stderr: bytes.stderr.toString('utf8'), notice, bytes };
}

/** Names of containers (any state) matching a docker ps filter. */
export function containers(filter: string): Promise<string[]> {
  return containerNames(filter, TEST_ENGINE);
}

/**
 * True while a container with this name exists in any state. Background removals (removals.ts)
 * are awaited first: a run's result comes before its container's removal ends.
 */
export async function containerExists(name: string): Promise<boolean> {
  await awaitRemovals();
  return (await containers(`name=^/?${name}$`)).length > 0;
}

export { productContainers };

/** Host processes whose command line contains `marker` (containers' processes are visible from the host). */
export async function hostProcesses(marker: string): Promise<string[]> {
  const r = await execa('pgrep', ['-f', marker], { reject: false });
  return String(r.stdout).split('\n').filter(Boolean);
}

/**
 * Host processes of the container `name` on a local engine: the pids whose `/proc/<pid>/cgroup`
 * names its full ID (hostPid.ts `cgroupNamesContainer`). Under runc these are the program's own
 * processes; under gVisor (runsc) the program's processes live inside the sandbox's kernel and are
 * no host processes at all (`pgrep` finds no `sleep`), and these are the sandbox, its gofer and its
 * ptrace stubs: every host process the run has. [] when the container is gone.
 */
export async function containerHostProcesses(name: string): Promise<number[]> {
  const id = String((await engineCli(['inspect', '--format', '{{.Id}}', name], { reject: false })).stdout).trim();
  if (!id) return [];
  const out: number[] = [];
  for (const p of (await readdir('/proc')).filter((n) => /^\d+$/.test(n))) {
    if (cgroupNamesContainer(await readFile(`/proc/${p}/cgroup`, 'utf8').catch(() => ''), id)) out.push(Number(p));
  }
  return out;
}

/** True while process `pid` exists (and is not a zombie). */
export async function processAlive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && !/^\d+ \(.*\) Z /.test(stat);
}

export { waitFor };

/**
 * Parses the text of a Linux `/proc/net/route` table and returns the IPv4 gateway of its default
 * route (destination 0.0.0.0/0 with the RTF_GATEWAY flag, 0x2), as a dotted quad; undefined when
 * there is none. The kernel prints addresses as 8 hex digits in host byte order (little-endian on
 * x86 and arm64), e.g. `010011AC` for 172.17.0.1.
 */
export function defaultGateway(procNetRoute: string): string | undefined {
  for (const line of procNetRoute.split('\n').slice(1)) {
    const [, destination, gateway, flags, , , , mask] = line.trim().split(/\s+/);
    if (destination !== '00000000' || mask !== '00000000' || !gateway || !/^[0-9A-Fa-f]{8}$/.test(gateway)) continue;
    if ((Number.parseInt(flags ?? '0', 16) & 0x2) === 0) continue;
    const n = Number.parseInt(gateway, 16);
    return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff].join('.');
  }
  return undefined;
}

let bridgeGatewayOnce: Promise<string> | undefined;

/**
 * Docker options (for `RunRequest.docker`) of the engine that controls needing a route to the host
 * run on: undefined (the engine under test) when it has the default `bridge` network, else the
 * local engine ({@link LOCAL_DOCKER_HOST}). The second engine has no route to any host address, so a
 * control there would fail whatever the probe does; on the local engine it shows the probe itself
 * works (connects, sends) when a route exists.
 */
export async function routedEngine(): Promise<{ env: Record<string, string> } | undefined> {
  return (await engineHasBridge()) ? undefined : { env: { DOCKER_HOST: LOCAL_DOCKER_HOST } };
}

/**
 * The IPv4 address containers on docker's default `bridge` network route through (the host's
 * side of the bridge, docker0), read from the running system: the default route in
 * `/proc/net/route` of a throw-away control container (busybox test image, `--network bridge`,
 * `--rm`, no product label). Not `docker network inspect bridge`: a freshly started dockerd may
 * report the bridge's IPAM config with a subnet and no gateway. Computed once per process.
 * On an engine without a bridge (engine 2), the control container runs on the local engine
 * ({@link routedEngine}): the address is then a host address the escape probes aim at, which only
 * the local engine's bridged containers can reach.
 * Throws (with the container's output) when the control container cannot run or has no default
 * route, so no probe ever gets an empty address.
 */
export function bridgeGateway(): Promise<string> {
  bridgeGatewayOnce ??= (async () => {
    const routed = await routedEngine();
    const r = await engineCli(
      ['run', '--rm', '--pull', 'never', '--log-driver', 'none', '--network', 'bridge', '--user', '65534:65534', IMAGES.busybox, 'cat', '/proc/net/route'],
      { reject: false, timeout: 30_000, stdin: 'ignore', ...(routed ? { env: routed.env } : {}) },
    );
    const gateway = r.exitCode === 0 ? defaultGateway(String(r.stdout)) : undefined;
    if (!gateway) {
      throw new Error(`no default route in a bridged control container (exit ${String(r.exitCode)}): ${String(r.stdout)}\n${String(r.stderr)}`.trim());
    }
    return gateway;
  })();
  bridgeGatewayOnce.catch(() => (bridgeGatewayOnce = undefined));
  return bridgeGatewayOnce;
}

/** The built `sandbox-run` CLI (`npm run build`), as each bundled suite file finds it. */
export const CLI = resolve(__dirname, '../../../dist/cli.js');

/**
 * Runs `node dist/cli.js --workspace <ws> ...args` to completion in `ws` (its stdin ignored unless
 * `options` gives `input` or `stdin`; on Podman with {@link cliEnv}), never rejecting on a
 * non-zero exit, and fails when the CLI left a container of its own behind.
 * @returns execa's result (stdout/stderr as text, or bytes with `encoding: 'buffer'`)
 */
export async function runCli<O extends Options = Options>(ws: string, args: readonly string[], options?: O) {
  const env = cliEnv();
  const stdin = options?.input === undefined && options?.stdin === undefined ? { stdin: 'ignore' as const } : {};
  const child = execa('node', [CLI, '--workspace', ws, ...args], { reject: false, cwd: ws, ...(env ? { env } : {}), ...stdin, ...options } as O);
  const r = await child;
  assert.deepEqual(await productContainers(child.pid!), [], 'the CLI left a container behind');
  return r;
}

/** Fails each test of the calling suite that leaves a container of this process behind (an `afterEach`). */
export function noLeftoversAfterEach(): void {
  afterEach(async () => {
    assert.deepEqual(await productContainers(), [], 'a test left a product container behind');
  });
}

/**
 * Fails a counting suite (escape attempts, faults) that ran none of its cases: its summary line
 * would otherwise read "0 attempts, 0 escaped" and prove nothing. Called from the suite's
 * `after` hook, which mocha runs only when --grep selected at least one of its tests, so a count of
 * 0 means every selected case was prevented from running (a failed `before all`, for one).
 * Throws an Error naming the suite.
 */
export function requireSomeRan(suite: string, ran: number, what = 'attempts'): void {
  if (ran === 0) throw new Error(`${suite}: 0 ${what} ran, so the suite proves nothing (see the failure above it)`);
}
