/**
 * The raw-docker baseline: the IDENTICAL isolation argv the core builds (`buildCreateArgv` /
 * `buildRunArgv` in src/core/argv.ts, same snippet layout, mounts and owner labels), run with the
 * docker CLI through execa with the core's own spawn options (`SPAWN_OPTIONS`).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import {
  buildCreateArgv, buildRunArgv, encodeFrame, LABELS, ownerLabels, ProfileSchema, resolveMounts, runInSandbox, snippetFileName, SPAWN_OPTIONS, writeSnippet,
  type Profile,
} from '../../src/core';

export const IMAGES = { busybox: 'sandbox-runner-test/busybox:1', python: 'sandbox-runner-test/python:2' } as const;

/** The busybox test image with the `shell` profile's command, `overrides` merged in. */
export function shellProfile(overrides: Record<string, unknown> = {}): Profile {
  return ProfileSchema.parse({ image: IMAGES.busybox, command: ['sh', '${file}'], extensions: ['.sh'], ...overrides });
}

/** The python test image with the built-in `python` profile's command and env. */
export function pythonProfile(): Profile {
  const env = { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' };
  return ProfileSchema.parse({ image: IMAGES.python, command: ['python3', '${file}'], extensions: ['.py'], env });
}

/**
 * How the raw side gets the code: `bind` (a host snippet directory mounted read-only) or `stdin`
 * (`run --interactive`, the fixed launcher and a framed input, launcher.ts: the only way on an
 * engine that cannot see this host's files).
 */
export type RawDelivery = 'bind' | 'stdin';

/** Extra environment selecting the engine (e.g. `{ DOCKER_HOST }`); undefined = the default engine. */
export type EngineEnv = Readonly<Record<string, string>> | undefined;

/** One raw container: `create …` and `run --rm …` exactly as the core would run it, its snippet already written. */
export interface RawSpec {
  readonly name: string;
  readonly createArgv: readonly string[];
  readonly runArgv: readonly string[];
  /** The bytes for the container's stdin (`stdin` delivery), else undefined. */
  readonly input: Uint8Array | undefined;
  dispose(): Promise<void>;
}

/** Builds the core's argv for `code` under `profile` (fresh name and run id); untimed set-up. */
export async function rawSpec(profileName: string, profile: Profile, code: string, delivery: RawDelivery): Promise<RawSpec> {
  const runId = randomUUID();
  const pins = await resolveMounts(profileName, profile);
  const snippet = delivery === 'bind' ? await writeSnippet(code, snippetFileName(profile)) : undefined;
  const spec = { name: `sandbox-runner-${runId}`, profile, snippetFileName: snippet?.fileName ?? snippetFileName(profile), mounts: pins.mounts, labels: ownerLabels(runId, profileName) };
  const argv = delivery === 'stdin' ? buildRunArgv(spec) : buildCreateArgv({ ...spec, snippetHostDir: snippet!.dir });
  return {
    name: spec.name,
    // `create` takes no --sig-proxy (a `run`/`start` option); the other flags are the same.
    createArgv: ['create', ...argv.slice(1).filter((x) => x !== '--sig-proxy=false')],
    runArgv: ['run', '--rm', ...argv.slice(1)],
    input: delivery === 'stdin' ? encodeFrame(code) : undefined,
    dispose: () => Promise.all([snippet?.dispose(), pins.dispose()]).then(() => undefined),
  };
}

/**
 * The delivery the runner's own cold path uses for `profile`, from the argv of one untimed run
 * (`onArgv`): `stdin` when it has `--interactive`/`-i`, else `bind`; so the raw side keeps the same flags.
 */
export async function runnerDelivery(profileName: string, profile: Profile, code: string): Promise<RawDelivery> {
  let argv: readonly string[] = [];
  await runInSandbox({ profileName, profile, code, onArgv: (a) => (argv = argv.length ? argv : a) });
  return argv.includes('--interactive') || argv.includes('-i') ? 'stdin' : 'bind';
}

/** Spawn → exit and spawn → first stdout byte (NaN if none) of one docker call, ms. */
export type Timing = { ms: number; firstByteMs: number };

/**
 * `docker …` with the core's spawn options on the engine of `env`: `input` (if any) written to
 * its stdin, stdout drained (each chunk to `onData`).
 * @throws Error with docker's stderr when it exits non-zero
 */
export async function rawTimed(args: readonly string[], what: string, o: { env?: EngineEnv; input?: Uint8Array | undefined; onData?: (b: Buffer) => void } = {}): Promise<Timing> {
  const t0 = performance.now();
  let first = NaN;
  let stderr = '';
  const p = execa('docker', args, { ...SPAWN_OPTIONS, buffer: false, ...(o.env ? { env: o.env } : {}), ...(o.input ? { stdin: 'pipe' as const } : {}) });
  if (o.input) p.stdin?.end(o.input);
  p.stdout?.on('data', (b: Buffer) => {
    if (Number.isNaN(first)) first = performance.now() - t0;
    o.onData?.(b);
  });
  p.stderr?.on('data', (b: Buffer) => (stderr = (stderr + b.toString('utf8')).slice(-2000)));
  const r = await p;
  const ms = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${what}: docker ${args[0]} exited ${r.exitCode}: ${stderr.trim()}`);
  return { ms, firstByteMs: first };
}

/** True while a container with exactly this name exists in any state (default engine). */
export async function containerExists(name: string): Promise<boolean> {
  const r = await execa('docker', ['ps', '-a', '--filter', `name=^/${name}$`, '--format', '{{.Names}}'], { reject: false });
  return String(r.stdout).trim() !== '';
}

/** Removes every container labelled as owned by one of `pids`; returns how many. */
export async function sweep(pids: readonly number[], env?: EngineEnv): Promise<number> {
  const opts = { reject: false, ...(env ? { env } : {}) } as const;
  const ps = await Promise.all(pids.map((pid) => execa('docker', ['ps', '-aq', '--filter', `label=${LABELS.ownerPid}=${pid}`], opts)));
  const ids = ps.flatMap((r) => String(r.stdout).split('\n').filter(Boolean));
  if (ids.length) await execa('docker', ['rm', '-f', '-v', ...ids], opts);
  return ids.length;
}

/**
 * The engine's server version (of `env`).
 * @throws Error naming the set-up script when the engine or a test image is missing
 */
export async function requireEngine(env?: EngineEnv): Promise<string> {
  const opts = { reject: false, ...(env ? { env } : {}) } as const;
  const where = env?.DOCKER_HOST ? ` at ${env.DOCKER_HOST}` : '';
  const info = await execa('docker', ['info', '--format', '{{.ServerVersion}}'], opts);
  if (info.exitCode !== 0) throw new Error(`the Docker engine${where} is not reachable (${String(info.stderr).trim()}); run "bash scripts/engine-up.sh" first`);
  for (const image of Object.values(IMAGES)) {
    const r = await execa('docker', ['image', 'inspect', '--format', '{{.Id}}', image], opts);
    if (r.exitCode !== 0) throw new Error(`image ${image} is missing on the engine${where}; run "bash scripts/build-test-images.sh" first`);
  }
  return String(info.stdout).trim();
}
