/**
 * `concurrent8_ratio`: 8 snippets at once. Core: 8 `runInSandbox` calls started in the same tick,
 * wall time from the first call to the last result delivered. Raw: 8 `docker run --rm` with the
 * identical isolation argv started in the same tick (their snippets written before the timer),
 * wall time from the first spawn to the last exit. The shell case (`echo ok`), interleaved.
 * Every run must exit 0 and print its line.
 */
import { performance } from 'node:perf_hooks';
import { coreCold, type Case } from './cold';
import { rawSpec, rawTimed, type RawDelivery } from './docker';
import { interleave } from './harness';
import { summarize, type Summary } from './stats';

export const CONCURRENCY = 8;

/** Interleaved series of 8-at-once batches; `ratio` = core median / raw median of the wall times. */
export async function concurrentSeries(c: Case, runs: number, warmup: number, delivery: RawDelivery = 'bind'): Promise<{ core: Summary; raw: Summary; ratio: number }> {
  const res = await interleave(`concurrent ${CONCURRENCY}x ${c.label}`, [
    {
      name: 'raw',
      run: async () => {
        const specs = await Promise.all(Array.from({ length: CONCURRENCY }, () => rawSpec(c.profileName, c.profile, c.code, delivery)));
        try {
          const t0 = performance.now();
          await Promise.all(specs.map((s, i) => rawTimed(s.runArgv, `raw concurrent #${i + 1}`, undefined, s.input)));
          return performance.now() - t0;
        } finally {
          await Promise.all(specs.map((s) => s.dispose()));
        }
      },
    },
    {
      name: 'core',
      run: async () => {
        const t0 = performance.now();
        await Promise.all(Array.from({ length: CONCURRENCY }, () => coreCold(c)));
        return performance.now() - t0;
      },
    },
  ], runs, warmup);
  const core = summarize(res.core!);
  const raw = summarize(res.raw!);
  return { core, raw, ratio: core.median / raw.median };
}
