/** Small statistics and table helpers for scripts/bench.ts (no I/O except `log`). */
import { performance } from 'node:perf_hooks';

/** Summary of one series of counted samples. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median, min and max of `xs` (NaN fields for an empty series). */
export function summarize(xs: readonly number[]): Summary {
  if (xs.length === 0) return { n: 0, median: NaN, min: NaN, max: NaN };
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { n: s.length, median, min: s[0]!, max: s[s.length - 1]! };
}

/** Milliseconds taken by `fn`, and its value. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** Progress output goes to stderr so stdout holds only the table and the JSON line. */
export function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** How many runs a series counts, after how many uncounted warm-up runs. */
export interface Series {
  readonly runs: number;
  readonly warmup: number;
}

/** "123.4 [110.2..140.9]" with `digits` decimals. */
export function fmtSummary(s: Summary | undefined, digits = 1): string {
  if (!s || s.n === 0) return '-';
  return `${s.median.toFixed(digits)} [${s.min.toFixed(digits)}..${s.max.toFixed(digits)}]`;
}

/** Milliseconds: "123.4 [110.2..140.9]". */
export const fmtMs = (s: Summary): string => fmtSummary(s, 1);

/** One row of the result table. */
export interface Row {
  readonly metric: string;
  /** Ours (the core / the extension), formatted. */
  readonly ours: string;
  /** The baseline (raw docker), formatted, or "-". */
  readonly raw: string;
  /** The compared figure, formatted (a ratio like "1.23x", or a value with its unit). */
  readonly figure: string;
  readonly target: string;
  /** PASS, MISS, INFO or ERROR. */
  readonly verdict: string;
  readonly note?: string;
}

/** Renders rows as a fixed-width text table. */
export function renderTable(rows: readonly Row[]): string {
  const head: Row = { metric: 'metric', ours: 'ours: median [min..max]', raw: 'raw docker: median [min..max]', figure: 'figure', target: 'target', verdict: 'result' };
  const all = [head, ...rows];
  const cols: (keyof Row)[] = ['metric', 'ours', 'raw', 'figure', 'target', 'verdict'];
  const width = cols.map((c) => Math.max(...all.map((r) => String(r[c] ?? '').length)));
  const line = (r: Row) =>
    cols.map((c, i) => String(r[c] ?? '').padEnd(width[i]!)).join('  ').trimEnd() + (r.note ? `  ${r.note}` : '');
  const rule = width.map((w) => '-'.repeat(w)).join('  ');
  return [line(head), rule, ...rows.map(line)].join('\n');
}

/** "1.234x" or "n/a". */
export function fmtRatio(x: number): string {
  return Number.isFinite(x) ? `${x.toFixed(3)}x` : 'n/a';
}

/** A JSON-safe number: non-finite values become -1 (documented as "not measured"). */
export function num(x: number, digits = 4): number {
  if (!Number.isFinite(x)) return -1;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
