/**
 * The raw-docker baseline: the IDENTICAL isolation argv the core builds (`buildCreateArgv` in
 * src/core/argv.ts, same snippet layout, mounts and owner labels), run with the docker CLI through
 * execa from this Node process, with the core's own spawn options (`SPAWN_OPTIONS`).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import {
  buildCreateArgv, buildRunArgv, encodeFrame, LABELS, ownerLabels, ProfileSchema, resolveMounts, runInSandbox, snippetFileName, SPAWN_OPTIONS, writeSnippet,
  type Profile,
} from '../../src/core';

export const IMAGES = {
  busybox: 'sandbox-runner-test/busybox:1',
  python: 'sandbox-runner-test/python:2',
} as const;

/** The busybox test image with the `shell` profile's command, `overrides` merged in. */
export function shellProfile(overrides: Record<string, unknown> = {}): Profile {
  return ProfileSchema.parse({ image: IMAGES.busybox, command: ['sh', '${file}'], extensions: ['.sh'], ...overrides });
}

/** The python test image with the built-in `python` profile's command and env, `overrides` merged in. */
export function pythonProfile(overrides: Record<string, unknown> = {}): Profile {
  return ProfileSchema.parse({
    image: IMAGES.python,
    command: ['python3', '${file}'],
    extensions: ['.py'],
    env: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
    ...overrides,
  });
}

/**
 * How the raw side gets the code: `bind` (a host snippet directory mounted read-only, as today's
 * cold path) or `stdin` (`--interactive`, an exec tmpfs and the fixed stdin launcher that copies
 * standard input into the snippet file: buildRunArgv and a framed input, launcher.ts); the only way on an
 * engine that cannot see this host's files).
 */
export type RawDelivery = 'bind' | 'stdin';

/** One raw container's argv, with its snippet already written (untimed set-up). */
export interface RawSpec {
  readonly name: string;
  /** `create …` exactly as the core would run it (fresh name and run id). */
  readonly createArgv: readonly string[];
  /** The same argv as `run --rm …`. */
  readonly runArgv: readonly string[];
  /** The bytes to write to the container's stdin (`stdin` delivery), else undefined. */
  readonly input: Uint8Array | undefined;
  dispose(): Promise<void>;
}

/** Builds the core's argv for `code` under `profile` and writes the snippet it mounts (`bind`), or frames it for stdin. */
export async function rawSpec(profileName: string, profile: Profile, code: string, delivery: RawDelivery = 'stdin'): Promise<RawSpec> {
  const runId = randomUUID();
  const name = `sandbox-runner-${runId}`;
  const pins = await resolveMounts({ name: profileName, profile });
  const snippet = delivery === 'bind' ? await writeSnippet(code, snippetFileName(profile)) : undefined;
  const spec = { name, profile, snippetFileName: snippet?.fileName ?? snippetFileName(profile), mounts: pins.mounts, labels: ownerLabels(runId, profileName) };
  // stdin: the runner's own one-call argv (`run --interactive …` and the framed launcher);
  // bind: the direct fallback's `create` argv, with the snippet directory mounted read-only.
  const argv = delivery === 'stdin' ? buildRunArgv(spec) : buildCreateArgv({ ...spec, snippetHostDir: snippet!.dir });
  // `create` takes no --sig-proxy (a `run`/`start` option); the rest of the flags are the same.
  const createArgv = ['create', ...argv.slice(1).filter((x) => x !== '--sig-proxy=false')];
  return {
    name,
    createArgv,
    runArgv: ['run', '--rm', ...argv.slice(1)],
    input: delivery === 'stdin' ? encodeFrame(code) : undefined,
    dispose: () => Promise.all([snippet?.dispose(), pins.dispose()]).then(() => undefined),
  };
}

/**
 * The delivery the runner itself uses for a cold run of `profile`: from the argv it reports
 * through `onArgv` (an untimed run of `true`-like code): `stdin` when that argv has
 * `--interactive`/`-i`, else `bind`. So the raw side keeps "the same flags" when the runner's
 * cold path changes (issue 10: code over stdin on every path).
 */
export async function runnerDelivery(profileName: string, profile: Profile, code: string, env?: EngineEnv): Promise<RawDelivery> {
  let argv: readonly string[] = [];
  await runInSandbox({ profileName, profile, code, ...(env ? { docker: { env } } : {}), onArgv: (a) => (argv = argv.length ? argv : a) });
  return argv.includes('--interactive') || argv.includes('-i') ? 'stdin' : 'bind';
}

/**
 * Extra environment for the docker CLI that selects the engine (e.g. `{ DOCKER_HOST }` for the
 * second engine), merged over this process's environment; undefined = the default engine.
 */
export type EngineEnv = Readonly<Record<string, string>> | undefined;

/** `docker …` to completion with the core's spawn options (output buffered), on the engine of `env`. */
export function dockerCli(args: readonly string[], env?: EngineEnv) {
  return execa('docker', args, { ...SPAWN_OPTIONS, ...(env ? { env } : {}) });
}

/** `docker …` spawn → exit in ms (output buffered); throws when docker exits non-zero. */
export async function rawRun(args: readonly string[], what: string): Promise<number> {
  const t0 = performance.now();
  const r = await dockerCli(args);
  const t = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${what}: docker ${args[0]} exited ${r.exitCode}: ${String(r.stderr).trim()}`);
  return t;
}

/** Times of one raw `docker …` call: spawn → exit, and spawn → first stdout byte (NaN if none), ms. */
export interface RawTiming {
  readonly ms: number;
  readonly firstByteMs: number;
}

/**
 * `docker …` with the core's spawn options (`input`, if given, written to its stdin, which is
 * then closed), stdout drained by a listener that notes the first byte's time; throws when docker
 * exits non-zero.
 */
export async function rawTimed(args: readonly string[], what: string, env?: EngineEnv, input?: Uint8Array): Promise<RawTiming> {
  const t0 = performance.now();
  let first = NaN;
  const p = execa('docker', args, { ...SPAWN_OPTIONS, buffer: false, ...(env ? { env } : {}), ...(input !== undefined ? { stdin: 'pipe' as const } : {}) });
  if (input !== undefined) p.stdin?.end(input);
  p.stdout?.on('data', () => {
    if (Number.isNaN(first)) first = performance.now() - t0;
  });
  let stderr = '';
  p.stderr?.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString('utf8')).slice(-2000);
  });
  const r = await p;
  const ms = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${what}: docker ${args[0]} exited ${r.exitCode}: ${stderr.trim()}`);
  return { ms, firstByteMs: first };
}

/** True while a container with exactly this name exists in any state. */
export async function containerExists(name: string, env?: EngineEnv): Promise<boolean> {
  const r = await execa('docker', ['ps', '-a', '--filter', `name=^/${name}$`, '--format', '{{.Names}}'], { reject: false, ...(env ? { env } : {}) });
  return String(r.stdout).trim() !== '';
}

/** Removes every container labelled as owned by one of `pids` (left behind by an interrupted run). */
export async function sweep(pids: readonly number[], env?: EngineEnv): Promise<number> {
  let removed = 0;
  const opts = { reject: false, ...(env ? { env } : {}) } as const;
  for (const pid of pids) {
    const r = await execa('docker', ['ps', '-aq', '--filter', `label=${LABELS.ownerPid}=${pid}`], opts);
    const ids = String(r.stdout).split('\n').filter(Boolean);
    if (ids.length) await execa('docker', ['rm', '-f', '-v', ...ids], opts);
    removed += ids.length;
  }
  return removed;
}

/**
 * Fails with a clear message when the engine (of `env`) or a test image on it is missing.
 * @returns the engine's server version
 */
export async function requireEngine(env?: EngineEnv): Promise<string> {
  const opts = { reject: false, ...(env ? { env } : {}) } as const;
  const where = env?.DOCKER_HOST ? ` at ${env.DOCKER_HOST}` : '';
  const info = await execa('docker', ['info', '--format', '{{.ServerVersion}}'], opts);
  if (info.exitCode !== 0) {
    throw new Error(`the Docker engine${where} is not reachable (${String(info.stderr).trim()}); run "bash scripts/engine-up.sh" first`);
  }
  for (const image of Object.values(IMAGES)) {
    const r = await execa('docker', ['image', 'inspect', '--format', '{{.Id}}', image], opts);
    if (r.exitCode !== 0) throw new Error(`image ${image} is missing on the engine${where}; run "bash scripts/build-test-images.sh" first`);
  }
  return String(info.stdout).trim();
}
