/**
 * Sandbox Runner performance benchmark: the core against raw docker, and the extension bundle.
 *
 * Build and run (from the repository root, Docker engine up, test images built):
 *   npm run bench
 * which is
 *   node esbuild.config.mjs --production &&
 *   esbuild scripts/bench.ts --bundle --platform=node --format=cjs --main-fields=module,main \
 *     --external:vscode --log-level=warning --outfile=out/scripts/bench.js && node out/scripts/bench.js
 * (esbuild's CLI spells it --main-fields; --mainFields is rejected as an invalid build flag.)
 * Options: --runs=N (counted runs per series, default 10, at least 10 for a report),
 * --warmup=N (default 2), --only=cold,warm,cancel,flood,throughput,bundle,activation,
 * --bundle=PATH (measure another extension bundle than dist/extension.js, e.g. a candidate build),
 * --explain (instead of the benchmark: where the core's cold time goes, see scripts/bench/explain.ts).
 * Environment: BENCH_WARM=off (report as if there were no warm path), BENCH_WARM_EXPORT=Name,
 * BENCH_WARM_PAUSE_MS=N (untimed pause after each warm run, default 0), see scripts/bench/warm.ts.
 * Progress goes to stderr; stdout is the table, then ONE JSON line, always the last line:
 *   {"cold_ratio","warm_ratio","cancel_ratio","flood_stop_s","flood_rss_ratio",
 *    "throughput_ratio","bundle_bytes","activation_ms"}  (numbers; -1 = not measured)
 *
 * Method. Everything runs in this one Node process (the flood in a forked child, see below),
 * against the local engine and the test images `sandbox-runner-test/busybox:1` (the `shell`
 * profile's command `sh ${file}`) and `sandbox-runner-test/python:1` (the built-in `python`
 * profile's command and env). A/B series are interleaved: each iteration runs every side once,
 * alternating which goes first; the first --warmup iterations are not counted; each figure is
 * the median of the counted runs, with min and max. Ratios are ours / raw of the medians.
 *
 * "Raw" is the IDENTICAL isolation argv, derived from `buildCreateArgv` (src/core/argv.ts) with
 * the same snippet layout, mounts and owner labels, run with the docker CLI through execa with
 * the core's own spawn options (`SPAWN_OPTIONS`); only `create` becomes `run --rm` where noted.
 * The raw side's snippet directory is written before its timer starts; the core writes its own
 * inside runInSandbox (that is part of the core's cost).
 *
 * - cold: `runInSandbox` of `true` (shell) and `pass` (python), call to promise (outcome exited,
 *   exit 0, container removed by then) vs `docker run --rm <argv>` spawn to exit.
 *   cold_ratio = the worse of the two profiles' ratios.
 * - warm: `runInSandbox({ ...req, warm: pool })` with the core's WarmPool, wired in
 *   scripts/bench/warm.ts (the only place that knows the pool's API), vs the same raw cold
 *   `run --rm`, interleaved, per profile; warm_ratio = the worse profile; target ≤ 0.30x.
 *   Before each timed warm run the pool is made ready (untimed: prepare() + ready()); the run is
 *   timed from the call to the promise (code over stdin, program, inspect, rm), which includes
 *   the pool starting the replacement container in the background, as in real use; after it the
 *   replacement is awaited (untimed) so it does not load the next raw run. The row says how many
 *   runs really took a warm container (the result's container name was an idle pool container).
 *   Without a WarmPool export, warm_ratio is the cold core's ratio, marked "(no warm path yet)".
 * - cancel: a running `echo started; sleep 600` snippet; after "started" arrives on stdout,
 *   time from a forced cancel (`forceSignal`, the second Ctrl-C: removal without the interrupt
 *   grace, which a program may use as long as it likes) to the runInSandbox promise resolving
 *   (outcome cancelled),
 *   vs, for the identical container created and started with `start --attach` the same way,
 *   the time of `docker rm -f -v NAME` from spawn to exit. Both are then verified gone with
 *   `docker ps -a --filter name=^/NAME$` (untimed); a leftover is a MISS.
 * - flood: see scripts/bench/flood.ts (forked child with --expose-gc): 100 MB of output against a
 *   1 MiB bound; flood_stop_s = median seconds from the overflow notice to the promise resolving;
 *   flood_rss_ratio = median (peak RSS during the run − RSS after gc before it) / bound.
 * - throughput: 5 MiB of output (`head -c 5242880 /dev/zero | tr '\0' y`) with an 8 MiB bound,
 *   core (the sink counts the program's bytes, as the CLI writes them to a pipe) vs raw `run --rm` with stdout drained by a no-op data listener.
 *   Throughput is measured over the streaming window: (bytes after the first chunk) / (time of the
 *   last chunk − time of the first chunk) as seen by this process; throughput_ratio = core / raw
 *   (higher is better). End-to-end (call to exit) time is shown as an INFO row.
 * - bundle: bytes of dist/extension.js; it must be the minified `--production` build (flagged
 *   otherwise). The composition lines come from an esbuild metafile of the same build options.
 * - activation: scripts/bench/activation.ts: fresh node processes, each timing
 *   require(dist/extension.js) + activate(ctx) with a fake `vscode` injected through a
 *   Module._resolveFilename hook. It measures OUR bundle's load and activate() code, not VS Code.
 *
 * Containers are labelled like the core's (owner pid = this process); any left over after an
 * error or Ctrl-C are removed on exit.
 */
import { statSync, readFileSync, mkdtempSync, existsSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { runInSandbox, type Profile, type RunResult } from '../src/core';
import { measureActivation } from './bench/activation';
import { containerExists, dockerCli, pythonProfile, rawSpec, requireEngine, shellProfile, sweep } from './bench/docker';
import { explain } from './bench/explain';
import { FLOOD_BOUND, floodChildMain, isFloodChild, runFloodChild } from './bench/flood';
import { interleave } from './bench/harness';
import { fmtRatio, fmtSummary, log, num, renderTable, sleep, summarize, type Row, type Summary } from './bench/stats';
import { createWarmRunner } from './bench/warm';

const TARGETS = {
  cold: 1.05,
  warm: 0.3,
  cancel: 1.2,
  floodStopS: 0.5,
  floodRss: 2,
  throughput: 0.8,
  bundleBytes: 200 * 1024,
  activationMs: 30,
} as const;

const SECTIONS = ['cold', 'warm', 'cancel', 'flood', 'throughput', 'bundle', 'activation'] as const;
type Section = (typeof SECTIONS)[number];

interface Args {
  /** The extension bundle measured (default dist/extension.js). */
  bundle: string;
  runs: number;
  warmup: number;
  only: ReadonlySet<Section>;
  explain: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const get = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const runs = Number(get('runs') ?? 10);
  const warmup = Number(get('warmup') ?? 2);
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(warmup) || warmup < 0) throw new Error('--runs must be ≥ 1 and --warmup ≥ 0');
  const onlyRaw = get('only');
  const only = new Set<Section>(onlyRaw ? (onlyRaw.split(',') as Section[]) : SECTIONS);
  for (const s of only) if (!SECTIONS.includes(s)) throw new Error(`unknown section in --only: ${s}`);
  return { bundle: resolve(get('bundle') ?? 'dist/extension.js'), runs, warmup, only, explain: argv.includes('--explain') };
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
const ms = (s: Summary) => fmtSummary(s, 1);

function expectExited(r: RunResult, what: string): void {
  if (r.outcome !== 'exited' || r.exitCode !== 0) throw new Error(`${what}: expected exit 0, got ${r.outcome}: ${r.message}`);
}

async function rawRun(args: readonly string[], what: string): Promise<number> {
  const t0 = performance.now();
  const r = await dockerCli(args);
  const t = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${what}: docker ${args[0]} exited ${r.exitCode}: ${String(r.stderr).trim()}`);
  return t;
}

interface Case {
  readonly label: string;
  readonly profileName: string;
  readonly profile: Profile;
  readonly code: string;
}

const CASES: readonly Case[] = [
  { label: 'shell `true`', profileName: 'bench-shell', profile: shellProfile(), code: 'true\n' },
  { label: 'python `pass`', profileName: 'bench-python', profile: pythonProfile(), code: 'pass\n' },
];

/** A raw cold run: identical argv as `run --rm`, snippet written first (untimed). */
async function rawCold(c: Case): Promise<number> {
  const spec = await rawSpec(c.profileName, c.profile, c.code);
  try {
    return await rawRun(spec.runArgv, `raw ${c.label}`);
  } finally {
    await spec.dispose();
  }
}

// ---------------------------------------------------------------- cold and warm

async function benchCold(a: Args, rows: Row[]): Promise<{ ratio: number; perCase: number[] }> {
  const perCase: number[] = [];
  for (const c of CASES) {
    const res = await interleave(`cold ${c.label}`, [
      { name: 'raw', run: () => rawCold(c) },
      {
        name: 'core',
        run: async () => {
          const t0 = performance.now();
          const r = await runInSandbox({ profileName: c.profileName, profile: c.profile, code: c.code });
          const t = performance.now() - t0;
          expectExited(r, `core ${c.label}`);
          return t;
        },
      },
    ], a.runs, a.warmup);
    const core = summarize(res.core!);
    const raw = summarize(res.raw!);
    const ratio = core.median / raw.median;
    perCase.push(ratio);
    rows.push({ metric: `cold ${c.label} (ms)`, ours: ms(core), raw: ms(raw), figure: fmtRatio(ratio), target: `≤ ${TARGETS.cold}x`, verdict: verdict(ratio <= TARGETS.cold) });
  }
  return { ratio: Math.max(...perCase), perCase };
}

/** Untimed pause after each warm run (and its replacement), so the engine is idle again. */
const WARM_PAUSE_MS = Number(process.env.BENCH_WARM_PAUSE_MS ?? 0);

async function benchWarm(a: Args, rows: Row[], coldRatio: number | undefined): Promise<number> {
  const warm = await createWarmRunner({});
  if (!warm) {
    const r = coldRatio ?? NaN;
    rows.push({
      metric: 'warm (ms)', ours: '-', raw: '-', figure: fmtRatio(r), target: `≤ ${TARGETS.warm}x raw cold`,
      verdict: Number.isFinite(r) ? verdict(r <= TARGETS.warm) : 'ERROR',
      note: '(no warm path yet: figure = cold core ratio; wire it in scripts/bench/warm.ts)',
    });
    return r;
  }
  const ratios: number[] = [];
  try {
    for (const c of CASES) {
      let cold = 0;
      let unknown = 0;
      const res = await interleave(`warm ${c.label}`, [
        { name: 'raw', run: () => rawCold(c) },
        {
          name: 'warm',
          run: async () => {
            await warm.ready(c.profileName, c.profile); // untimed: the pool holds a started container
            const t0 = performance.now();
            const { result, warm: tookWarm } = await warm.run({ profileName: c.profileName, profile: c.profile, code: c.code });
            const t = performance.now() - t0;
            expectExited(result, `warm ${c.label}`);
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
      const total = a.runs + a.warmup;
      rows.push({
        metric: `warm ${c.label} (ms)`, ours: ms(w), raw: ms(raw) + ' (cold run --rm)', figure: fmtRatio(ratio), target: `≤ ${TARGETS.warm}x raw cold`,
        verdict: verdict(ratio <= TARGETS.warm),
        note: `(${warm.label}; ${unknown ? 'warm use not observable' : `${total - cold} of ${total} runs incl. warm-up took a warm container`})`,
      });
    }
  } finally {
    await warm.dispose();
  }
  return Math.max(...ratios);
}

// ---------------------------------------------------------------- cancel

const CANCEL_CODE = 'echo started; sleep 600\n';

function waitForText(what: string, timeoutMs: number): { seen: (text: string) => void; promise: Promise<void> } {
  let buf = '';
  let done: () => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((res, rej) => {
    done = () => {
      clearTimeout(timer);
      res();
    };
    timer = setTimeout(() => rej(new Error(`no "${what}" within ${timeoutMs} ms`)), timeoutMs);
  });
  return {
    seen: (text) => {
      buf = (buf + text).slice(-64);
      if (buf.includes(what)) done();
    },
    promise,
  };
}

async function benchCancel(a: Args, rows: Row[]): Promise<number> {
  const profile = shellProfile();
  let leftovers = 0;
  const res = await interleave('cancel', [
    {
      name: 'raw',
      run: async () => {
        const spec = await rawSpec('bench-cancel', profile, CANCEL_CODE);
        try {
          await rawRun(spec.createArgv, 'raw cancel create');
          const started = waitForText('started', 20_000);
          const attach = execa('docker', ['start', '--attach', spec.name], { stdin: 'ignore', reject: false, buffer: false, detached: true, cleanup: true });
          attach.stdout?.on('data', (b: Buffer) => started.seen(b.toString('utf8')));
          attach.stderr?.on('data', () => undefined);
          await started.promise;
          const t = await rawRun(['rm', '-f', '-v', spec.name], 'raw cancel rm');
          if (await containerExists(spec.name)) leftovers++;
          await attach;
          return t;
        } finally {
          await spec.dispose();
        }
      },
    },
    {
      name: 'core',
      run: async () => {
        const controller = new AbortController();
        const started = waitForText('started', 20_000);
        const pending = runInSandbox({
          profileName: 'bench-cancel',
          profile,
          code: CANCEL_CODE,
          signal: controller.signal,
          forceSignal: controller.signal,
          onOutput: (stream, data) => {
            if (stream === 'stdout') started.seen(Buffer.from(data).toString('utf8')); // ASCII: chunks decode alone
          },
        });
        await started.promise;
        const t0 = performance.now();
        controller.abort();
        const r = await pending;
        const t = performance.now() - t0;
        if (r.outcome !== 'cancelled') throw new Error(`core cancel: expected cancelled, got ${r.outcome}: ${r.message}`);
        if (await containerExists(r.containerName)) leftovers++;
        return t;
      },
    },
  ], a.runs, a.warmup);
  const core = summarize(res.core!);
  const raw = summarize(res.raw!);
  const ratio = core.median / raw.median;
  rows.push({
    metric: 'cancel: abort → gone (ms)', ours: ms(core), raw: ms(raw) + ' (rm -f -v)', figure: fmtRatio(ratio), target: `≤ ${TARGETS.cancel}x`,
    verdict: verdict(ratio <= TARGETS.cancel && leftovers === 0),
    note: leftovers ? `(${leftovers} containers still present after their run)` : undefined,
  });
  return ratio;
}

// ---------------------------------------------------------------- flood

async function benchFlood(a: Args, rows: Row[], childPids: number[]): Promise<{ stopS: number; rssRatio: number }> {
  log('flood: forked child, 100 MB against a 1 MiB bound');
  const { samples, pid } = await runFloodChild(a.runs, a.warmup);
  childPids.push(pid);
  const bad = samples.filter((s) => s.outcome !== 'output-limit' || s.bytesKept !== FLOOD_BOUND || !s.gone);
  const stop = summarize(samples.map((s) => s.stopS * 1000));
  const rss = summarize(samples.map((s) => s.rssGrowthBytes / FLOOD_BOUND));
  const stopS = stop.median / 1000;
  const badNote = bad.length ? `(${bad.length} runs wrong: ${bad.map((b) => `${b.outcome}/${b.bytesKept}/${b.gone ? 'gone' : 'LEFT'}`).join(', ')})` : undefined;
  rows.push({
    metric: 'flood: bound → resolved (ms)', ours: ms(stop), raw: '-', figure: `${stopS.toFixed(3)} s`, target: `< ${TARGETS.floodStopS} s`,
    verdict: verdict(stopS < TARGETS.floodStopS && bad.length === 0), note: badNote,
  });
  rows.push({
    metric: 'flood: RSS growth / bound', ours: fmtSummary(rss, 2), raw: '-', figure: fmtRatio(rss.median), target: `< ${TARGETS.floodRss}x`,
    verdict: verdict(rss.median < TARGETS.floodRss),
    note: `(peak ${(rss.max * FLOOD_BOUND / 2 ** 20).toFixed(1)} MiB over baseline; ${Math.round(summarize(samples.map((s) => s.sampled)).median)} RSS samples/run)`,
  });
  return { stopS, rssRatio: rss.median };
}

// ---------------------------------------------------------------- throughput

const THROUGHPUT_BYTES = 5 * 1024 * 1024;
const THROUGHPUT_CODE = `head -c ${THROUGHPUT_BYTES} /dev/zero | tr '\\0' y\n`;

/** Bytes and chunk times on the receiving side. */
class Window {
  bytes = 0;
  firstBytes = 0;
  first = NaN;
  last = NaN;
  add(n: number): void {
    const t = performance.now();
    if (this.bytes === 0) {
      this.first = t;
      this.firstBytes = n;
    }
    this.bytes += n;
    this.last = t;
  }
  /** MB/s over the streaming window. */
  rate(): number {
    const dt = (this.last - this.first) / 1000;
    return dt > 0 ? (this.bytes - this.firstBytes) / dt / 1e6 : NaN;
  }
}

async function benchThroughput(a: Args, rows: Row[]): Promise<number> {
  const profile = shellProfile({ limits: { outputBytes: 8 * 1024 * 1024 } });
  const rates: Record<string, number[]> = { core: [], raw: [] };
  const res = await interleave('throughput', [
    {
      name: 'raw',
      run: async () => {
        const spec = await rawSpec('bench-throughput', profile, THROUGHPUT_CODE);
        try {
          const w = new Window();
          const t0 = performance.now();
          const p = execa('docker', spec.runArgv, { stdin: 'ignore', reject: false, buffer: false, detached: true, cleanup: true });
          p.stdout?.on('data', (b: Buffer) => w.add(b.byteLength));
          p.stderr?.on('data', () => undefined);
          const r = await p;
          const t = performance.now() - t0;
          if (r.exitCode !== 0 || w.bytes !== THROUGHPUT_BYTES) throw new Error(`raw throughput: exit ${r.exitCode}, ${w.bytes} bytes`);
          rates.raw!.push(w.rate());
          return t;
        } finally {
          await spec.dispose();
        }
      },
    },
    {
      name: 'core',
      run: async () => {
        const w = new Window();
        const t0 = performance.now();
        const r = await runInSandbox({
          profileName: 'bench-throughput',
          profile,
          code: THROUGHPUT_CODE,
          onOutput: (stream, data) => {
            if (stream === 'stdout') w.add(data.byteLength);
          },
        });
        const t = performance.now() - t0;
        expectExited(r, 'core throughput');
        if (w.bytes !== THROUGHPUT_BYTES) throw new Error(`core throughput: ${w.bytes} bytes delivered`);
        rates.core!.push(w.rate());
        return t;
      },
    },
  ], a.runs, a.warmup);
  // Warm-up iterations pushed rates too: keep the counted ones (the last `runs`).
  const core = summarize(rates.core!.slice(-a.runs));
  const raw = summarize(rates.raw!.slice(-a.runs));
  const ratio = core.median / raw.median;
  rows.push({
    metric: 'throughput 5 MiB (MB/s, stream)', ours: fmtSummary(core, 0), raw: fmtSummary(raw, 0), figure: fmtRatio(ratio), target: `≥ ${TARGETS.throughput}x`,
    verdict: verdict(ratio >= TARGETS.throughput),
  });
  const e2eCore = summarize(res.core!);
  const e2eRaw = summarize(res.raw!);
  const e2eRatio = (THROUGHPUT_BYTES / e2eCore.median) / (THROUGHPUT_BYTES / e2eRaw.median);
  rows.push({ metric: 'throughput 5 MiB end-to-end (ms)', ours: ms(e2eCore), raw: ms(e2eRaw) + ' (run --rm)', figure: fmtRatio(e2eRatio), target: '(info)', verdict: 'INFO' });
  return ratio;
}

// ---------------------------------------------------------------- bundle and activation

async function composition(): Promise<string[]> {
  const esbuild = resolve('node_modules/.bin/esbuild');
  if (!existsSync(esbuild)) return ['  (esbuild not found; composition skipped)'];
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-runner-bench-meta-'));
  try {
    return await compositionIn(esbuild, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** {@link composition}, building into the scratch folder `dir`. */
async function compositionIn(esbuild: string, dir: string): Promise<string[]> {
  const meta = join(dir, 'meta.json');
  const r = await execa(esbuild, [
    'src/extension.ts', '--bundle', '--platform=node', '--target=node20', '--format=cjs', '--minify',
    '--external:vscode', '--main-fields=module,main', '--log-level=error', `--metafile=${meta}`, `--outfile=${join(dir, 'extension.js')}`,
  ], { reject: false });
  if (r.exitCode !== 0) return [`  (esbuild failed: ${String(r.stderr).trim().split('\n')[0]})`];
  const m = JSON.parse(readFileSync(meta, 'utf8')) as { outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }> };
  const output = Object.values(m.outputs).find((o) => o.bytes > 0);
  if (!output) return [];
  const by = new Map<string, number>();
  for (const [file, v] of Object.entries(output.inputs)) {
    const parts = file.split('/');
    const nm = parts.lastIndexOf('node_modules');
    let key: string;
    if (nm >= 0) {
      const pkg = parts[nm + 1]!.startsWith('@') ? parts.slice(nm + 1, nm + 3).join('/') : parts[nm + 1]!;
      key = pkg === 'zod' ? `zod/${parts.slice(nm + 2, nm + 4).join('/')}` : pkg;
    } else key = parts.slice(0, 2).join('/');
    by.set(key, (by.get(key) ?? 0) + v.bytesInOutput);
  }
  const top = [...by.entries()].sort((x, y) => y[1] - x[1]).slice(0, 8);
  return [
    `bundle composition (esbuild metafile, --production options, ${(output.bytes / 1024).toFixed(1)} KiB):`,
    ...top.map(([k, v]) => `  ${(v / 1024).toFixed(1).padStart(7)} KiB  ${k}`),
  ];
}

async function benchBundle(a: Args, rows: Row[], extra: string[]): Promise<number> {
  const DIST = a.bundle;
  if (!existsSync(DIST)) {
    rows.push({ metric: 'bundle dist/extension.js', ours: '-', raw: '-', figure: 'missing', target: '≤ 200 KiB', verdict: 'ERROR', note: '(run node esbuild.config.mjs --production)' });
    return NaN;
  }
  const bytes = statSync(DIST).size;
  const text = readFileSync(DIST, 'utf8');
  const lines = text.split('\n').length;
  // Minified output averages thousands of characters per line (esbuild keeps template literals' line
  // breaks); unminified output averages ~40. A source map comment means a development build.
  const production = !text.includes('//# sourceMappingURL=') && bytes / lines > 400;
  rows.push({
    metric: `bundle ${a.bundle === resolve('dist/extension.js') ? 'dist/extension.js' : a.bundle} (bytes)`, ours: String(bytes), raw: '-', figure: `${(bytes / 1024).toFixed(1)} KiB`, target: '≤ 200 KiB',
    verdict: production ? verdict(bytes <= TARGETS.bundleBytes) : 'MISS',
    note: production ? undefined : '(NOT a --production build: run node esbuild.config.mjs --production first)',
  });
  extra.push(...(await composition()));
  return bytes;
}

async function benchActivation(a: Args, rows: Row[]): Promise<number> {
  const DIST = a.bundle;
  if (!existsSync(DIST)) return NaN;
  log('activation: fresh node processes with a fake vscode');
  try {
    const samples = await measureActivation(DIST, process.cwd(), a.runs, a.warmup);
    const total = summarize(samples.map((s) => s.totalMs));
    const req = summarize(samples.map((s) => s.requireMs));
    const act = summarize(samples.map((s) => s.activateMs));
    rows.push({
      metric: 'activation: require + activate (ms)', ours: ms(total), raw: '-', figure: `${total.median.toFixed(1)} ms`, target: `≤ ${TARGETS.activationMs} ms`,
      verdict: verdict(total.median <= TARGETS.activationMs),
      note: `(require ${req.median.toFixed(1)} + activate ${act.median.toFixed(1)}; our code with a fake vscode, not VS Code)`,
    });
    return total.median;
  } catch (e) {
    rows.push({ metric: 'activation (ms)', ours: '-', raw: '-', figure: 'error', target: `≤ ${TARGETS.activationMs} ms`, verdict: 'ERROR', note: `(${String(e).split('\n')[0]})` });
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
    cold_ratio: NaN, warm_ratio: NaN, cancel_ratio: NaN, flood_stop_s: NaN, flood_rss_ratio: NaN,
    throughput_ratio: NaN, bundle_bytes: NaN, activation_ms: NaN,
  };
  const t0 = performance.now();
  const loadBefore = loadavg()[0]!;
  try {
    // The extension figures first: they do not touch the engine and are quick.
    if (a.only.has('bundle')) result.bundle_bytes = await benchBundle(a, rows, extra);
    if (a.only.has('activation')) result.activation_ms = await benchActivation(a, rows);
    if (a.only.has('cold')) result.cold_ratio = (await benchCold(a, rows)).ratio;
    if (a.only.has('warm')) result.warm_ratio = await benchWarm(a, rows, a.only.has('cold') ? result.cold_ratio : undefined);
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
    ...extra,
    '',
    renderTable(rows),
    '',
    JSON.stringify({
      cold_ratio: num(result.cold_ratio),
      warm_ratio: num(result.warm_ratio),
      cancel_ratio: num(result.cancel_ratio),
      flood_stop_s: num(result.flood_stop_s),
      flood_rss_ratio: num(result.flood_rss_ratio),
      throughput_ratio: num(result.throughput_ratio),
      bundle_bytes: num(result.bundle_bytes, 0),
      activation_ms: num(result.activation_ms, 2),
    }),
  ];
  process.stdout.write(out.join('\n') + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: FAILED: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exitCode = 1;
});
