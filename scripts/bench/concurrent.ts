/**
 * `concurrent8_ratio`: 8 shell snippets at once, interleaved: 8 `runInSandbox` calls started in the
 * same tick, first call → last result, vs 8 raw `docker run --rm` (argv built before the clock),
 * first spawn → last exit. Every run must exit 0 (and, through the runner, print its line).
 */
import { performance } from 'node:perf_hooks';
import { CASES, coreRun } from './cold';
import { rawSpec, rawTimed } from './docker';
import { interleave, type Ctx, type Figures } from './harness';
import { ratioRow } from './targets';

const N = 8;

/** Wall time of `fn(0)` … `fn(N - 1)` started at once, ms. */
async function wall(fn: (i: number) => Promise<unknown>): Promise<{ ms: number }> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: N }, (_, i) => fn(i)));
  return { ms: performance.now() - t0 };
}

export async function concurrent(ctx: Ctx): Promise<Figures> {
  const c = CASES[0]!;
  const raw = async () => {
    const specs = await Promise.all(Array.from({ length: N }, () => rawSpec(c.profileName, c.profile, c.code)));
    try {
      return await wall((i) => rawTimed(specs[i]!.runArgv, `raw concurrent #${i + 1}`, { input: specs[i]!.input }));
    } finally {
      await Promise.all(specs.map((s) => s.dispose()));
    }
  };
  const p = await interleave(`concurrent ${N}x ${c.label}`, { raw, core: () => wall(() => coreRun(c)) }, ctx);
  ctx.rows.push(ratioRow(`concurrent ${N}x ${c.label} (ms, wall)`, 'concurrent8_ratio', p.core.ms, p.raw.ms, `${N}x run --rm`));
  return { concurrent8_ratio: p.core.ms.median / p.raw.ms.median };
}
