/**
 * `flood_stop_s` and `flood_rss_ratio`, measured in a forked child (`--expose-gc`) so its RSS
 * baseline is not the heap left by other sections. Per run: gc, baseline RSS, then 100 MB of
 * output (`head -c 100000000 /dev/zero | tr '\0' y`) against a 1 MiB bound. Stop time: the
 * runner's overflow notice (sent synchronously when the bound is crossed) → the promise
 * resolving; the container is then verified gone (untimed). RSS growth: peak RSS during the run
 * (sampled every 2 ms and on every output callback, and the kernel's maxRSS when it rose) minus
 * the baseline, over the bound. The sink keeps the delivered text (≤ the bound) as a UI would.
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { runInSandbox, type Profile } from '../../src/core';
import { containerExists, shellProfile } from './docker';
import { fmtRatio, fmtSummary, log, sleep, summarize, type Ctx, type Figures } from './harness';
import { targetText, verdictFor } from './targets';

const BOUND = 1024 * 1024;
const CODE = "head -c 100000000 /dev/zero | tr '\\0' y\n";
const CHILD_FLAG = '--bench-flood-child';

interface FloodSample {
  readonly stopS: number;
  readonly rssGrowthBytes: number;
  readonly outcome: string;
  readonly bytesKept: number;
  readonly gone: boolean;
  readonly sampled: number;
}

export const isFloodChild = (): boolean => process.argv.includes(CHILD_FLAG);

/** One flood run inside the child. */
async function floodOnce(profile: Profile): Promise<FloodSample> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await sleep(50);
  gc?.();
  const baseline = process.memoryUsage.rss();
  const maxBefore = process.resourceUsage().maxRSS * 1024;
  let peak = baseline;
  let sampled = 0;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage.rss());
    sampled++;
  };
  const ticker = setInterval(sample, 2);
  const kept: Uint8Array[] = [];
  let tBound = NaN;
  const r = await runInSandbox({
    profileName: 'bench-flood', profile, code: CODE,
    onOutput: (stream, data) => {
      if (stream === 'notice') tBound = performance.now();
      else kept.push(data);
      sample();
    },
  });
  const stopS = (performance.now() - tBound) / 1000;
  clearInterval(ticker);
  sample();
  const maxAfter = process.resourceUsage().maxRSS * 1024;
  if (maxAfter > maxBefore) peak = Math.max(peak, maxAfter);
  const gone = !(await containerExists(r.containerName));
  return { stopS, rssGrowthBytes: Math.max(0, peak - baseline), outcome: r.outcome, bytesKept: r.stdout.bytesKept, gone, sampled };
}

/** Entry point inside the forked child: sends the counted samples to the parent. */
export async function floodChildMain(): Promise<void> {
  const runs = Number(process.env.BENCH_FLOOD_RUNS);
  const warmup = Number(process.env.BENCH_FLOOD_WARMUP);
  const profile = shellProfile({ limits: { outputBytes: BOUND } });
  const samples: FloodSample[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const s = await floodOnce(profile);
    if (i >= warmup) samples.push(s);
  }
  await new Promise<void>((r) => (process.send ? process.send({ samples }, () => r()) : r()));
  process.disconnect?.();
}

/** Forks this script as the flood child; its pid goes into `ctx.childPids` for the leftover sweep. */
function runFloodChild(ctx: Ctx): Promise<FloodSample[]> {
  const child = fork(process.argv[1]!, [CHILD_FLAG], {
    execArgv: ['--expose-gc'],
    env: { ...process.env, BENCH_FLOOD_RUNS: String(ctx.runs), BENCH_FLOOD_WARMUP: String(ctx.warmup) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (child.pid) ctx.childPids.push(child.pid);
  let samples: FloodSample[] | undefined;
  child.on('message', (m: { samples?: FloodSample[] }) => (samples = m.samples));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (samples ? resolve(samples) : reject(new Error(`flood child exited with ${code} before reporting`))));
  });
}

export async function flood(ctx: Ctx): Promise<Figures> {
  log('flood: forked child, 100 MB against a 1 MiB bound');
  const samples = await runFloodChild(ctx);
  const bad = samples.filter((s) => s.outcome !== 'output-limit' || s.bytesKept !== BOUND || !s.gone);
  const stop = summarize(samples.map((s) => s.stopS * 1000));
  const rss = summarize(samples.map((s) => s.rssGrowthBytes / BOUND));
  const stopS = stop.median / 1000;
  const badNote = bad.length ? `(${bad.length} runs wrong: ${bad.map((b) => `${b.outcome}/${b.bytesKept}/${b.gone ? 'gone' : 'LEFT'}`).join(', ')})` : undefined;
  ctx.rows.push({
    metric: 'flood: bound → resolved (ms)', ours: fmtSummary(stop), raw: '-', figure: `${stopS.toFixed(3)} s`, target: targetText('flood_stop_s'),
    verdict: bad.length === 0 ? verdictFor('flood_stop_s', stopS) : 'MISS', note: badNote,
  });
  ctx.rows.push({
    metric: 'flood: RSS growth / bound', ours: fmtSummary(rss, 2), raw: '-', figure: fmtRatio(rss.median), target: targetText('flood_rss_ratio'),
    verdict: verdictFor('flood_rss_ratio', rss.median),
    note: `(peak ${((rss.max * BOUND) / 2 ** 20).toFixed(1)} MiB over baseline; ${Math.round(summarize(samples.map((s) => s.sampled)).median)} RSS samples/run)`,
  });
  return { flood_stop_s: stopS, flood_rss_ratio: rss.median };
}
