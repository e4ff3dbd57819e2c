/**
 * `concurrent8_ratio`: 8 shell snippets at once, interleaved. Core: 8 `runInSandbox` calls started
 * in the same tick, first call → last result. Raw: 8 `docker run --rm` with the identical argv
 * (snippets written before the clock), first spawn → last exit. Every run must exit 0 and print its line.
 */
import { performance } from 'node:perf_hooks';
import { CASES, coreCold, deliveryFor } from './cold';
import { rawSpec, rawTimed } from './docker';
import { interleave, type Ctx, type Figures } from './harness';
import { ratioRow } from './targets';

const N = 8;

/** Wall time of `n` calls of `fn` started at once, ms. */
async function wall(fn: (i: number) => Promise<unknown>): Promise<{ ms: number }> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: N }, (_, i) => fn(i)));
  return { ms: performance.now() - t0 };
}

export async function concurrent(ctx: Ctx): Promise<Figures> {
  const c = CASES[0]!;
  const delivery = await deliveryFor(c);
  const raw = async () => {
    const specs = await Promise.all(Array.from({ length: N }, () => rawSpec(c.profileName, c.profile, c.code, delivery)));
    try {
      return await wall((i) => rawTimed(specs[i]!.runArgv, `raw concurrent #${i + 1}`, { input: specs[i]!.input }));
    } finally {
      await Promise.all(specs.map((s) => s.dispose()));
    }
  };
  const res = await interleave(`concurrent ${N}x ${c.label}`, { raw, core: () => wall(() => coreCold(c)) }, ctx);
  ctx.rows.push(ratioRow(`concurrent ${N}x ${c.label} (ms, wall)`, 'concurrent8_ratio', res.core.ms, res.raw.ms, `${N}x run --rm`));
  return { concurrent8_ratio: res.core.ms.median / res.raw.ms.median };
}
