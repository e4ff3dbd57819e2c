/** The benchmark (`npm run bench`; README.md): --runs=N (10), --warmup=N (2), --only=SECTION,… (SECTIONS), --bundle=PATH (package.json `main`: dist/extensionLoader.js).
 * stdout: targets, table, then ONE JSON line (JSON_DIGITS; -1 = not measured); progress on stderr. A section that fails gets an ERROR row, the others still run; exit status 1. */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { activation } from './bench/activation';
import { bundle } from './bench/bundle';
import { cancel } from './bench/cancel';
import { cli, cold } from './bench/cold';
import { compiled } from './bench/compiled';
import { concurrent } from './bench/concurrent';
import { engineVersion, sweep } from './bench/docker';
import { flood, floodChildMain, isFloodChild } from './bench/flood';
import { JSON_DIGITS, log, noFigure, num, renderTable, targetLines, type Ctx, type Figures } from './bench/harness';
import { deps } from './bench/deps';
import { gvisor } from './bench/later';
import { session } from './bench/session';
import { mcp } from './bench/mcp';
import { remote } from './bench/remote';
import { scaling } from './bench/scaling';
import { throughput } from './bench/throughput';
import { warm } from './bench/warm';

/** The sections in the order they run: the extension figures first (no engine, quick). */
const SECTIONS: Record<string, (ctx: Ctx) => Promise<Figures>> = { bundle, activation, cold, cli, warm, concurrent, scaling, mcp, remote, cancel, flood, throughput, gvisor, compiled, session, deps };
/** @throws Error for an unknown option (node:util parseArgs, strict) or section, or a bad number */
function options(argv: string[]): { ctx: Ctx; only: string[] } {
  const opts = { runs: { type: 'string', default: '10' }, warmup: { type: 'string', default: '2' }, only: { type: 'string' }, bundle: { type: 'string', default: (JSON.parse(readFileSync('package.json', 'utf8')) as { main: string }).main } } as const;
  const { values: v } = parseArgs({ args: argv, options: opts });
  const [runs, warmup, only] = [Number(v.runs), Number(v.warmup), v.only?.split(',') ?? Object.keys(SECTIONS)];
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(warmup) || warmup < 0) throw new Error('--runs must be ≥ 1 and --warmup ≥ 0');
  const unknown = only.filter((s) => !(s in SECTIONS));
  if (unknown.length) throw new Error(`unknown section in --only: ${unknown.join(',')} (known: ${Object.keys(SECTIONS).join(',')})`);
  return { ctx: { runs, warmup, bundle: resolve(v.bundle), rows: [], childPids: [], charts: [] }, only };
}

async function main(): Promise<void> {
  if (isFloodChild()) return floodChildMain();
  const { ctx, only } = options(process.argv.slice(2));
  const cleanup = () => sweep([process.pid, ...ctx.childPids]).then((n) => n && log(`removed ${n} leftover containers`));
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  const engine = await engineVersion();
  log(`engine ${engine}; ${ctx.runs} counted runs after ${ctx.warmup} warm-up per series`);
  const [figures, t0, load] = [{ remote_cold_ratio: null } as Figures, performance.now(), loadavg()[0]!];
  try {
    for (const [name, section] of Object.entries(SECTIONS)) {
      if (!only.includes(name)) continue;
      // A failed section (a run timed out on a loaded machine) costs its rows, not the others': ERROR row, its keys -1, exit status 1.
      try {
        Object.assign(figures, await section(ctx));
      } catch (e) {
        const why = String(e instanceof Error ? e.message : e).split('\n')[0]!;
        log(`SECTION ${name} FAILED: ${why}`);
        ctx.rows.push(noFigure(`${name} (section)`, '-', 'ERROR', `(the section failed: ${why}; its JSON keys stay -1)`, 'error'));
        process.exitCode = 1;
      }
    }
  } finally {
    await cleanup();
  }
  const json: [string, unknown][] = Object.entries(JSON_DIGITS).map(([k, d]) => [k, figures[k as keyof typeof JSON_DIGITS] === null ? null : num(figures[k as keyof typeof JSON_DIGITS] ?? NaN, d)]);
  json.push(['scaling_ratios', Object.fromEntries(Object.entries(figures.scaling_ratios ?? {}).map(([n, r]) => [n, num(r, 4)]))]);
  const head = `Sandbox Runner benchmark: engine ${engine}, node ${process.version}, ${ctx.runs} counted runs after ${ctx.warmup} warm-up, ` +
    `${((performance.now() - t0) / 1000).toFixed(0)} s, 1-min load average ${load.toFixed(2)} → ${loadavg()[0]!.toFixed(2)} on ${availableParallelism()} CPUs`;
  process.stdout.write([head, ...targetLines(), '', renderTable(ctx.rows), '', ...ctx.charts.flatMap((c) => [c, '']), JSON.stringify(Object.fromEntries(json))].join('\n') + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: FAILED: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exitCode = 1;
});
