/**
 * The output-flood measurement, run in a fresh forked Node process (`--expose-gc`) so that its RSS
 * baseline is not the heap left by the other measurements. Per run: gc, baseline RSS, then a
 * 100 MB flood (`head -c 100000000 /dev/zero | tr '\0' y`) against a 1 MiB bound, with
 * - stop time: from the runner's overflow notice (the sink's `notice` call, made synchronously
 *   when the bound is crossed) to the runInSandbox promise resolving; the container is then
 *   verified gone (`docker ps -a --filter name=^/NAME$`, untimed);
 * - RSS growth: peak RSS during the run (process.memoryUsage.rss() sampled every 2 ms by a timer
 *   and on every output callback, and the kernel's maxRSS when it rose during the run) minus the
 *   baseline. The sink keeps the delivered text (≤ the bound) like a UI that shows it would.
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { runInSandbox } from '../../src/core';
import { containerExists, shellProfile } from './docker';
import { fmtMs as ms, fmtRatio, fmtSummary, log, sleep, summarize, type Row, type Series } from './stats';
import { targetText, verdictFor } from './targets';

export const FLOOD_BOUND = 1024 * 1024;
export const FLOOD_CODE = "head -c 100000000 /dev/zero | tr '\\0' y\n";

export interface FloodSample {
  readonly stopS: number;
  readonly rssGrowthBytes: number;
  readonly outcome: string;
  readonly bytesKept: number;
  readonly gone: boolean;
  readonly sampled: number;
}

const CHILD_FLAG = '--bench-flood-child';

export function isFloodChild(): boolean {
  return process.argv.includes(CHILD_FLAG);
}

/** Entry point inside the forked child. */
export async function floodChildMain(): Promise<void> {
  const runs = Number(process.env.BENCH_FLOOD_RUNS ?? 10);
  const warmup = Number(process.env.BENCH_FLOOD_WARMUP ?? 2);
  const profile = shellProfile({ limits: { outputBytes: FLOOD_BOUND } });
  const gc = (globalThis as { gc?: () => void }).gc;
  const samples: FloodSample[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    gc?.();
    await sleep(50);
    gc?.();
    const baseline = process.memoryUsage.rss();
    const maxBefore = process.resourceUsage().maxRSS * 1024;
    let peak = baseline;
    let sampled = 0;
    const sample = () => {
      const rss = process.memoryUsage.rss();
      sampled++;
      if (rss > peak) peak = rss;
    };
    const ticker = setInterval(sample, 2);
    const kept: Uint8Array[] = [];
    let tBound = NaN;
    const result = await runInSandbox({
      profileName: 'bench-flood',
      profile,
      code: FLOOD_CODE,
      onOutput: (stream, data) => {
        if (stream === 'notice') tBound = performance.now();
        else kept.push(data);
        sample();
      },
    });
    const tEnd = performance.now();
    clearInterval(ticker);
    sample();
    const maxAfter = process.resourceUsage().maxRSS * 1024;
    if (maxAfter > maxBefore) peak = Math.max(peak, maxAfter);
    const gone = !(await containerExists(result.containerName));
    if (i >= warmup) {
      samples.push({
        stopS: (tEnd - tBound) / 1000,
        rssGrowthBytes: Math.max(0, peak - baseline),
        outcome: result.outcome,
        bytesKept: result.stdout.bytesKept,
        gone,
        sampled,
      });
    }
    kept.length = 0;
  }
  await new Promise<void>((r) => (process.send ? process.send({ samples }, () => r()) : r()));
  process.disconnect?.();
}

/** Forks this script as the flood child and returns its samples. */
export function runFloodChild(runs: number, warmup: number): Promise<{ samples: FloodSample[]; pid: number }> {
  const script = process.argv[1];
  if (!script) throw new Error('cannot find the benchmark script to fork');
  return new Promise((resolve, reject) => {
    const child = fork(script, [CHILD_FLAG], {
      execArgv: ['--expose-gc'],
      env: { ...process.env, BENCH_FLOOD_RUNS: String(runs), BENCH_FLOOD_WARMUP: String(warmup) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let samples: FloodSample[] | undefined;
    child.on('message', (m: { samples?: FloodSample[] }) => {
      samples = m.samples;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (samples) resolve({ samples, pid: child.pid ?? -1 });
      else reject(new Error(`flood child exited with ${code} before reporting`));
    });
  });
}

/** The flood rows (stop time, RSS growth); the child's pid goes into `childPids` for the leftover sweep. */
export async function benchFlood(a: Series, rows: Row[], childPids: number[]): Promise<{ stopS: number; rssRatio: number }> {
  log('flood: forked child, 100 MB against a 1 MiB bound');
  const { samples, pid } = await runFloodChild(a.runs, a.warmup);
  childPids.push(pid);
  const bad = samples.filter((s) => s.outcome !== 'output-limit' || s.bytesKept !== FLOOD_BOUND || !s.gone);
  const stop = summarize(samples.map((s) => s.stopS * 1000));
  const rss = summarize(samples.map((s) => s.rssGrowthBytes / FLOOD_BOUND));
  const stopS = stop.median / 1000;
  const badNote = bad.length ? `(${bad.length} runs wrong: ${bad.map((b) => `${b.outcome}/${b.bytesKept}/${b.gone ? 'gone' : 'LEFT'}`).join(', ')})` : undefined;
  rows.push({
    metric: 'flood: bound → resolved (ms)', ours: ms(stop), raw: '-', figure: `${stopS.toFixed(3)} s`, target: targetText('flood_stop_s'),
    verdict: bad.length === 0 ? verdictFor('flood_stop_s', stopS) : 'MISS', note: badNote,
  });
  rows.push({
    metric: 'flood: RSS growth / bound', ours: fmtSummary(rss, 2), raw: '-', figure: fmtRatio(rss.median), target: targetText('flood_rss_ratio'),
    verdict: verdictFor('flood_rss_ratio', rss.median),
    note: `(peak ${(rss.max * FLOOD_BOUND / 2 ** 20).toFixed(1)} MiB over baseline; ${Math.round(summarize(samples.map((s) => s.sampled)).median)} RSS samples/run)`,
  });
  return { stopS, rssRatio: rss.median };
}
