/**
 * Sandbox Runner benchmark: the core against raw docker with the identical isolation argv, and
 * the extension bundles. `npm run bench` builds and runs it (Docker engine up, test images built).
 * Options: --runs=N (counted runs per series, default 10), --warmup=N (uncounted first runs,
 * default 2), --only=SECTION,… (default all: see SECTIONS), --bundle=PATH (the activation bundle,
 * default dist/extension.js). Progress goes to stderr; stdout is the targets (scripts/bench/targets.ts),
 * the table, then ONE JSON line, always the last (keys: JSON_DIGITS in scripts/bench/harness.ts;
 * -1 = not measured, remote_cold_ratio null = skipped or failed). Each section's file says what it
 * measures; README.md's Benchmark section describes the method. Containers left over after an
 * error or Ctrl-C are removed on exit.
 */
import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { activation } from './bench/activation';
import { bundle } from './bench/bundle';
import { cancel } from './bench/cancel';
import { cli } from './bench/cli';
import { cold } from './bench/cold';
import { concurrent } from './bench/concurrent';
import { requireEngine, sweep } from './bench/docker';
import { flood, floodChildMain, isFloodChild } from './bench/flood';
import { JSON_DIGITS, log, num, renderTable, type Ctx, type Figures } from './bench/harness';
import { remote } from './bench/remote';
import { targetLines } from './bench/targets';
import { throughput } from './bench/throughput';
import { warm } from './bench/warm';

/** The sections in the order they run: the extension figures first (no engine, quick). */
const SECTIONS = { bundle, activation, cold, cli, warm, concurrent, remote, cancel, flood, throughput };
type Section = keyof typeof SECTIONS;

/**
 * The command line (node:util parseArgs, strict: an unknown option is an error).
 * @throws Error for a bad number or an unknown section
 */
function options(argv: string[]): { ctx: Ctx; only: Section[] } {
  const { values: v } = parseArgs({
    args: argv,
    options: { runs: { type: 'string', default: '10' }, warmup: { type: 'string', default: '2' }, only: { type: 'string' }, bundle: { type: 'string', default: 'dist/extension.js' } },
  });
  const [runs, warmup] = [Number(v.runs), Number(v.warmup)];
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(warmup) || warmup < 0) throw new Error('--runs must be ≥ 1 and --warmup ≥ 0');
  const only = (v.only?.split(',') ?? Object.keys(SECTIONS)) as Section[];
  const unknown = only.filter((s) => !(s in SECTIONS));
  if (unknown.length) throw new Error(`unknown section in --only: ${unknown.join(',')} (known: ${Object.keys(SECTIONS).join(',')})`);
  return { ctx: { runs, warmup, bundle: resolve(v.bundle), rows: [], extra: [], childPids: [] }, only };
}

async function main(): Promise<void> {
  if (isFloodChild()) return floodChildMain();
  const { ctx, only } = options(process.argv.slice(2));
  const cleanup = () => sweep([process.pid, ...ctx.childPids]).then((n) => n && log(`removed ${n} leftover containers`));
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  const engine = await requireEngine();
  log(`engine ${engine}; ${ctx.runs} counted runs after ${ctx.warmup} warm-up per series`);
  const figures: Figures = { remote_cold_ratio: null };
  const [t0, loadBefore] = [performance.now(), loadavg()[0]!];
  try {
    for (const [name, run] of Object.entries(SECTIONS)) if (only.includes(name as Section)) Object.assign(figures, await run(ctx));
  } finally {
    await cleanup();
  }
  const json = Object.fromEntries(Object.entries(JSON_DIGITS).map(([k, d]) => [k, figures[k as keyof Figures] === null ? null : num(figures[k as keyof Figures] ?? NaN, d)]));
  const head = `Sandbox Runner benchmark: engine ${engine}, node ${process.version}, ${ctx.runs} counted runs after ${ctx.warmup} warm-up, ` +
    `${((performance.now() - t0) / 1000).toFixed(0)} s, 1-min load average ${loadBefore.toFixed(2)} → ${loadavg()[0]!.toFixed(2)} on ${availableParallelism()} CPUs`;
  process.stdout.write([head, ...targetLines(), ...ctx.extra, '', renderTable(ctx.rows), '', JSON.stringify(json)].join('\n') + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: FAILED: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exitCode = 1;
});
