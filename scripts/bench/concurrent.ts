/** `concurrent8_ratio`: 8 shell runs at once, first call → last result, vs 8 raw `docker run --rm`, first spawn → last exit. */
import { performance } from 'node:perf_hooks';
import { CASES, coreRun } from './cold';
import { rawSpec, rawTimed } from './docker';
import { interleave, ratioRow, type Ctx, type Figures } from './harness';
/** Wall time of `fn(0)` … `fn(7)` started at once, ms. */
async function wall8(fn: (i: number) => Promise<unknown>): Promise<{ ms: number }> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 8 }, (_, i) => fn(i)));
  return { ms: performance.now() - t0 };
}

export async function concurrent(ctx: Ctx): Promise<Figures> {
  const c = CASES[0]!;
  const raw = async () => {
    const specs = await Promise.all(Array.from({ length: 8 }, () => rawSpec(c.profileName, c.profile, c.code)));
    return wall8((i) => rawTimed(specs[i]!.runArgv, `raw concurrent #${i + 1}`, { input: specs[i]!.input })).finally(() => Promise.all(specs.map((s) => s.dispose())));
  };
  const p = await interleave(`concurrent 8x ${c.label}`, { raw, core: () => wall8(() => coreRun(c)) }, ctx);
  ctx.rows.push(ratioRow(`concurrent 8x ${c.label} (ms, wall)`, 'concurrent8_ratio', p.core.ms, p.raw.ms, '8x run --rm'));
  return { concurrent8_ratio: p.core.ms.median / p.raw.ms.median };
}
