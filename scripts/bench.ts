/**
 * Sandbox Runner performance benchmark: the core against raw docker, and the extension bundles.
 *
 * Build and run (from the repository root, Docker engine up, test images built):
 *   npm run bench
 * which is
 *   node esbuild.config.mjs --production --metafile=out/bench/extension-meta.json &&
 *   esbuild scripts/bench.ts --bundle --platform=node --format=cjs --main-fields=module,main \
 *     --external:vscode --log-level=warning --outfile=out/scripts/bench.js && node out/scripts/bench.js
 * (esbuild's CLI spells it --main-fields; --mainFields is rejected as an invalid build flag.)
 * Options (node:util parseArgs): --runs=N (counted runs per series, default 10, at least 10 for a
 * report), --warmup=N (default 2), --only=cold,warm,concurrent,remote,cli,cancel,flood,throughput,bundle,activation,
 * --bundle=PATH (the activation bundle measured, default dist/extension.js, e.g. a candidate build),
 * --explain (instead of the benchmark: where the core's cold time goes, see scripts/bench/explain.ts).
 * Environment: BENCH_WARM=off (report as if there were no warm path), BENCH_WARM_EXPORT=Name,
 * BENCH_WARM_PAUSE_MS=N (untimed pause after each warm run, default 0), see scripts/bench/warm.ts.
 * Progress goes to stderr; stdout is the targets, the table, then ONE JSON line, always the last line:
 *   {"cold_ratio","warm_ratio","concurrent8_ratio","remote_cold_ratio","cancel_ratio","flood_stop_s",
 *    "flood_rss_ratio","throughput_ratio","bundle_bytes","bundle_total_bytes","activation_ms",
 *    "cold_first_byte_ms","warm_first_byte_ms","cold_cli_exit_ms"}
 *   numbers; -1 = not measured; remote_cold_ratio is null when the second engine was skipped or
 *   failed (the row says why). The last three are information (no target): medians of the shell case.
 * Targets: scripts/bench/targets.ts, ONE table used for printing and for PASS/MISS.
 *
 * Method. Everything runs in this one Node process (the flood in a forked child, see below),
 * against the local engine (and the second engine for `remote`) and the test images
 * `sandbox-runner-test/busybox:1` (the `shell` profile's command `sh ${file}`) and
 * `sandbox-runner-test/python:2` (the built-in `python` profile's command and env). A/B series are
 * interleaved: each iteration runs every side once, alternating which goes first; the first
 * --warmup iterations are not counted; each figure is the median of the counted runs, with min
 * and max. Ratios are ours / raw of the medians. The machine may be shared: a row's min..max says
 * how noisy it was, and the header prints the load average before and after.
 *
 * "Raw" is the IDENTICAL isolation argv, derived from `buildCreateArgv` (src/core/argv.ts) with
 * the same snippet layout, mounts and owner labels, run with the docker CLI through execa with
 * the core's own spawn options (`SPAWN_OPTIONS`); only `create` becomes `run --rm` where noted.
 * The raw side's snippet directory is written before its timer starts; the core writes its own
 * inside runInSandbox (that is part of the core's cost). The raw side delivers the code as the
 * runner's cold path does (bind mount, or `--interactive` + stdin when the runner's argv has it:
 * found once per case from an untimed run's `onArgv`); on the second engine always over stdin.
 *
 * - cold (scripts/bench/cold.ts): `runInSandbox` of `echo ok` (shell) and `print("ok")` (python),
 *   call to result delivered (the clock stops when the promise resolves: if container removal
 *   continues in the background after the result, it is not in this figure) vs
 *   `docker run --rm <argv>` spawn to exit. cold_ratio = the worse of the two profiles' ratios.
 *   Time to the first output byte is shown for both sides as information.
 * - cli (information): `node dist/cli.js` of the shell case, spawn → exit, which includes node's
 *   start-up and the container's removal, vs the same raw `run --rm`.
 * - warm: `runInSandbox({ ...req, warm: pool })` with the core's WarmPool, wired in
 *   scripts/bench/warm.ts (the only place that knows the pool's API), vs the same raw cold
 *   `run --rm`, interleaved, per profile; warm_ratio = the worse profile.
 *   Before each timed warm run the pool is made ready (untimed: prepare() + ready()); the run is
 *   timed from the call to the promise, which includes the pool starting the replacement
 *   container in the background, as in real use; after it the replacement is awaited (untimed) so
 *   it does not load the next raw run. The row says how many runs really took a warm container.
 *   Without a WarmPool export, warm_ratio is the cold core's ratio, marked "(no warm path yet)".
 * - concurrent (scripts/bench/concurrent.ts): 8 shell snippets at once through the runner vs 8
 *   raw `run --rm` at once, wall time.
 * - remote (scripts/bench/remote.ts): the cold cases on the second engine
 *   (`DOCKER_HOST=unix:///run/sandbox-runner-engine2/docker.sock`, started by scripts/engine2-up.sh
 *   when that script exists; otherwise the row says "skipped" and the JSON value is null).
 * - cancel: a running `echo started; sleep 600` snippet; after "started" arrives on stdout,
 *   time from a forced cancel (`forceSignal`, the second Ctrl-C: removal without the interrupt
 *   grace) to the runInSandbox promise resolving (outcome cancelled), vs, for the identical
 *   container created and started with `start --attach` the same way, the time of
 *   `docker rm -f -v NAME` from spawn to exit. Both are then verified gone (untimed); a leftover is a MISS.
 * - flood: see scripts/bench/flood.ts (forked child with --expose-gc): 100 MB of output against a
 *   1 MiB bound; flood_stop_s = median seconds from the overflow notice to the promise resolving;
 *   flood_rss_ratio = median (peak RSS during the run − RSS after gc before it) / bound.
 * - throughput: 5 MiB of output (`head -c 5242880 /dev/zero | tr '\0' y`) with an 8 MiB bound,
 *   core vs raw `run --rm` with stdout drained by a no-op data listener, over the streaming
 *   window: (bytes after the first chunk) / (time of the last chunk − time of the first chunk);
 *   throughput_ratio = core / raw (higher is better). End-to-end time is an INFO row.
 * - bundle (scripts/bench/bundle.ts): bundle_bytes = bytes of the .js files activation loads
 *   (measured in a fresh node process); bundle_total_bytes = every .js bundle the extension may
 *   load (the extension build's outputs and what .vscodeignore ships). Minified builds only.
 * - activation: scripts/bench/activation.ts: fresh node processes, each timing
 *   require(dist/extension.js) + activate(ctx) with a fake `vscode` injected through a
 *   Module._resolveFilename hook. It measures OUR bundle's load and activate() code, not VS Code.
 *
 * Containers are labelled like the core's (owner pid = this process); any left over after an
 * error or Ctrl-C are removed on exit.
 */
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { basename, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs as parseNodeArgs } from 'node:util';
import { measureActivation } from './bench/activation';
import { benchBundle, lazyBundles } from './bench/bundle';
import { CASES, cliExitSeries, coldSeries, expectExited, rawCold, type Case } from './bench/cold';
import { CONCURRENCY, concurrentSeries } from './bench/concurrent';
import { requireEngine, runnerDelivery, sweep, type RawDelivery } from './bench/docker';
import { explain } from './bench/explain';
import { benchCancel } from './bench/cancel';
import { benchFlood, floodChildMain, isFloodChild } from './bench/flood';
import { benchThroughput } from './bench/throughput';
import { interleave } from './bench/harness';
import { ENGINE2_HOST, remoteCold } from './bench/remote';
import { fmtMs as ms, fmtRatio, log, num, renderTable, sleep, summarize, type Row, type Summary } from './bench/stats';
import { targetLines, targetText, verdictFor } from './bench/targets';
import { createWarmRunner } from './bench/warm';

const SECTIONS = ['cold', 'warm', 'concurrent', 'remote', 'cli', 'cancel', 'flood', 'throughput', 'bundle', 'activation'] as const;
type Section = (typeof SECTIONS)[number];

interface Args {
  /** The activation bundle measured (default dist/extension.js). */
  bundle: string;
  runs: number;
  warmup: number;
  only: ReadonlySet<Section>;
  explain: boolean;
}

/**
 * The command line (node:util parseArgs, strict: an unknown option is an error).
 * @throws Error for a bad number or an unknown section
 */
function parseArgs(argv: readonly string[]): Args {
  const { values } = parseNodeArgs({
    args: [...argv],
    options: {
      runs: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      only: { type: 'string' },
      bundle: { type: 'string', default: 'dist/extension.js' },
      explain: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const runs = Number(values.runs);
  const warmup = Number(values.warmup);
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(warmup) || warmup < 0) throw new Error('--runs must be ≥ 1 and --warmup ≥ 0');
  const only = new Set<Section>(values.only ? (values.only.split(',') as Section[]) : SECTIONS);
  for (const s of only) if (!SECTIONS.includes(s)) throw new Error(`unknown section in --only: ${s} (known: ${SECTIONS.join(',')})`);
  return { bundle: resolve(values.bundle), runs, warmup, only, explain: values.explain };
}


/** "(first byte: ours 512.3 ms, raw 498.1 ms)" */
function firstByteNote(ours: Summary, raw: Summary): string {
  return `(first output byte, median: ours ${ours.median.toFixed(1)} ms, raw ${raw.median.toFixed(1)} ms)`;
}

// ---------------------------------------------------------------- cold, cli, concurrent, remote

const deliveries = new Map<string, RawDelivery>();

/**
 * How the raw side of a local cold comparison gets the code: as the runner's own cold path does
 * (scripts/bench/docker.ts runnerDelivery: one untimed run, its argv), found once per case.
 */
async function deliveryFor(c: Case): Promise<RawDelivery> {
  let d = deliveries.get(c.profileName);
  if (!d) {
    d = await runnerDelivery(c.profileName, c.profile, c.code);
    log(`${c.label}: the runner's cold path delivers the code by ${d}; the raw side does the same`);
    deliveries.set(c.profileName, d);
  }
  return d;
}

async function benchCold(a: Args, rows: Row[]): Promise<{ ratio: number; firstByteMs: number }> {
  const perCase: number[] = [];
  let firstByteMs = NaN;
  for (const c of CASES) {
    const delivery = await deliveryFor(c);
    const f = await coldSeries(`cold ${c.label}`, c, a.runs, a.warmup, undefined, delivery);
    perCase.push(f.ratio);
    if (Number.isNaN(firstByteMs)) firstByteMs = f.coreFirstByte.median;
    rows.push({
      metric: `cold ${c.label} (ms, to result)`, ours: ms(f.core), raw: ms(f.raw) + ` (run --rm, ${delivery})`, figure: fmtRatio(f.ratio), target: targetText('cold_ratio'),
      verdict: verdictFor('cold_ratio', f.ratio), note: firstByteNote(f.coreFirstByte, f.rawFirstByte),
    });
  }
  return { ratio: Math.max(...perCase), firstByteMs };
}

async function benchCli(a: Args, rows: Row[]): Promise<number> {
  const cli = resolve(a.bundle, '..', 'cli.js');
  const c = CASES[0]!;
  if (!existsSync(cli)) {
    rows.push({ metric: `cold CLI exit ${c.label} (ms)`, ours: '-', raw: '-', figure: 'n/a', target: '(info)', verdict: 'INFO', note: `(${cli} missing)` });
    return NaN;
  }
  const r = await cliExitSeries(cli, c, a.runs, a.warmup, await deliveryFor(c));
  if (!r) return NaN;
  rows.push({
    metric: `cold CLI exit ${c.label} (ms)`, ours: ms(r.cli), raw: ms(r.raw) + ' (run --rm)', figure: fmtRatio(r.cli.median / r.raw.median), target: '(info)', verdict: 'INFO',
    note: '(node dist/cli.js spawn → exit: node start-up, the run, and container removal)',
  });
  return r.cli.median;
}

async function benchConcurrent(a: Args, rows: Row[]): Promise<number> {
  const c = CASES[0]!;
  const r = await concurrentSeries(c, a.runs, a.warmup, await deliveryFor(c));
  rows.push({
    metric: `concurrent ${CONCURRENCY}x ${c.label} (ms, wall)`, ours: ms(r.core), raw: ms(r.raw) + ` (${CONCURRENCY}x run --rm)`, figure: fmtRatio(r.ratio),
    target: targetText('concurrent8_ratio'), verdict: verdictFor('concurrent8_ratio', r.ratio),
  });
  return r.ratio;
}

/** @returns the ratio, or null when the second engine was skipped or failed (the row says why). */
async function benchRemote(a: Args, rows: Row[]): Promise<number | null> {
  const r = await remoteCold(a.runs, a.warmup, [process.pid]);
  if (r.kind !== 'measured') {
    const text = `${r.kind === 'skipped' ? 'skipped' : 'ERROR'}: ${r.why}`;
    log(`REMOTE COLD ROW ${r.kind.toUpperCase()}: ${r.why}`);
    rows.push({ metric: 'remote cold (ms)', ours: '-', raw: '-', figure: 'n/a', target: targetText('remote_cold_ratio'), verdict: r.kind === 'skipped' ? 'SKIPPED' : 'ERROR', note: `(${text}; JSON value null)` });
    return null;
  }
  for (const { label, figures: f } of r.perCase) {
    rows.push({
      metric: `remote cold ${label} (ms, to result)`, ours: ms(f.core), raw: ms(f.raw) + ' (run --rm)', figure: fmtRatio(f.ratio), target: targetText('remote_cold_ratio'),
      verdict: verdictFor('remote_cold_ratio', f.ratio), note: `(engine ${r.engine} at ${ENGINE2_HOST}) ${firstByteNote(f.coreFirstByte, f.rawFirstByte)}`,
    });
  }
  return r.ratio;
}

// ---------------------------------------------------------------- warm

/** Untimed pause after each warm run (and its replacement), so the engine is idle again. */
const WARM_PAUSE_MS = Number(process.env.BENCH_WARM_PAUSE_MS ?? 0);

async function benchWarm(a: Args, rows: Row[], coldRatio: number | undefined): Promise<{ ratio: number; firstByteMs: number }> {
  const warm = await createWarmRunner({});
  if (!warm) {
    const r = coldRatio ?? NaN;
    rows.push({
      metric: 'warm (ms)', ours: '-', raw: '-', figure: fmtRatio(r), target: `${targetText('warm_ratio')} raw cold`,
      verdict: Number.isFinite(r) ? verdictFor('warm_ratio', r) : 'ERROR',
      note: '(no warm path yet: figure = cold core ratio; wire it in scripts/bench/warm.ts)',
    });
    return { ratio: r, firstByteMs: NaN };
  }
  const ratios: number[] = [];
  let firstByteMs = NaN;
  try {
    for (const c of CASES) {
      let cold = 0;
      let unknown = 0;
      const first: Record<string, number[]> = { warm: [], raw: [] };
      const delivery = await deliveryFor(c);
      const res = await interleave(`warm ${c.label}`, [
        {
          name: 'raw',
          run: async () => {
            const t = await rawCold(c, undefined, delivery);
            first.raw!.push(t.firstByteMs);
            return t.ms;
          },
        },
        {
          name: 'warm',
          run: async () => {
            await warm.ready(c.profileName, c.profile); // untimed: the pool holds a started container
            let fb = NaN;
            const t0 = performance.now();
            const { result, warm: tookWarm } = await warm.run({
              profileName: c.profileName, profile: c.profile, code: c.code,
              onOutput: (...args) => {
                if (args[0] === 'stdout' && Number.isNaN(fb)) fb = performance.now() - t0;
              },
            });
            const t = performance.now() - t0;
            expectExited(result, `warm ${c.label}`);
            first.warm!.push(fb);
            if (tookWarm === false) cold++;
            if (tookWarm === undefined) unknown++;
            // Untimed: let the background replacement finish so it does not load the next raw run.
            await warm.ready(c.profileName, c.profile);
            if (WARM_PAUSE_MS > 0) await sleep(WARM_PAUSE_MS);
            return t;
          },
        },
      ], a.runs, a.warmup);
      const w = summarize(res.warm!);
      const raw = summarize(res.raw!);
      const ratio = w.median / raw.median;
      ratios.push(ratio);
      const wFirst = summarize(first.warm!.slice(-a.runs).filter(Number.isFinite));
      const rFirst = summarize(first.raw!.slice(-a.runs).filter(Number.isFinite));
      if (Number.isNaN(firstByteMs)) firstByteMs = wFirst.median;
      const total = a.runs + a.warmup;
      rows.push({
        metric: `warm ${c.label} (ms, to result)`, ours: ms(w), raw: ms(raw) + ' (cold run --rm)', figure: fmtRatio(ratio), target: `${targetText('warm_ratio')} raw cold`,
        verdict: verdictFor('warm_ratio', ratio),
        note: `(${warm.label}; ${unknown ? 'warm use not observable' : `${total - cold} of ${total} runs incl. warm-up took a warm container`}) ${firstByteNote(wFirst, rFirst)}`,
      });
    }
  } finally {
    await warm.dispose();
  }
  return { ratio: Math.max(...ratios), firstByteMs };
}

// ---------------------------------------------------------------- activation

async function benchActivation(a: Args, rows: Row[]): Promise<number> {
  const DIST = a.bundle;
  if (!existsSync(DIST)) return NaN;
  log('activation: fresh node processes with a fake vscode');
  try {
    const lazy = lazyBundles(DIST);
    const samples = await measureActivation(DIST, process.cwd(), a.runs, a.warmup, lazy);
    const total = summarize(samples.map((s) => s.totalMs));
    const lazyMs = summarize(samples.map((s) => s.lazyMs));
    const req = summarize(samples.map((s) => s.requireMs));
    const act = summarize(samples.map((s) => s.activateMs));
    rows.push({
      metric: 'activation: require + activate (ms)', ours: ms(total), raw: '-', figure: `${total.median.toFixed(1)} ms`, target: targetText('activation_ms'),
      verdict: verdictFor('activation_ms', total.median),
      note: `(require ${req.median.toFixed(1)} + activate ${act.median.toFixed(1)}; our code with a fake vscode, not VS Code; ` +
        `then, once, on first use: require of ${lazy.map((f) => basename(f)).join(', ') || 'no lazy bundle'} ${lazyMs.median.toFixed(1)} ms)`,
    });
    return total.median;
  } catch (e) {
    rows.push({ metric: 'activation (ms)', ours: '-', raw: '-', figure: 'error', target: targetText('activation_ms'), verdict: 'ERROR', note: `(${String(e).split('\n')[0]})` });
    return NaN;
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  if (isFloodChild()) return floodChildMain();
  const a = parseArgs(process.argv.slice(2));
  const childPids: number[] = [];
  const cleanup = async () => {
    const n = await sweep([process.pid, ...childPids]);
    if (n) log(`removed ${n} leftover containers`);
  };
  process.once('SIGINT', () => {
    void cleanup().finally(() => process.exit(130));
  });

  const engine = await requireEngine();
  log(`engine ${engine}; ${a.runs} counted runs after ${a.warmup} warm-up per series`);
  if (a.explain) {
    try {
      await explain(a.runs, a.warmup);
    } finally {
      await cleanup();
    }
    return;
  }

  const rows: Row[] = [];
  const extra: string[] = [];
  const result = {
    cold_ratio: NaN, warm_ratio: NaN, concurrent8_ratio: NaN, remote_cold_ratio: null as number | null, cancel_ratio: NaN,
    flood_stop_s: NaN, flood_rss_ratio: NaN, throughput_ratio: NaN, bundle_bytes: NaN, bundle_total_bytes: NaN, activation_ms: NaN,
    cold_first_byte_ms: NaN, warm_first_byte_ms: NaN, cold_cli_exit_ms: NaN,
  };
  const t0 = performance.now();
  const loadBefore = loadavg()[0]!;
  try {
    // The extension figures first: they do not touch the engine and are quick.
    if (a.only.has('bundle')) {
      const b = await benchBundle(a.bundle, rows, extra);
      result.bundle_bytes = b.bytes;
      result.bundle_total_bytes = b.totalBytes;
    }
    if (a.only.has('activation')) result.activation_ms = await benchActivation(a, rows);
    if (a.only.has('cold')) {
      const c = await benchCold(a, rows);
      result.cold_ratio = c.ratio;
      result.cold_first_byte_ms = c.firstByteMs;
    }
    if (a.only.has('cli')) result.cold_cli_exit_ms = await benchCli(a, rows);
    if (a.only.has('warm')) {
      const w = await benchWarm(a, rows, a.only.has('cold') ? result.cold_ratio : undefined);
      result.warm_ratio = w.ratio;
      result.warm_first_byte_ms = w.firstByteMs;
    }
    if (a.only.has('concurrent')) result.concurrent8_ratio = await benchConcurrent(a, rows);
    if (a.only.has('remote')) result.remote_cold_ratio = await benchRemote(a, rows);
    if (a.only.has('cancel')) result.cancel_ratio = await benchCancel(a, rows);
    if (a.only.has('flood')) {
      const f = await benchFlood(a, rows, childPids);
      result.flood_stop_s = f.stopS;
      result.flood_rss_ratio = f.rssRatio;
    }
    if (a.only.has('throughput')) result.throughput_ratio = await benchThroughput(a, rows);
  } finally {
    await cleanup();
  }
  await sleep(0);
  const out = [
    `Sandbox Runner benchmark: engine ${engine}, node ${process.version}, ${a.runs} counted runs after ${a.warmup} warm-up, ` +
      `${((performance.now() - t0) / 1000).toFixed(0)} s, 1-min load average ${loadBefore.toFixed(2)} → ${loadavg()[0]!.toFixed(2)} on ${availableParallelism()} CPUs`,
    ...targetLines(),
    ...extra,
    '',
    renderTable(rows),
    '',
    JSON.stringify({
      cold_ratio: num(result.cold_ratio),
      warm_ratio: num(result.warm_ratio),
      concurrent8_ratio: num(result.concurrent8_ratio),
      remote_cold_ratio: result.remote_cold_ratio === null ? null : num(result.remote_cold_ratio),
      cancel_ratio: num(result.cancel_ratio),
      flood_stop_s: num(result.flood_stop_s),
      flood_rss_ratio: num(result.flood_rss_ratio),
      throughput_ratio: num(result.throughput_ratio),
      bundle_bytes: num(result.bundle_bytes, 0),
      bundle_total_bytes: num(result.bundle_total_bytes, 0),
      activation_ms: num(result.activation_ms, 2),
      cold_first_byte_ms: num(result.cold_first_byte_ms, 1),
      warm_first_byte_ms: num(result.warm_first_byte_ms, 1),
      cold_cli_exit_ms: num(result.cold_cli_exit_ms, 1),
    }),
  ];
  process.stdout.write(out.join('\n') + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: FAILED: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exitCode = 1;
});
