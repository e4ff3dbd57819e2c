/** What every section shares: its context, interleaved series, medians, table rows, progress on stderr. */

/** Summary of one series of counted samples (ms unless a row says otherwise). */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median, min and max of the finite values of `xs` (NaN fields when there are none). */
export function summarize(xs: readonly number[]): Summary {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return { n: 0, median: NaN, min: NaN, max: NaN };
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { n: s.length, median, min: s[0]!, max: s[s.length - 1]! };
}

/** The JSON line's keys, in order, with the decimals each is rounded to. */
export const JSON_DIGITS = {
  cold_ratio: 4, warm_ratio: 4, concurrent8_ratio: 4, remote_cold_ratio: 4, cancel_ratio: 4, flood_stop_s: 4, flood_rss_ratio: 4,
  throughput_ratio: 4, bundle_bytes: 0, bundle_total_bytes: 0, activation_ms: 2, cold_first_byte_ms: 1, warm_first_byte_ms: 1, cold_cli_exit_ms: 1,
} as const;

/** Figures a section measured (NaN: not measurable; null only for remote_cold_ratio: skipped or failed). */
export type Figures = Partial<Record<keyof typeof JSON_DIGITS, number | null>>;

/** One row of the result table. */
export interface Row {
  readonly metric: string;
  readonly ours: string;
  /** The raw docker baseline, or "-". */
  readonly raw: string;
  /** The compared figure, e.g. "1.234x" or "127610 bytes". */
  readonly figure: string;
  readonly target: string;
  /** PASS, MISS, INFO, SKIPPED or ERROR. */
  readonly verdict: string;
  readonly note?: string | undefined;
}

/** What a section gets: its series size, the activation bundle, and where its rows go. */
export interface Ctx {
  readonly runs: number;
  readonly warmup: number;
  /** Absolute path of the activation bundle measured (default dist/extension.js). */
  readonly bundle: string;
  readonly rows: Row[];
  /** Lines printed before the table (the bundle composition). */
  readonly extra: string[];
  /** Forked children whose containers the final sweep removes. */
  readonly childPids: number[];
}

/** Progress goes to stderr: stdout holds only the targets, the table and the JSON line. */
export function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `warmup + runs` iterations; iteration i runs the sides rotated by i (A B, B A, …) so
 * neither always goes first after the other's clean-up. A side returns named figures (e.g.
 * `{ ms, firstByteMs }`); warm-up iterations are not counted.
 * @returns per side, per figure, the summary of the counted runs
 */
export async function interleave<S extends string, K extends string>(
  label: string, sides: Record<S, () => Promise<Record<K, number>>>, c: Pick<Ctx, 'runs' | 'warmup'>,
): Promise<Record<S, Record<K, Summary>>> {
  const names = Object.keys(sides) as S[];
  const got = Object.fromEntries(names.map((n) => [n, []])) as unknown as Record<S, Record<K, number>[]>;
  const total = c.warmup + c.runs;
  for (let i = 0; i < total; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(j + i) % names.length]!;
      const sample = await sides[name]();
      if (i >= c.warmup) got[name].push(sample);
    }
    if ((i + 1) % 4 === 0 || i + 1 === total) log(`${label}: ${i + 1}/${total} iterations (${c.warmup} warm-up)`);
  }
  const sum = (xs: Record<K, number>[]) => Object.fromEntries(Object.keys(xs[0] ?? {}).map((k) => [k, summarize(xs.map((x) => x[k as K]))]));
  return Object.fromEntries(names.map((n) => [n, sum(got[n])])) as Record<S, Record<K, Summary>>;
}

/** "123.4 [110.2..140.9]" with `digits` decimals, "-" for an empty series. */
export function fmtSummary(s: Summary, digits = 1): string {
  return s.n === 0 ? '-' : `${s.median.toFixed(digits)} [${s.min.toFixed(digits)}..${s.max.toFixed(digits)}]`;
}

/** "1.234x" or "n/a". */
export const fmtRatio = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(3)}x` : 'n/a');

/** A JSON-safe number: non-finite values become -1 ("not measured"). */
export function num(x: number, digits: number): number {
  return Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : -1;
}

/** Renders rows as a fixed-width text table, notes after the last column. */
export function renderTable(rows: readonly Row[]): string {
  const head: Row = { metric: 'metric', ours: 'ours: median [min..max]', raw: 'raw docker: median [min..max]', figure: 'figure', target: 'target', verdict: 'result' };
  const cols = ['metric', 'ours', 'raw', 'figure', 'target', 'verdict'] as const;
  const width = cols.map((c) => Math.max(...[head, ...rows].map((r) => r[c].length)));
  const line = (r: Row) => cols.map((c, i) => r[c].padEnd(width[i]!)).join('  ').trimEnd() + (r.note ? `  ${r.note}` : '');
  return [line(head), width.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
