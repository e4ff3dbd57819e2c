/** `flood_stop_s`, `flood_rss_ratio`: 100 MB of output, 1 MiB bound, in a forked child (`--expose-gc`: a clean RSS baseline): overflow
 * notice → promise resolved; peak RSS (2 ms samples, kernel maxRSS) − baseline after gc, / bound. */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { runInSandbox } from '../../src/core/run/runner';
import type { Profile } from '../../src/core/profiles/profileSchema';
import { sleep } from '../../test/support/deadlines';
import { shellProfile } from '../../test/support/profiles';
import { containerExists } from './docker';
import { fmtRatio, fmtSummary, judged, log, summarize, type Ctx, type Figures } from './harness';

const [BOUND, CHILD_FLAG] = [1024 * 1024, '--bench-flood-child'];
type Sample = { stopS: number; rssGrowthBytes: number; outcome: string; bytesKept: number; gone: boolean; sampled: number };
export const isFloodChild = (): boolean => process.argv.includes(CHILD_FLAG);

async function floodOnce(profile: Profile, gc: () => void): Promise<Sample> {
  gc();
  await sleep(50);
  gc();
  const [baseline, maxBefore, kept] = [process.memoryUsage.rss(), process.resourceUsage().maxRSS * 1024, [] as Uint8Array[]];
  let [peak, sampled, tBound] = [baseline, 0, NaN];
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage.rss());
    sampled++;
  };
  const ticker = setInterval(sample, 2);
  const r = await runInSandbox({
    profileName: 'bench-flood', profile, code: "head -c 100000000 /dev/zero | tr '\\0' y\n",
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

/** In the forked child (`… --bench-flood-child RUNS WARMUP`): the counted samples go to the parent over IPC. */
export async function floodChildMain(): Promise<void> {
  const [runs, warmup] = process.argv.slice(-2).map(Number) as [number, number];
  const [profile, samples, gc] = [shellProfile({ limits: { outputBytes: BOUND } }), [] as Sample[], (globalThis as { gc?: () => void }).gc ?? (() => undefined)];
  for (let i = 0; i < warmup + runs; i++) {
    const s = await floodOnce(profile, gc);
    if (i >= warmup) samples.push(s);
  }
  await new Promise((r) => process.send?.({ samples }, r) ?? r(null));
  process.disconnect?.();
}

export async function flood(ctx: Ctx): Promise<Figures> {
  log('flood: forked child, 100 MB against a 1 MiB bound');
  const child = fork(process.argv[1]!, [CHILD_FLAG, String(ctx.runs), String(ctx.warmup)], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  ctx.childPids.push(child.pid ?? -1);
  let samples: Sample[] = [];
  child.on('message', (m: { samples: Sample[] }) => (samples = m.samples));
  const code = await new Promise((res, rej) => child.on('error', rej).on('exit', res));
  if (!samples.length) throw new Error(`flood child exited with ${code} before reporting`);
  const bad = samples.filter((s) => s.outcome !== 'output-limit' || s.bytesKept !== BOUND || !s.gone);
  const [stop, rss] = [summarize(samples.map((s) => s.stopS * 1000)), summarize(samples.map((s) => s.rssGrowthBytes / BOUND))];
  const badNote = `(${bad.length} runs wrong: ${bad.map((b) => `${b.outcome}/${b.bytesKept}/${b.gone ? 'gone' : 'LEFT'}`).join(', ')})`;
  ctx.rows.push(judged('flood: bound → resolved (ms)', 'flood_stop_s', stop.median / 1000, { ours: fmtSummary(stop), figure: `${(stop.median / 1000).toFixed(3)} s`, miss: bad.length > 0, note: bad.length ? badNote : undefined }));
  const rssNote = `(peak ${((rss.max * BOUND) / 2 ** 20).toFixed(1)} MiB over baseline; ${Math.round(summarize(samples.map((s) => s.sampled)).median)} RSS samples/run)`;
  ctx.rows.push(judged('flood: RSS growth / bound', 'flood_rss_ratio', rss.median, { ours: fmtSummary(rss, 2), figure: fmtRatio(rss.median), note: rssNote }));
  return { flood_stop_s: stop.median / 1000, flood_rss_ratio: rss.median };
}
