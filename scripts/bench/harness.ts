/** What every section shares: its context, interleaved series and their medians, the table, progress on stderr. */

/** Median, min and max of a series' counted samples (ms unless the row says otherwise). */
export type Summary = { readonly n: number; readonly median: number; readonly min: number; readonly max: number };
/** One row of the table: ours and the raw docker baseline ("-" if none), the compared figure, target, verdict (PASS, MISS, INFO, ERROR). */
export type Row = { metric: string; ours: string; raw: string; figure: string; target: string; verdict: string; note?: string | undefined };
/** A section's input (series size; the activation bundle, absolute) and outputs (rows; forked children to sweep). */
export type Ctx = { readonly runs: number; readonly warmup: number; readonly bundle: string; readonly rows: Row[]; readonly childPids: number[] };

/** The JSON line's keys, in order, with the decimals each is rounded to. */
export const JSON_DIGITS = {
  cold_ratio: 4, warm_ratio: 4, concurrent8_ratio: 4, remote_cold_ratio: 4, cancel_ratio: 4, flood_stop_s: 4, flood_rss_ratio: 4,
  throughput_ratio: 4, bundle_bytes: 0, bundle_total_bytes: 0, activation_ms: 2, cold_first_byte_ms: 1, warm_first_byte_ms: 1, cold_cli_exit_ms: 1,
} as const;
/** What a section measured (NaN: not measurable; null, remote_cold_ratio only: not measured there). */
export type Figures = Partial<Record<keyof typeof JSON_DIGITS, number | null>>;

export const log = (message: string): void => void process.stderr.write(`bench: ${message}\n`);

/** Median, min and max of the finite values of `xs` (NaN when there are none). */
export function summarize(xs: readonly number[]): Summary {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
  return { n: s.length, median, min: s[0] ?? NaN, max: s[s.length - 1] ?? NaN };
}

/**
 * Runs `warmup + runs` iterations; iteration i runs the sides rotated by i (A B, B A, …), so neither
 * always goes first after the other's clean-up. A side returns named figures, e.g. `{ ms, firstByteMs }`.
 * @returns per side, per figure, the summary of the counted (not warm-up) runs
 */
export async function interleave<S extends string, K extends string>(label: string, sides: Record<S, () => Promise<Record<K, number>>>, c: Ctx): Promise<Record<S, Record<K, Summary>>> {
  const names = Object.keys(sides) as S[];
  const got = new Map<S, Record<K, number>[]>(names.map((n) => [n, []]));
  for (let i = 0; i < c.warmup + c.runs; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length]!;
      const sample = await sides[name]();
      if (i >= c.warmup) got.get(name)!.push(sample);
    }
    if ((i + 1) % 4 === 0 || i + 1 === c.warmup + c.runs) log(`${label}: ${i + 1}/${c.warmup + c.runs} iterations (${c.warmup} warm-up)`);
  }
  const sum = (xs: Record<K, number>[]) => Object.fromEntries(Object.keys(xs[0] ?? {}).map((k) => [k, summarize(xs.map((x) => x[k as K]))]));
  return Object.fromEntries(names.map((n) => [n, sum(got.get(n)!)])) as Record<S, Record<K, Summary>>;
}

/** "123.4 [110.2..140.9]" with `digits` decimals, "-" for an empty series. */
export const fmtSummary = (s: Summary, digits = 1): string => (s.n ? `${s.median.toFixed(digits)} [${s.min.toFixed(digits)}..${s.max.toFixed(digits)}]` : '-');
/** "1.234x" or "n/a". */
export const fmtRatio = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(3)}x` : 'n/a');
/** A JSON-safe number: non-finite values become -1 ("not measured"). */
export const num = (x: number, digits: number): number => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : -1);

/** The rows as a fixed-width text table, each note after its row's last column. */
export function renderTable(rows: readonly Row[]): string {
  const head: Row = { metric: 'metric', ours: 'ours: median [min..max]', raw: 'raw docker: median [min..max]', figure: 'figure', target: 'target', verdict: 'result' };
  const cols = ['metric', 'ours', 'raw', 'figure', 'target', 'verdict'] as const;
  const width = cols.map((c) => Math.max(...[head, ...rows].map((r) => r[c].length)));
  const line = (r: Row) => cols.map((c, i) => r[c].padEnd(width[i]!)).join('  ').trimEnd() + (r.note ? `  ${r.note}` : '');
  return [line(head), width.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
