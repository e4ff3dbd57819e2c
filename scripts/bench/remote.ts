/**
 * `remote_cold_ratio`: the cold cases on the second, "remote-like" engine that
 * scripts/engine2-up.sh starts (private /tmp: it cannot see this client's files), through
 * `DOCKER_HOST`: the core with `docker: { env }`, raw `docker run --rm` with the same environment
 * and the code over stdin (an engine that cannot see this host's files cannot bind-mount a
 * snippet). When the script is missing or fails, or a run fails there, the row says so loudly
 * (SKIPPED / ERROR) and the JSON value is null, never a number measured elsewhere.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CASES, coldPair, firstByteNote } from './cold';
import { requireEngine, sweep } from './docker';
import { log, type Ctx, type Figures, type Row } from './harness';
import { ratioRow, targetText } from './targets';

export const ENGINE2_HOST = 'unix:///run/sandbox-runner-engine2/docker.sock';
const ENGINE2_UP = 'scripts/engine2-up.sh';

/** Runs the (idempotent) start script, its output on stderr; resolves with its exit code. */
function engine2Up(): Promise<number | null> {
  log(`remote: bash ${ENGINE2_UP}`);
  return new Promise((res) => {
    const child = spawn('bash', [ENGINE2_UP], { stdio: ['ignore', 2, 2] });
    child.on('error', () => res(-1));
    child.on('exit', (c) => res(c));
  });
}

/** The remote rows and the worse ratio, or why there are none. */
async function measure(ctx: Ctx): Promise<{ rows: Row[]; ratio: number } | { skipped: boolean; why: string }> {
  if (!existsSync(ENGINE2_UP)) return { skipped: true, why: `${ENGINE2_UP} missing (the engine2 branch adds it)` };
  const code = await engine2Up();
  if (code !== 0) return { skipped: false, why: `${ENGINE2_UP} exited ${code}` };
  const env = { DOCKER_HOST: ENGINE2_HOST };
  const rows: Row[] = [];
  const ratios: number[] = [];
  try {
    const engine = await requireEngine(env);
    for (const c of CASES) {
      const { core, raw } = await coldPair(`remote cold ${c.label}`, c, ctx, 'stdin', env);
      const note = `(engine ${engine} at ${ENGINE2_HOST}) ${firstByteNote(core.firstByteMs, raw.firstByteMs)}`;
      ratios.push(core.ms.median / raw.ms.median);
      rows.push(ratioRow(`remote cold ${c.label} (ms, to result)`, 'remote_cold_ratio', core.ms, raw.ms, 'run --rm', note));
    }
  } catch (e) {
    return { skipped: false, why: String(e instanceof Error ? e.message : e).split('\n')[0]! };
  } finally {
    const n = await sweep([process.pid], env);
    if (n) log(`remote: removed ${n} leftover containers on ${ENGINE2_HOST}`);
  }
  return { rows, ratio: Math.max(...ratios) };
}

export async function remote(ctx: Ctx): Promise<Figures> {
  const r = await measure(ctx);
  if ('rows' in r) {
    ctx.rows.push(...r.rows);
    return { remote_cold_ratio: r.ratio };
  }
  const verdict = r.skipped ? 'SKIPPED' : 'ERROR';
  log(`REMOTE COLD ROW ${verdict}: ${r.why}`);
  const note = `(${r.skipped ? 'skipped' : 'ERROR'}: ${r.why}; JSON value null)`;
  ctx.rows.push({ metric: 'remote cold (ms)', ours: '-', raw: '-', figure: 'n/a', target: targetText('remote_cold_ratio'), verdict, note });
  return { remote_cold_ratio: null };
}
