/** The raw baseline: the runner's cold-path argv (`buildRunArgv`, code over stdin), run by the docker CLI with the core's `SPAWN_OPTIONS`. */
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { buildRunArgv } from '../../src/core/container/argv';
import { encodeFrame } from '../../src/core/container/launcher';
import { LABELS, ownerLabels } from '../../src/core/ownership/labels';
import { resolveMounts } from '../../src/core/mounts/mounts';
import { runInSandbox } from '../../src/core/run/runner';
import { snippetFileName } from '../../src/core/source/snippet';
import { SPAWN_OPTIONS } from '../../src/core/engine/spawnEnv';
import type { Profile } from '../../src/core/profiles/profileSchema';
import { CONTAINER_NAME_PREFIX, newContainerName } from '../../src/core/layout';
import { containerNames, requireEngine, type EngineUnderTest } from '../../test/support/engine';
import { TEST_IMAGES } from '../../test/support/images';

const docker = (host?: string): EngineUnderTest => ({ dockerPath: 'docker', host });
/** `env`: the engine (`{ DOCKER_HOST }`, undefined: the default). RawSpec: `run --rm …` as the core would run it, fresh run id, the framed code for stdin. */
export type EngineEnv = { DOCKER_HOST: string } | undefined;
export type RawSpec = { readonly name: string; readonly runArgv: string[]; readonly input: Uint8Array; dispose(): Promise<void> };
/** Spawn → exit and spawn → first stdout byte (NaN if none), ms. */
export type Timing = { ms: number; firstByteMs: number };
/** The engine's version. @throws Error naming the set-up script when it or the busybox and python test images are missing */
export const engineVersion = (env?: EngineEnv): Promise<string> => requireEngine(docker(env?.DOCKER_HOST), [TEST_IMAGES.busybox, TEST_IMAGES.python]);
export const containerExists = async (name: string): Promise<boolean> => (await containerNames(`name=^/${name}$`, docker())).length > 0;

/** Builds the core's argv for `code` under `profile` (untimed set-up). */
export async function rawSpec(profileName: string, profile: Profile, code: string): Promise<RawSpec> {
  const [{ runId, name }, pins] = [newContainerName(), await resolveMounts({ name: profileName, profile })];
  const argv = buildRunArgv({ name, profile, snippetFileName: snippetFileName(profile), mounts: pins.mounts, labels: ownerLabels(runId, profileName) });
  return { name, runArgv: ['run', '--rm', ...argv.slice(1)], input: encodeFrame(code), dispose: () => pins.dispose() };
}

const checked = new Set<string>();
/** Once per profile, one untimed run through the runner. @throws Error unless it ran the raw side's argv but for the run id and `--rm` */
export async function checkSameArgv(profileName: string, profile: Profile, code: string): Promise<void> {
  if (checked.has(profileName)) return;
  let ours: readonly string[] = [];
  await runInSandbox({ profileName, profile, code, onArgv: (a) => (ours = ours.length ? ours : a) });
  const raw = await rawSpec(profileName, profile, code);
  await raw.dispose();
  const id = (argv: readonly string[]) => JSON.stringify(argv).replaceAll(argv[argv.indexOf('--name') + 1]!.slice(CONTAINER_NAME_PREFIX.length), 'ID');
  if (id(ours) !== id(raw.runArgv.filter((a) => a !== '--rm'))) throw new Error(`${profileName}: the runner's argv is no longer the raw side's; update scripts/bench/docker.ts\n${id(ours)}`);
  checked.add(profileName);
}

/** `docker …` (core's spawn options, engine of `env`): `input` to its stdin, stdout drained (each chunk to `onData`). @throws Error with docker's stderr when it exits non-zero */
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

/** Removes every container labelled as owned by one of `pids`; returns how many. */
export async function sweep(pids: readonly number[], env?: EngineEnv): Promise<number> {
  const names = (await Promise.all(pids.map((pid) => containerNames(`label=${LABELS.ownerPid}=${pid}`, docker(env?.DOCKER_HOST))))).flat();
  if (names.length) await execa('docker', ['rm', '-f', '-v', ...names], { reject: false, ...(env ? { env } : {}) });
  return names.length;
}

/**
 * The engine's floor for a warm run (`warm_floor_ratio`, information): the raw side's argv started
 * ahead with its stdin open until the launcher's `waiting` marker came (untimed, as the pool does),
 * then timed from writing the framed code to the docker CLI's exit (`--rm`: removal included, as in
 * raw cold). No admission, no pool, no runner: what any client that learns the exit from the
 * engine (the attached CLI, or `wait`) cannot beat. `prints` is checked in stdout.
 * @throws Error when the marker never comes (30 s), the CLI exits non-zero, or the output differs
 */
export async function rawPrestarted(spec: RawSpec, prints: string, what: string): Promise<Timing> {
  const p = execa('docker', spec.runArgv, { ...SPAWN_OPTIONS, buffer: false, stdin: 'pipe' });
  let [out, err, t0, firstByteMs] = ['', '', 0, NaN];
  const waiting = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no waiting marker within 30 s: ${err.trim()}`)), 30_000);
    const seen = () => (out + err).includes('sandbox-runner:waiting') && (clearTimeout(timer), resolve());
    p.stdout?.on('data', (b: Buffer) => {
      if (t0 && Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
      out += b.toString('utf8');
      seen();
    });
    p.stderr?.on('data', (b: Buffer) => ((err = (err + b.toString('utf8')).slice(-4000)), seen()));
  });
  try {
    await waiting;
    t0 = performance.now();
    p.stdin?.end(spec.input);
    const r = await p;
    const ms = performance.now() - t0;
    if (r.exitCode !== 0) throw new Error(`${what}: docker run exited ${r.exitCode}: ${err.trim()}`);
    if (!out.endsWith(prints)) throw new Error(`${what}: printed ${JSON.stringify(out.slice(-200))}`);
    return { ms, firstByteMs };
  } finally {
    p.kill('SIGKILL');
  }
}
