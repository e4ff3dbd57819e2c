/**
 * `remote_cold_ratio`: the cold row against the second, "remote-like" engine that
 * scripts/engine2-up.sh starts (its own mount and network namespaces, private /tmp: it cannot see
 * this client's temp files, like a remote host), reached with
 * `DOCKER_HOST=unix:///run/sandbox-runner-engine2/docker.sock`: the core with
 * `docker: { env: { DOCKER_HOST } }`, raw `docker run --rm` with the same environment. The raw
 * side always gets the code over stdin (buildCreateArgv's `delivery: 'stdin'`: `--interactive`,
 * exec tmpfs, the fixed stdin launcher): an engine that cannot see this host's files cannot
 * bind-mount a snippet, so that is the baseline any runner must match there.
 *
 * When the script is missing, fails, or the engine lacks the test images, the row says so loudly
 * ("skipped: …" / "ERROR: …") and the JSON value is null: never a number measured elsewhere.
 * A run that fails on that engine (e.g. a cold path that still bind-mounts the snippet from this
 * host's temp dir, which the engine cannot see) is an ERROR row with the runner's message.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { CASES, coldSeries, type ColdFigures } from './cold';
import { requireEngine, sweep, type EngineEnv } from './docker';
import { log } from './stats';

export const ENGINE2_HOST = 'unix:///run/sandbox-runner-engine2/docker.sock';
export const ENGINE2_UP = 'scripts/engine2-up.sh';

export type RemoteOutcome =
  | { kind: 'skipped'; why: string }
  | { kind: 'error'; why: string }
  | { kind: 'measured'; engine: string; perCase: { label: string; figures: ColdFigures }[]; ratio: number };

/** Starts the second engine with scripts/engine2-up.sh (idempotent), then runs the cold cases on it. */
export async function remoteCold(runs: number, warmup: number, ownerPids: readonly number[]): Promise<RemoteOutcome> {
  const script = resolve(ENGINE2_UP);
  if (!existsSync(script)) return { kind: 'skipped', why: `${ENGINE2_UP} missing (the engine2 branch adds it)` };
  log(`remote: bash ${ENGINE2_UP}`);
  // Its progress goes to stderr: stdout is the table and the JSON line.
  const code = await new Promise<number | null>((res) => {
    const child = spawn('bash', [script], { stdio: ['ignore', 2, 2] });
    child.on('error', () => res(-1));
    child.on('exit', (c) => res(c));
  });
  if (code !== 0) return { kind: 'error', why: `${ENGINE2_UP} exited ${code}` };
  const env: EngineEnv = { DOCKER_HOST: ENGINE2_HOST };
  let engine: string;
  try {
    engine = await requireEngine(env);
  } catch (e) {
    return { kind: 'error', why: String(e instanceof Error ? e.message : e) };
  }
  const perCase: { label: string; figures: ColdFigures }[] = [];
  try {
    for (const c of CASES) perCase.push({ label: c.label, figures: await coldSeries(`remote cold ${c.label}`, c, runs, warmup, env, 'stdin') });
  } catch (e) {
    return { kind: 'error', why: String(e instanceof Error ? e.message : e).split('\n')[0]! };
  } finally {
    const n = await sweep(ownerPids, env);
    if (n) log(`remote: removed ${n} leftover containers on ${ENGINE2_HOST}`);
  }
  return { kind: 'measured', engine, perCase, ratio: Math.max(...perCase.map((p) => p.figures.ratio)) };
}
