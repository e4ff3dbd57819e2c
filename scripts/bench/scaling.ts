/** `concurrent32_ratio`, `scaling_ratios`: 1, 2, 4, 8, 16 and 32 shell runs at once through the runner and as raw `docker run --rm`,
 * wall time (first call → last result) per run, ours / raw per level; a table row per level and a chart (asciichart). */
import { plot } from 'asciichart';
import { performance } from 'node:perf_hooks';
import { CASES, coreRun } from './cold';
import { rawSpec, rawTimed } from './docker';
import { fmtRatio, interleave, log, ratioRow, type Ctx, type Figures, type Summary } from './harness';

export const LEVELS = [1, 2, 4, 8, 16, 32] as const;
/** Counted iterations per level at most (63 containers per side and iteration over the levels: the full --runs would take long on 2 CPUs). */
const MAX_RUNS = 3;

/** Wall time of `fn(0)` … `fn(n - 1)` started at once, ms per run. */
async function wall(n: number, fn: (i: number) => Promise<unknown>): Promise<{ ms: number }> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
  return { ms: (performance.now() - t0) / n };
}

/** Small terminal charts (asciichart), one per side on the same scale: per-run wall time (ms) by runs at once, each level `W` columns wide. */
export function scalingChart(ours: readonly number[], raw: readonly number[]): string {
  const W = 8;
  const [min, max] = [Math.min(...ours, ...raw), Math.max(...ours, ...raw)];
  const one = (title: string, xs: readonly number[]) => {
    const chart = plot(xs.flatMap((x) => Array<number>(W).fill(x)), { height: 6, min, max, format: (x) => `${x.toFixed(0).padStart(7)} ms ` });
    const pad = ' '.repeat(Math.max(0, chart.split('\n')[0]!.search(/[┤┼]/) + 1));
    return [title, chart, pad + LEVELS.map((n) => `${n}x`.padEnd(W)).join('')].join('\n');
  };
  return [one('scaling, ours: wall time per run (ms) by runs at once', ours), one('scaling, raw docker run --rm: wall time per run (ms) by runs at once', raw)].join('\n');
}

export async function scaling(ctx: Ctx): Promise<Figures> {
  const c = CASES[0]!;
  const sub: Ctx = { ...ctx, runs: Math.min(ctx.runs, MAX_RUNS), warmup: Math.min(ctx.warmup, 1) };
  const [ours, raw, ratios] = [[] as number[], [] as number[], {} as Record<string, number>];
  for (const n of LEVELS) {
    const rawSide = async () => {
      const specs = await Promise.all(Array.from({ length: n }, () => rawSpec(c.profileName, c.profile, c.code)));
      return wall(n, (i) => rawTimed(specs[i]!.runArgv, `raw scaling ${n}x #${i + 1}`, { input: specs[i]!.input })).finally(() => Promise.all(specs.map((s) => s.dispose())));
    };
    const p = await interleave(`scaling ${n}x ${c.label}`, { raw: rawSide, core: () => wall(n, () => coreRun(c)) }, sub);
    const [o, r]: [Summary, Summary] = [p.core.ms, p.raw.ms];
    const ratio = o.median / r.median;
    ours.push(o.median);
    raw.push(r.median);
    ratios[String(n)] = ratio;
    const metric = `scaling ${String(n).padStart(2)}x ${c.label} (ms per run, wall)`;
    const note = `(${sub.runs} counted iterations after ${sub.warmup} warm-up; wall time / ${n})`;
    ctx.rows.push(ratioRow(metric, n === 32 ? 'concurrent32_ratio' : 'info', o, r, `${n}x run --rm`, note));
  }
  log(`scaling: ours/raw by level ${LEVELS.map((n) => `${n}x ${fmtRatio(ratios[String(n)]!)}`).join(', ')}`);
  ctx.charts.push(scalingChart(ours, raw));
  return { concurrent32_ratio: ratios['32'] ?? NaN, scaling_ratios: ratios };
}

