/**
 * The raw-docker baseline: the IDENTICAL isolation argv the core builds (`buildCreateArgv` in
 * src/core/argv.ts, same snippet layout, mounts and owner labels), run with the docker CLI through
 * execa from this Node process, with the core's own spawn options (`SPAWN_OPTIONS`).
 */
import { randomUUID } from 'node:crypto';
import { execa } from 'execa';
import {
  buildCreateArgv, LABELS, ownerLabels, ProfileSchema, resolveMounts, snippetFileName, SPAWN_OPTIONS, writeSnippet,
  type Profile,
} from '../../src/core';

export const IMAGES = {
  busybox: 'sandbox-runner-test/busybox:1',
  python: 'sandbox-runner-test/python:1',
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

/** One raw container's argv, with its snippet already written (untimed set-up). */
export interface RawSpec {
  readonly name: string;
  /** `create …` exactly as the core would run it (fresh name and run id). */
  readonly createArgv: readonly string[];
  /** The same argv as `run --rm …`. */
  readonly runArgv: readonly string[];
  dispose(): Promise<void>;
}

/** Builds the core's argv for `code` under `profile` and writes the snippet it mounts. */
export async function rawSpec(profileName: string, profile: Profile, code: string): Promise<RawSpec> {
  const runId = randomUUID();
  const name = `sandbox-runner-${runId}`;
  const pins = await resolveMounts(profileName, profile);
  const snippet = await writeSnippet(code, snippetFileName(profile));
  const createArgv = buildCreateArgv({
    name,
    profile,
    snippetHostDir: snippet.dir,
    snippetFileName: snippet.fileName,
    mounts: pins.mounts,
    labels: ownerLabels(runId, profileName),
  });
  if (createArgv[0] !== 'create') throw new Error(`buildCreateArgv no longer starts with "create": ${createArgv[0]}`);
  return {
    name,
    createArgv,
    runArgv: ['run', '--rm', ...createArgv.slice(1)],
    dispose: () => Promise.all([snippet.dispose(), pins.dispose()]).then(() => undefined),
  };
}

/** `docker …` to completion with the core's spawn options (output buffered). */
export function dockerCli(args: readonly string[]) {
  return execa('docker', args, { ...SPAWN_OPTIONS });
}

/** True while a container with exactly this name exists in any state. */
export async function containerExists(name: string): Promise<boolean> {
  const r = await execa('docker', ['ps', '-a', '--filter', `name=^/${name}$`, '--format', '{{.Names}}'], { reject: false });
  return String(r.stdout).trim() !== '';
}

/** Removes every container labelled as owned by one of `pids` (left behind by an interrupted run). */
export async function sweep(pids: readonly number[]): Promise<number> {
  let removed = 0;
  for (const pid of pids) {
    const r = await execa('docker', ['ps', '-aq', '--filter', `label=${LABELS.ownerPid}=${pid}`], { reject: false });
    const ids = String(r.stdout).split('\n').filter(Boolean);
    if (ids.length) await execa('docker', ['rm', '-f', '-v', ...ids], { reject: false });
    removed += ids.length;
  }
  return removed;
}

/** Fails with a clear message when the engine or a test image is missing. */
export async function requireEngine(): Promise<string> {
  const info = await execa('docker', ['info', '--format', '{{.ServerVersion}}'], { reject: false });
  if (info.exitCode !== 0) {
    throw new Error(`the Docker engine is not reachable (${String(info.stderr).trim()}); run "bash scripts/engine-up.sh" first`);
  }
  for (const image of Object.values(IMAGES)) {
    const r = await execa('docker', ['image', 'inspect', '--format', '{{.Id}}', image], { reject: false });
    if (r.exitCode !== 0) throw new Error(`image ${image} is missing; run "bash scripts/build-test-images.sh" first`);
  }
  return String(info.stdout).trim();
}
