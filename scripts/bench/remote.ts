/**
 * `remote_cold_ratio`: the cold cases on the second, "remote-like" engine that scripts/engine2-up.sh
 * starts (private /tmp: it cannot see this client's files), through `DOCKER_HOST`, for the core
 * (`docker: { env }`) and raw `docker run --rm` alike. When the script is missing or fails, or a
 * run fails there, the row says so (SKIPPED / ERROR) and the JSON value is null, never a number
 * measured elsewhere.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { coreRun, eachCase, firstByteNote, type Case, type Pair } from './cold';
import { requireEngine, sweep } from './docker';
import { log, type Ctx, type Figures } from './harness';
import { ratioRow, targetText } from './targets';

const ENGINE2_HOST = 'unix:///run/sandbox-runner-engine2/docker.sock';
const ENGINE2_UP = 'scripts/engine2-up.sh';
const env = { DOCKER_HOST: ENGINE2_HOST };

/** Runs the (idempotent) start script, its output on stderr. */
async function engine2Up(): Promise<void> {
  log(`remote: bash ${ENGINE2_UP}`);
  const code = await new Promise((res) => spawn('bash', [ENGINE2_UP], { stdio: ['ignore', 2, 2] }).on('error', () => res(-1)).on('exit', res));
  if (code !== 0) throw new Error(`${ENGINE2_UP} exited ${code}`);
}

/** The worse ratio of the remote cases (their rows pushed). */
async function measure(ctx: Ctx): Promise<number> {
  await engine2Up();
  const engine = await requireEngine(env);
  const row = (c: Case, p: Pair) =>
    ratioRow(`remote cold ${c.label} (ms, to result)`, 'remote_cold_ratio', p.core.ms, p.raw.ms, 'run --rm', `(engine ${engine} at ${ENGINE2_HOST}) ${firstByteNote(p)}`);
  try {
    return (await eachCase(ctx, 'remote cold', (c) => coreRun(c, { docker: { env } }), row, env)).ratio;
  } finally {
    const n = await sweep([process.pid], env);
    if (n) log(`remote: removed ${n} leftover containers on ${ENGINE2_HOST}`);
  }
}

export async function remote(ctx: Ctx): Promise<Figures> {
  const rows = ctx.rows.length;
  let why = `${ENGINE2_UP} missing (the engine2 branch adds it)`;
  try {
    if (existsSync(ENGINE2_UP)) return { remote_cold_ratio: await measure(ctx) };
  } catch (e) {
    why = String(e instanceof Error ? e.message : e).split('\n')[0]!;
    ctx.rows.splice(rows); // never a row of a case measured before the failure
  }
  const verdict = existsSync(ENGINE2_UP) ? 'ERROR' : 'SKIPPED';
  log(`REMOTE COLD ROW ${verdict}: ${why}`);
  ctx.rows.push({ metric: 'remote cold (ms)', ours: '-', raw: '-', figure: 'n/a', target: targetText('remote_cold_ratio'), verdict, note: `(${verdict === 'ERROR' ? 'ERROR' : 'skipped'}: ${why}; JSON value null)` });
  return { remote_cold_ratio: null };
}
