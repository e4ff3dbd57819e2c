/** Shared helpers for the engine suites: real Docker engine, locally built test images. */
import { execa } from 'execa';
import { awaitRemovals, LABELS, PRODUCT_FILTER, ProfileSchema, runInSandbox, WarmPool, type Profile, type RunRequest, type RunResult } from '../../src/core';

/** Images built by scripts/build-test-images.sh (never pulled). */
export const IMAGES = {
  busybox: 'sandbox-runner-test/busybox:1',
  python: 'sandbox-runner-test/python:1',
  volume: 'sandbox-runner-test/volume:1',
} as const;

/** Fails the suite loudly when the engine or an image is missing; never skips. */
export async function requireEngine(): Promise<void> {
  const info = await execa('docker', ['info', '--format', '{{.ServerVersion}}'], { reject: false });
  if (info.exitCode !== 0) {
    throw new Error(`The Docker engine is not reachable (${String(info.stderr).trim()}); run "bash scripts/engine-up.sh" first.`);
  }
  for (const image of Object.values(IMAGES)) {
    const r = await execa('docker', ['image', 'inspect', image], { reject: false });
    if (r.exitCode !== 0) throw new Error(`Test image ${image} is missing; run "bash scripts/build-test-images.sh" first.`);
  }
}

/** A valid profile for the python test image with `overrides` merged in. */
export function pythonProfile(overrides: Record<string, unknown> = {}): Profile {
  return ProfileSchema.parse({
    image: IMAGES.python,
    command: ['python3', '${file}'],
    extensions: ['.py'],
    env: { PYTHONUNBUFFERED: '1' },
    ...overrides,
  });
}

/** A valid profile for the busybox test image (POSIX sh) with `overrides` merged in. */
export function shellProfile(overrides: Record<string, unknown> = {}): Profile {
  return ProfileSchema.parse({ image: IMAGES.busybox, command: ['sh', '${file}'], extensions: ['.sh'], ...overrides });
}

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
const POOL_KEY = Symbol.for('sandbox-runner.test.warm-pool');
const shared = globalThis as { [POOL_KEY]?: WarmPool };
if (TEST_PATH === 'warm' && !shared[POOL_KEY]) {
  const created = new WarmPool({ idleMs: 120_000 });
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
    warm.prepare(extra.profileName ?? 'test', profile);
    await warm.ready(extra.profileName ?? 'test', profile);
  }
  const result = await runInSandbox({
    warm,
    profileName: 'test',
    profile,
    code,
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
export async function containers(filter: string): Promise<string[]> {
  const r = await execa('docker', ['ps', '-a', '--filter', filter, '--format', '{{.Names}}']);
  return String(r.stdout).split('\n').filter(Boolean);
}

/**
 * True while a container with this name exists in any state. Background removals (removals.ts)
 * are awaited first: a run's result comes before its container's removal ends.
 */
export async function containerExists(name: string): Promise<boolean> {
  await awaitRemovals();
  return (await containers(`name=^/?${name}$`)).length > 0;
}

/**
 * Product containers left behind by `ownerPid` (default: this test process), any state.
 * Scoped to an owner so suites can run beside other users of the engine; the last suite
 * (zz-leftovers) checks every product container.
 */
export async function productContainers(ownerPid: number | 'any' = process.pid): Promise<string[]> {
  // Warm containers waiting in this process's pool are not leftovers; everything else is.
  // Removals still running in the background (removals.ts) are awaited first.
  await pool?.settled();
  await awaitRemovals();
  const idle = new Set(pool?.idleNames() ?? []);
  const names = ownerPid === 'any' ? await containers(PRODUCT_FILTER) : await containers(`label=${LABELS.ownerPid}=${ownerPid}`);
  return names.filter((n) => !idle.has(n));
}

/** Host processes whose command line contains `marker` (containers' processes are visible from the host). */
export async function hostProcesses(marker: string): Promise<string[]> {
  const r = await execa('pgrep', ['-f', marker], { reject: false });
  return String(r.stdout).split('\n').filter(Boolean);
}

/** Resolves when `predicate` holds, polling; rejects after `timeoutMs`. */
export async function waitFor(predicate: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

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
 * The IPv4 address containers on docker's default `bridge` network route through (the host's
 * side of the bridge, docker0), read from the running system: the default route in
 * `/proc/net/route` of a throw-away control container (busybox test image, `--network bridge`,
 * `--rm`, no product label). Not `docker network inspect bridge`: a freshly started dockerd may
 * report the bridge's IPAM config with a subnet and no gateway. Computed once per process.
 * Throws (with the container's output) when the control container cannot run or has no default
 * route, so no probe ever gets an empty address.
 */
export function bridgeGateway(): Promise<string> {
  bridgeGatewayOnce ??= (async () => {
    const r = await execa(
      'docker',
      ['run', '--rm', '--pull', 'never', '--log-driver', 'none', '--network', 'bridge', '--user', '65534:65534', IMAGES.busybox, 'cat', '/proc/net/route'],
      { reject: false, timeout: 30_000, stdin: 'ignore' },
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
