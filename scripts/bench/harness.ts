/** What every section shares: its context, interleaved series and their medians, the targets (ONE table for printing and PASS/MISS), rows and the table. */
/** Summary: a series' counted samples (ms unless the row says otherwise). Row verdict: PASS, MISS, INFO or ERROR. Ctx: series size, bundle (absolute), rows, forked children to sweep, charts printed after the table. */
export type Summary = { readonly n: number; readonly median: number; readonly min: number; readonly max: number };
export type Row = { metric: string; ours: string; raw: string; figure: string; target: string; verdict: string; note?: string | undefined };
export type Ctx = { readonly runs: number; readonly warmup: number; readonly bundle: string; readonly rows: Row[]; readonly childPids: number[]; readonly charts: string[] };
/** The JSON line's keys, in order, with the decimals each is rounded to (`scaling_ratios`: per level, see scaling.ts). */
export const JSON_DIGITS = {
  cold_ratio: 4, warm_ratio: 4, concurrent8_ratio: 4, concurrent32_ratio: 4, remote_cold_ratio: 4, cancel_ratio: 4, flood_stop_s: 4, flood_rss_ratio: 4,
  throughput_ratio: 4, cli_exit_ratio: 4, mcp_warm_ratio: 4, mcp_concurrent4_ratio: 4, gvisor_cold_ratio: 4, compiled_cold_ratio: 4, deps_cached_ratio: 4, deps_install_s: 2,
  session_cell_ms: 1, session_start_ratio: 4, bundle_bytes: 0, bundle_total_bytes: 0, activation_ms: 2, cold_first_byte_ms: 1, warm_first_byte_ms: 1,
  cold_cli_exit_ms: 1, warm_floor_ratio: 4,
} as const;
/** What a section measured (NaN: not measurable; null, remote_cold_ratio only: not measured there). */
export type Figures = Partial<Record<keyof typeof JSON_DIGITS, number | null>> & { scaling_ratios?: Record<string, number> };
/** Issue 26's "What to reach" (issue 10's rows kept, some targets raised), the rest from before. */
type Target = { readonly cmp: '≤' | '<' | '≥'; readonly value: number; readonly unit: 'x' | 'ms' | 's' | 'bytes'; readonly what: string };
const TARGETS = {
  cold_ratio: { cmp: '≤', value: 1.05, unit: 'x', what: 'cold run through the runner / raw `docker run --rm`, same flags (worse of shell and python)' },
  warm_ratio: { cmp: '≤', value: 0.15, unit: 'x', what: 'warm run / raw cold `docker run --rm` (worse of shell and python)' },
  concurrent8_ratio: { cmp: '≤', value: 1.1, unit: 'x', what: '8 snippets at once through the runner / 8 raw `docker run --rm` at once, wall time' },
  concurrent32_ratio: { cmp: '≤', value: 1.1, unit: 'x', what: 'scaling: 32 snippets at once through the runner / 32 raw `docker run --rm` at once, wall time' },
  remote_cold_ratio: { cmp: '≤', value: 1.1, unit: 'x', what: 'cold row on the second engine (DOCKER_HOST) / raw `docker run --rm` there' },
  cancel_ratio: { cmp: '≤', value: 1.2, unit: 'x', what: 'forced cancel → container gone / raw `docker rm -f -v`' },
  flood_stop_s: { cmp: '<', value: 0.5, unit: 's', what: '100 MB flood: output bound crossed → run resolved' },
  flood_rss_ratio: { cmp: '<', value: 2, unit: 'x', what: '100 MB flood: RSS growth / the 1 MiB bound' },
  throughput_ratio: { cmp: '≥', value: 0.9, unit: 'x', what: '5 MiB of output: streaming MB/s, runner / raw' },
  cli_exit_ratio: { cmp: '≤', value: 1.25, unit: 'x', what: '`node dist/cli.js FILE` spawn → exit / raw `docker run --rm` spawn → exit (both include removal)' },
  mcp_warm_ratio: { cmp: '≤', value: 0.3, unit: 'x', what: 'MCP `tools/call` round trip (SDK client, stdio) / raw cold `docker run --rm`' },
  compiled_cold_ratio: { cmp: '≤', value: 1.05, unit: 'x', what: 'C hello world, compile + run through the runner (built-in c profile) / raw `docker run --rm … sh -c "gcc … && ./a.out"`, same flags' },
  gvisor_cold_ratio: { cmp: '≤', value: 1.05, unit: 'x', what: 'cold run with runtime runsc / raw `docker run --runtime runsc`, same flags' },
  deps_cached_ratio: { cmp: '≤', value: 1.1, unit: 'x', what: 'node run requiring a cached dependency set through the runner / raw `docker run --rm` of the same argv, the set volume mounted read-only (issue 22)' },
  session_cell_ms: { cmp: '≤', value: 20, unit: 'ms', what: 'a `1+1` cell in a live session, execute → result (median)' },
  session_start_ratio: { cmp: '≤', value: 1.2, unit: 'x', what: 'a new session\'s start + first cell / raw cold `docker run --rm` (python)' },
  bundle_bytes: { cmp: '≤', value: 150_000, unit: 'bytes', what: 'JavaScript loaded at activation' },
  bundle_total_bytes: { cmp: '≤', value: 600_000, unit: 'bytes', what: 'all JavaScript the extension may load (the old 400,000 retired, issue 26)' },
  activation_ms: { cmp: '≤', value: 15, unit: 'ms', what: 'require(dist/extensionLoader.js, which loads dist/extension.js) + activate() with a fake vscode, code cache in place' },
} as const satisfies Record<string, Target>;
export type TargetKey = keyof typeof TARGETS;
export const log = (message: string): void => void process.stderr.write(`bench: ${message}\n`);

/** Median, min and max of the finite values of `xs` (NaN when there are none). */
export function summarize(xs: readonly number[]): Summary {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
  return { n: s.length, median, min: s[0] ?? NaN, max: s[s.length - 1] ?? NaN };
}

/** `warmup + runs` iterations, each running the sides rotated by i (A B, B A, …); a side returns figures (`{ ms, … }`).
 * @returns per side, per figure, the summary of the counted (not warm-up) runs */
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

/** "123.4 [110.2..140.9]" with `digits` decimals, "-" for an empty series; "1.234x"; JSON-safe numbers (-1: not measured). */
export const fmtSummary = (s: Summary, digits = 1): string => (s.n ? `${s.median.toFixed(digits)} [${s.min.toFixed(digits)}..${s.max.toFixed(digits)}]` : '-');
export const fmtRatio = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(3)}x` : 'n/a');
export const num = (x: number, digits: number): number => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : -1);
/** PASS when `figure` meets the target of `key`, else MISS (also for NaN). */
export function verdictFor(key: TargetKey, figure: number): 'PASS' | 'MISS' {
  const t: Target = TARGETS[key];
  return (t.cmp === '≤' ? figure <= t.value : t.cmp === '<' ? figure < t.value : figure >= t.value) ? 'PASS' : 'MISS';
}

/** "≤ 1.05x", "≤ 200,000 bytes", "< 0.5 s"; targetLines: the whole table so. */
export function targetText(key: TargetKey): string {
  const t: Target = TARGETS[key];
  return `${t.cmp} ${t.unit === 'bytes' ? t.value.toLocaleString('en-US') : t.value}${t.unit === 'x' ? 'x' : ` ${t.unit}`}`;
}
export function targetLines(): string[] {
  const keys = Object.keys(TARGETS) as TargetKey[];
  const w = Math.max(...keys.map((k) => k.length));
  return ['targets (issues 10 and 26):', ...keys.map((k) => `  ${k.padEnd(w)}  ${targetText(k).padEnd(18)} ${TARGETS[k].what}`)];
}

/** A row judged against `key` by `value` (MISS regardless when `miss`); `raw` "-" unless given. */
export function judged(metric: string, key: TargetKey, value: number, r: { ours: string; figure: string; raw?: string; note?: string | undefined; miss?: boolean }): Row {
  return { metric, ours: r.ours, raw: r.raw ?? '-', figure: r.figure, target: targetText(key), verdict: r.miss ? 'MISS' : verdictFor(key, value), note: r.note };
}
/** A row without a figure; `note` says why. */
export const noFigure = (metric: string, target: string, verdict: string, note: string, figure = 'n/a'): Row => ({ metric, ours: '-', raw: '-', figure, target, verdict, note });
/** Two series of ms compared by the ratio of their medians, judged against `key` ('info': no target). */
export function ratioRow(metric: string, key: TargetKey | 'info', ours: Summary, raw: Summary, rawWhat: string, note?: string): Row {
  const ratio = ours.median / raw.median;
  const r = { ours: fmtSummary(ours), raw: `${fmtSummary(raw)} (${rawWhat})`, figure: fmtRatio(ratio), note };
  return key === 'info' ? { metric, ...r, target: '(info)', verdict: 'INFO' } : judged(metric, key, ratio, r);
}

/** A fixed-width text table, each note after its row. */
export function renderTable(rows: readonly Row[]): string {
  const head: Row = { metric: 'metric', ours: 'ours: median [min..max]', raw: 'raw docker: median [min..max]', figure: 'figure', target: 'target', verdict: 'result' };
  const cols = ['metric', 'ours', 'raw', 'figure', 'target', 'verdict'] as const;
  const width = cols.map((c) => Math.max(...[head, ...rows].map((r) => r[c].length)));
  const line = (r: Row) => cols.map((c, i) => r[c].padEnd(width[i]!)).join('  ').trimEnd() + (r.note ? `  ${r.note}` : '');
  return [line(head), width.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
