import { WarmPool } from '../../src/core/run/warm';
import { sleep } from '../../test/support/deadlines';
import { coreRun, eachCase, firstByteNote, type Case, type Pair } from './cold';
import { log, ratioRow, targetText, type Ctx, type Figures } from './harness';

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
    return { warm_ratio: r.ratio, warm_first_byte_ms: r.firstByteMs };
  } finally {
    await pool.dispose();
  }
}
