/** `remote_cold_ratio`: the cold cases on scripts/engine2-up.sh's engine, through `DOCKER_HOST`; on failure an ERROR row and null. */
import { execa } from 'execa';
import { ENGINE2_HOST } from '../../test/support/engine';
import { coreRun, eachCase, firstByteNote, type Case, type Pair } from './cold';
import { engineVersion, sweep } from './docker';
import { log, noFigure, ratioRow, targetText, type Ctx, type Figures, type Row } from './harness';

const env = { DOCKER_HOST: ENGINE2_HOST };

/** The worse ratio of the cases (their rows pushed once all are measured). */
async function measure(ctx: Ctx): Promise<number> {
  log('remote: bash scripts/engine2-up.sh');
  await execa('bash', ['scripts/engine2-up.sh'], { stdio: ['ignore', 2, 2] }); // its progress on stderr; throws when it fails
  const [engine, rows] = [await engineVersion(env), { ...ctx, rows: [] as Row[] }];
  const row = (c: Case, p: Pair) => ratioRow(`remote cold ${c.label} (ms, to result)`, 'remote_cold_ratio', p.core.ms, p.raw.ms, 'run --rm', `(engine ${engine} at ${ENGINE2_HOST}) ${firstByteNote(p)}`);
  try {
    const { ratio } = await eachCase(rows, 'remote cold', (c) => coreRun(c, { docker: { env } }), row, env);
    ctx.rows.push(...rows.rows);
    return ratio;
  } finally {
    const n = await sweep([process.pid], env);
    if (n) log(`remote: removed ${n} leftover containers on ${ENGINE2_HOST}`);
  }
}

export async function remote(ctx: Ctx): Promise<Figures> {
  try {
    return { remote_cold_ratio: await measure(ctx) };
  } catch (e) {
    const why = String(e instanceof Error ? e.message : e).split('\n')[0]!;
    log(`REMOTE COLD ROW ERROR: ${why}`);
    ctx.rows.push(noFigure('remote cold (ms)', targetText('remote_cold_ratio'), 'ERROR', `(ERROR: ${why}; JSON value null)`));
    return { remote_cold_ratio: null };
  }
}
