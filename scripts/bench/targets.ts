/**
 * The targets: ONE table, used both to print them and to decide PASS/MISS, keyed by the JSON keys.
 * Source: issue 10's "Benchmark" section (cold ≤ 1.05x, warm ≤ 0.20x, concurrent8 ≤ 1.10x, remote
 * cold ≤ 1.10x, bundle ≤ 200,000 bytes at activation and ≤ 400,000 bytes in all), the rest from before.
 */
import { fmtRatio, fmtSummary, type Row, type Summary } from './harness';

/** How a figure compares with `value`, in `unit` (a ratio to raw docker, ms, s or bytes), and what it is. */
type Target = { readonly cmp: '≤' | '<' | '≥'; readonly value: number; readonly unit: 'x' | 'ms' | 's' | 'bytes'; readonly what: string };

const TARGETS = {
  cold_ratio: { cmp: '≤', value: 1.05, unit: 'x', what: 'cold run through the runner / raw `docker run --rm`, same flags (worse of shell and python)' },
  warm_ratio: { cmp: '≤', value: 0.2, unit: 'x', what: 'warm run / raw cold `docker run --rm` (worse of shell and python)' },
  concurrent8_ratio: { cmp: '≤', value: 1.1, unit: 'x', what: '8 snippets at once through the runner / 8 raw `docker run --rm` at once, wall time' },
  remote_cold_ratio: { cmp: '≤', value: 1.1, unit: 'x', what: 'cold row on the second engine (DOCKER_HOST) / raw `docker run --rm` there' },
  cancel_ratio: { cmp: '≤', value: 1.2, unit: 'x', what: 'forced cancel → container gone / raw `docker rm -f -v`' },
  flood_stop_s: { cmp: '<', value: 0.5, unit: 's', what: '100 MB flood: output bound crossed → run resolved' },
  flood_rss_ratio: { cmp: '<', value: 2, unit: 'x', what: '100 MB flood: RSS growth / the 1 MiB bound' },
  throughput_ratio: { cmp: '≥', value: 0.8, unit: 'x', what: '5 MiB of output: streaming MB/s, runner / raw' },
  bundle_bytes: { cmp: '≤', value: 200_000, unit: 'bytes', what: 'JavaScript loaded at activation' },
  bundle_total_bytes: { cmp: '≤', value: 400_000, unit: 'bytes', what: 'all JavaScript the extension may load' },
  activation_ms: { cmp: '≤', value: 30, unit: 'ms', what: 'require(dist/extension.js) + activate() with a fake vscode' },
} as const satisfies Record<string, Target>;

export type TargetKey = keyof typeof TARGETS;

/** PASS when `figure` meets the target of `key`, else MISS (also for NaN). */
export function verdictFor(key: TargetKey, figure: number): 'PASS' | 'MISS' {
  const t: Target = TARGETS[key];
  const ok = t.cmp === '≤' ? figure <= t.value : t.cmp === '<' ? figure < t.value : figure >= t.value;
  return ok ? 'PASS' : 'MISS';
}

/** "≤ 1.05x", "≤ 200,000 bytes", "< 0.5 s". */
export function targetText(key: TargetKey): string {
  const t: Target = TARGETS[key];
  return `${t.cmp} ${t.unit === 'bytes' ? t.value.toLocaleString('en-US') : t.value}${t.unit === 'x' ? 'x' : ` ${t.unit}`}`;
}

/** The targets as printed lines. */
export function targetLines(): string[] {
  const keys = Object.keys(TARGETS) as TargetKey[];
  const w = Math.max(...keys.map((k) => k.length));
  return ['targets (issue 10):', ...keys.map((k) => `  ${k.padEnd(w)}  ${targetText(k).padEnd(18)} ${TARGETS[k].what}`)];
}

/** A row judged against `key` by `value` (MISS regardless when `miss`); `raw` "-" unless given. */
export function judged(metric: string, key: TargetKey, value: number, r: { ours: string; figure: string; raw?: string; note?: string | undefined; miss?: boolean }): Row {
  return { metric, ours: r.ours, raw: r.raw ?? '-', figure: r.figure, target: targetText(key), verdict: r.miss ? 'MISS' : verdictFor(key, value), note: r.note };
}

/** A row without a figure: why (`note`) there is none. */
export const noFigure = (metric: string, target: string, verdict: string, note: string, figure = 'n/a'): Row => ({ metric, ours: '-', raw: '-', figure, target, verdict, note });

/** A row comparing two series of ms by the ratio of their medians, judged against `key` ('info': no target). */
export function ratioRow(metric: string, key: TargetKey | 'info', ours: Summary, raw: Summary, rawWhat: string, note?: string): Row {
  const ratio = ours.median / raw.median;
  const r = { ours: fmtSummary(ours), raw: `${fmtSummary(raw)} (${rawWhat})`, figure: fmtRatio(ratio), note };
  return key === 'info' ? { metric, ...r, target: '(info)', verdict: 'INFO' } : judged(metric, key, ratio, r);
}
