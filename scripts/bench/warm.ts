import { WarmPool } from '../../src/core/run/warm';
import { sleep } from '../../test/support/deadlines';
import { CASES, coreRun, eachCase, firstByteNote, rawCold, type Case, type Pair } from './cold';
import { rawPrestarted, rawSpec } from './docker';
import { interleave, log, ratioRow, targetText, type Ctx, type Figures } from './harness';

/**
 * `warm_floor_ratio` (information): a raw pre-started container, code → CLI exit, against raw cold
 * (docker.ts `rawPrestarted`): the engine's own floor for any warm run that learns the exit from
 * the engine, measured in the same run so `warm_ratio` can be read against it.
 */
async function warmFloor(ctx: Ctx): Promise<number> {
  const ratios: number[] = [];
  for (const c of CASES) {
    const floor = async () => {
      const spec = await rawSpec(c.profileName, c.profile, c.code);
      return rawPrestarted(spec, c.prints, `raw pre-started ${c.label}`).finally(() => spec.dispose());
    };
    const p = await interleave(`warm floor ${c.label}`, { raw: () => rawCold(c), floor }, ctx);
    ctx.rows.push(ratioRow(`warm floor ${c.label}: raw pre-started, code → exit (ms)`, 'info', p.floor.ms, p.raw.ms, 'cold run --rm', '(docker run with the same flags started ahead, untimed until the launcher waits; then the framed code → the CLI exits, removal included: the engine\'s floor for warm_ratio)'));
    ratios.push(p.floor.ms.median / p.raw.ms.median);
  }
  return Math.max(...ratios);
}

export async function warm(ctx: Ctx): Promise<Figures> {
  const [pool, tookWarm] = [new WarmPool({ onLog: (m) => log(`warm pool: ${m}`) }), new Map<string, number>()];
  const ready = async (c: Case) => {
    pool.prepare({ name: c.profileName, profile: c.profile });
    if (!(await pool.ready({ name: c.profileName, profile: c.profile }))) await sleep(100);
  };
  const run = async (c: Case) => {
    await ready(c);
    const idle = new Set(pool.idleNames());
    const t = await coreRun(c, { warm: pool });
    if (idle.has(t.containerName)) tookWarm.set(c.label, (tookWarm.get(c.label) ?? 0) + 1);
    await ready(c);
    await sleep(Number(process.env.BENCH_WARM_PAUSE_MS ?? 0));
    return t;
  };
  const row = (c: Case, p: Pair) => {
    const note = `(core.WarmPool, runInSandbox({ warm: pool }); ${tookWarm.get(c.label) ?? 0} of ${ctx.runs + ctx.warmup} runs incl. warm-up took a warm container) ${firstByteNote(p)}`;
    return { ...ratioRow(`warm ${c.label} (ms, to result)`, 'warm_ratio', p.core.ms, p.raw.ms, 'cold run --rm', note), target: `${targetText('warm_ratio')} raw cold` };
  };
  try {
    const r = await eachCase(ctx, 'warm', run, row);
    return { warm_ratio: r.ratio, warm_first_byte_ms: r.firstByteMs, warm_floor_ratio: await warmFloor(ctx) };
  } finally {
    await pool.dispose();
  }
}
