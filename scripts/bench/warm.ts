/**
 * `warm_ratio`: `runInSandbox({ ...req, warm: pool })` with the core's WarmPool vs the same raw
 * cold `run --rm`, interleaved, per profile; the worse ratio. Before each timed warm run the pool
 * is made ready (untimed: prepare() + ready()); the run is timed from the call to the promise,
 * which includes the pool starting the replacement in the background, as in real use; then the
 * replacement is awaited (untimed, plus BENCH_WARM_PAUSE_MS) so it does not load the next raw run.
 * The row says how many runs really took a warm container (`idleNames()` before the run).
 */
import { performance } from 'node:perf_hooks';
import { runInSandbox, WarmPool } from '../../src/core';
import { CASES, deliveryFor, expectExited, firstByteNote, rawCold, type Case } from './cold';
import { interleave, log, sleep, type Ctx, type Figures } from './harness';
import { ratioRow, targetText } from './targets';

/** Untimed pause after each warm run (and its replacement), so the engine is idle again. */
const WARM_PAUSE_MS = Number(process.env.BENCH_WARM_PAUSE_MS ?? 0);

/** One warm run of `c`: ms and first stdout byte; `tookWarm` counts the runs that got a warm container. */
async function warmRun(pool: WarmPool, c: Case, tookWarm: { n: number }): Promise<{ ms: number; firstByteMs: number }> {
  const ready = async () => {
    pool.prepare(c.profileName, c.profile);
    if (!(await pool.ready(c.profileName, c.profile))) await sleep(100);
  };
  await ready();
  const idle = new Set(pool.idleNames());
  let firstByteMs = NaN;
  const t0 = performance.now();
  const result = await runInSandbox({
    profileName: c.profileName, profile: c.profile, code: c.code, warm: pool,
    onOutput: (stream, _data) => {
      if (stream === 'stdout' && Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
    },
  });
  const ms = performance.now() - t0;
  expectExited(result, `warm ${c.label}`);
  if (idle.has(result.containerName)) tookWarm.n++;
  await ready();
  if (WARM_PAUSE_MS > 0) await sleep(WARM_PAUSE_MS);
  return { ms, firstByteMs };
}

/** The warm rows; warm_first_byte_ms is the shell case's. */
export async function warm(ctx: Ctx): Promise<Figures> {
  const pool = new WarmPool({ onLog: (m) => log(`warm pool: ${m}`) });
  const ratios: number[] = [];
  const first: number[] = [];
  try {
    for (const c of CASES) {
      const delivery = await deliveryFor(c);
      const tookWarm = { n: 0 };
      const res = await interleave(`warm ${c.label}`, { raw: () => rawCold(c, delivery), warm: () => warmRun(pool, c, tookWarm) }, ctx);
      const note = `(core.WarmPool, runInSandbox({ warm: pool }); ${tookWarm.n} of ${ctx.runs + ctx.warmup} runs incl. warm-up took a warm container) ${firstByteNote(res.warm.firstByteMs, res.raw.firstByteMs)}`;
      const row = ratioRow(`warm ${c.label} (ms, to result)`, 'warm_ratio', res.warm.ms, res.raw.ms, 'cold run --rm', note);
      ctx.rows.push({ ...row, target: `${targetText('warm_ratio')} raw cold` });
      ratios.push(res.warm.ms.median / res.raw.ms.median);
      first.push(res.warm.firstByteMs.median);
    }
  } finally {
    await pool.dispose();
  }
  return { warm_ratio: Math.max(...ratios), warm_first_byte_ms: first[0] ?? NaN };
}
