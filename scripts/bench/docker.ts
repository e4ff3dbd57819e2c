/**
 * The raw-docker baseline: the argv the runner's cold path runs (`buildRunArgv`, src/core/argv.ts:
 * the isolation floor, the same mounts and owner labels, the code over stdin to the fixed launcher),
 * run with the docker CLI through execa with the core's spawn options (`SPAWN_OPTIONS`).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { buildRunArgv, encodeFrame, LABELS, ownerLabels, ProfileSchema, resolveMounts, runInSandbox, snippetFileName, SPAWN_OPTIONS, type Profile } from '../../src/core';

const IMAGES = { busybox: 'sandbox-runner-test/busybox:1', python: 'sandbox-runner-test/python:2' } as const;

/** The busybox test image with the `shell` profile's command, `overrides` merged in. */
export const shellProfile = (overrides: Record<string, unknown> = {}): Profile =>
  ProfileSchema.parse({ image: IMAGES.busybox, command: ['sh', '${file}'], extensions: ['.sh'], ...overrides });
/** The python test image with the built-in `python` profile's command and env. */
export const pythonProfile = (): Profile =>
  ProfileSchema.parse({ image: IMAGES.python, command: ['python3', '${file}'], extensions: ['.py'], env: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' } });

/** Extra environment selecting the engine (e.g. `{ DOCKER_HOST }`); undefined = the default engine. */
export type EngineEnv = Readonly<Record<string, string>> | undefined;
/** One raw container: its name, `run --rm …` as the core would run it (fresh run id), the framed code for its stdin. */
export type RawSpec = { readonly name: string; readonly runArgv: string[]; readonly input: Uint8Array; dispose(): Promise<void> };
/** Spawn → exit and spawn → first stdout byte (NaN if none), ms. */
export type Timing = { ms: number; firstByteMs: number };

/** Builds the core's argv for `code` under `profile` (untimed set-up). */
export async function rawSpec(profileName: string, profile: Profile, code: string): Promise<RawSpec> {
  const runId = randomUUID();
  const pins = await resolveMounts(profileName, profile);
  const argv = buildRunArgv({ name: `sandbox-runner-${runId}`, profile, snippetFileName: snippetFileName(profile), mounts: pins.mounts, labels: ownerLabels(runId, profileName) });
  return { name: `sandbox-runner-${runId}`, runArgv: ['run', '--rm', ...argv.slice(1)], input: encodeFrame(code), dispose: () => pins.dispose() };
}

const checked = new Set<string>();
/**
 * Once per profile, one untimed run through the runner (`onArgv`).
 * @throws Error unless it ran the raw side's argv but for the run id and `--rm`
 */
export async function checkSameArgv(profileName: string, profile: Profile, code: string): Promise<void> {
  if (checked.has(profileName)) return;
  let ours: readonly string[] = [];
  await runInSandbox({ profileName, profile, code, onArgv: (a) => (ours = ours.length ? ours : a) });
  const raw = await rawSpec(profileName, profile, code);
  await raw.dispose();
  const id = (argv: readonly string[]) => JSON.stringify(argv).replaceAll(argv[argv.indexOf('--name') + 1]!.slice('sandbox-runner-'.length), 'ID');
  if (id(ours) !== id(raw.runArgv.filter((a) => a !== '--rm'))) throw new Error(`${profileName}: the runner's argv is no longer the raw side's; update scripts/bench/docker.ts\n${id(ours)}\n${id(raw.runArgv)}`);
  checked.add(profileName);
}

/**
 * `docker …` with the core's spawn options on the engine of `env`: `input` written to its stdin, stdout drained (each chunk to `onData`).
 * @throws Error with docker's stderr when it exits non-zero
 */
export async function rawTimed(args: readonly string[], what: string, o: { env?: EngineEnv; input?: Uint8Array; onData?: (b: Buffer) => void } = {}): Promise<Timing> {
  const t0 = performance.now();
  let [firstByteMs, stderr] = [NaN, ''];
  const p = execa('docker', args, { ...SPAWN_OPTIONS, buffer: false, ...(o.env ? { env: o.env } : {}), ...(o.input ? { stdin: 'pipe' as const } : {}) });
  p.stdin?.end(o.input);
  p.stdout?.on('data', (b: Buffer) => {
    if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
    o.onData?.(b);
  });
  p.stderr?.on('data', (b: Buffer) => (stderr = (stderr + b.toString('utf8')).slice(-2000)));
  const r = await p;
  const ms = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${what}: docker ${args[0]} exited ${r.exitCode}: ${stderr.trim()}`);
  return { ms, firstByteMs };
}

/** True while a container with exactly this name exists in any state (default engine). */
export const containerExists = async (name: string): Promise<boolean> =>
  String((await execa('docker', ['ps', '-aq', '--filter', `name=^/${name}$`], { reject: false })).stdout).trim() !== '';

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
    if ((await execa('docker', ['image', 'inspect', image], opts)).exitCode !== 0) throw new Error(`image ${image} is missing on the engine${where}; run "bash scripts/build-test-images.sh" first`);
  }
  return String(info.stdout).trim();
}
