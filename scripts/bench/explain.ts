/**
 * `--explain`: where the core's cold time goes, and what the alternatives would cost.
 *
 * 1. Traced core runs: `child_process.spawn` is wrapped (execa, bundled, calls it through the
 *    module object) to timestamp every docker CLI process the core starts (spawn → exit), relative
 *    to the runInSandbox call; medians over the traced runs.
 * 2. CLI experiments, interleaved, all with the core's exact isolation argv and spawn options:
 *    the core's flow replayed with the CLI, `run --rm`, and variants that drop or merge steps.
 */
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { runInSandbox, type Profile } from '../../src/core';
import { dockerCli, pythonProfile, rawSpec, shellProfile } from './docker';
import { interleave, type Variant } from './harness';
import { fmtSummary, log, summarize } from './stats';
import { createWarmRunner, type WarmRunner } from './warm';

interface SpawnEvent {
  readonly what: string;
  readonly start: number;
  end: number;
}

/** Wraps child_process.spawn to record docker calls into `sink` while `active()` is true. */
function installTracer(sink: SpawnEvent[]): () => void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cp = require('node:child_process') as { spawn: (...a: unknown[]) => ChildProcess };
  const original = cp.spawn;
  cp.spawn = (...args: unknown[]) => {
    const argv = (Array.isArray(args[1]) ? args[1] : []) as string[];
    const what = describe(argv);
    const ev: SpawnEvent = { what, start: performance.now(), end: NaN };
    sink.push(ev);
    const child = original(...args);
    child.once('exit', () => {
      ev.end = performance.now();
    });
    return child;
  };
  return () => {
    cp.spawn = original;
  };
}

function describe(argv: readonly string[]): string {
  const [a, b] = argv;
  if (a === 'container' || a === 'image') return `${a} ${b}`;
  if (a === 'start') return argv.includes('--attach') ? 'start --attach' : 'start (detached)';
  if (a === 'rm') return 'rm -f -v';
  return a ?? '?';
}

async function tracedCore(
  label: string, profileName: string, profile: Profile, code: string, runs: number, warm?: WarmRunner,
): Promise<string[]> {
  const perPhase = new Map<string, { start: number[]; end: number[] }>();
  const total: number[] = [];
  const events: SpawnEvent[] = [];
  const uninstall = installTracer(events);
  try {
    for (let i = 0; i < runs + 1; i++) {
      if (warm) await warm.ready(profileName, profile);
      events.length = 0;
      const t0 = performance.now();
      const r = warm ? (await warm.run({ profileName, profile, code })).result : await runInSandbox({ profileName, profile, code });
      const t1 = performance.now();
      if (warm) await warm.ready(profileName, profile); // the replacement's calls are not part of this run
      if (r.outcome !== 'exited' || r.exitCode !== 0) throw new Error(`traced ${label}: ${r.message}`);
      if (i === 0) continue; // warm-up
      total.push(t1 - t0);
      const seen = new Map<string, number>();
      for (const ev of events) {
        if (ev.start > t1) continue;
        const nth = (seen.get(ev.what) ?? 0) + 1;
        seen.set(ev.what, nth);
        const key = nth === 1 ? ev.what : `${ev.what} #${nth}`;
        const p = perPhase.get(key) ?? { start: [], end: [] };
        p.start.push(ev.start - t0);
        p.end.push(ev.end - t0);
        perPhase.set(key, p);
      }
    }
  } finally {
    uninstall();
  }
  const lines = [`core ${warm ? 'WARM' : 'cold'} path, ${label}: median ms after the runInSandbox call (${runs} traced runs)`];
  for (const [what, p] of perPhase) {
    const s = summarize(p.start).median;
    const e = summarize(p.end).median;
    // On the warm path, take() starts the replacement container at once: its create, image
    // inspect, start and inspect run during the timed run (they compete for the same CPUs).
    const background = warm && ['create', 'image inspect', 'start (detached)'].includes(what) ? '  [replacement, in background]' : '';
    lines.push(`  docker ${what.padEnd(18)} spawned +${s.toFixed(1).padStart(6)}  exited +${e.toFixed(1).padStart(6)}  (${(e - s).toFixed(1)} ms)${background}`);
  }
  lines.push(`  ${'promise resolved'.padEnd(25)} +${summarize(total).median.toFixed(1).padStart(6)}  ${fmtSummary(summarize(total))}`);
  return lines;
}

/** Traced cancels: what happens between abort() and the promise resolving. */
async function tracedCancel(runs: number): Promise<string[]> {
  const profile = shellProfile();
  const events: SpawnEvent[] = [];
  const series = new Map<string, number[]>();
  const add = (k: string, v: number) => series.set(k, [...(series.get(k) ?? []), v]);
  const uninstall = installTracer(events);
  try {
    for (let i = 0; i < runs + 1; i++) {
      events.length = 0;
      const controller = new AbortController();
      let seen: () => void = () => undefined;
      const started = new Promise<void>((r) => (seen = r));
      const pending = runInSandbox({
        profileName: 'bench-cancel',
        profile,
        code: 'echo started; sleep 600\n',
        signal: controller.signal,
        onOutput: (stream, data) => {
          if (stream === 'stdout' && Buffer.from(data).includes('started')) seen();
        },
      });
      await started;
      const t0 = performance.now();
      controller.abort();
      const r = await pending;
      const t1 = performance.now();
      if (r.outcome !== 'cancelled') throw new Error(`traced cancel: ${r.message}`);
      if (i === 0) continue;
      const rm = events.find((e) => e.what === 'rm -f -v' && e.start >= t0);
      const attach = events.find((e) => e.what === 'start --attach');
      if (rm) {
        add('rm -f -v spawned', rm.start - t0);
        add('rm -f -v exited', rm.end - t0);
      }
      if (attach) add('start --attach exited', attach.end - t0);
      add('promise resolved', t1 - t0);
    }
  } finally {
    uninstall();
  }
  return [
    `core cancel path: median ms after abort() (${runs} traced runs)`,
    ...[...series.entries()].map(([k, v]) => `  ${k.padEnd(25)} +${summarize(v).median.toFixed(1).padStart(6)}  ${fmtSummary(summarize(v))}`),
  ];
}

/** One CLI variant of the cold path, timed from before the first call to after the last. */
type Flow = (spec: Awaited<ReturnType<typeof rawSpec>>, image: string) => Promise<void>;

async function must(args: readonly string[], okCodes: readonly number[] = [0]): Promise<number> {
  const r = await dockerCli(args);
  const code = r.exitCode ?? -1;
  if (!okCodes.includes(code)) throw new Error(`docker ${args[0]} exited ${code}: ${String(r.stderr).trim()}`);
  return code;
}

const FLOWS: Record<string, Flow> = {
  // What the core does today (image VOLUME check in parallel with create).
  'A core: create||img-inspect, start -a, inspect, rm': async (s, image) => {
    await Promise.all([must(s.createArgv), must(['image', 'inspect', '--format', '{{json .Config.Volumes}}', image])]);
    await must(['start', '--attach', s.name]);
    await must(['container', 'inspect', '--format', '{{json .State}}', s.name]);
    await must(['rm', '-f', '-v', s.name]);
  },
  'B raw: run --rm': async (s) => {
    await must(s.runArgv);
  },
  // Skip inspect when the exit code is 0 (cannot be OOM-killed, must have started).
  'C create||img-inspect, start -a, rm (no inspect)': async (s, image) => {
    await Promise.all([must(s.createArgv), must(['image', 'inspect', '--format', '{{json .Config.Volumes}}', image])]);
    await must(['start', '--attach', s.name]);
    await must(['rm', '-f', '-v', s.name]);
  },
  // docker run without --rm: one CLI call instead of create + start; VOLUME check must come first.
  'D img-inspect, run, inspect, rm': async (s, image) => {
    await must(['image', 'inspect', '--format', '{{json .Config.Volumes}}', image]);
    await must(s.createArgv.map((a, i) => (i === 0 ? 'run' : a)));
    await must(['container', 'inspect', '--format', '{{json .State}}', s.name]);
    await must(['rm', '-f', '-v', s.name]);
  },
  'E img-inspect, run, rm (no inspect)': async (s, image) => {
    await must(['image', 'inspect', '--format', '{{json .Config.Volumes}}', image]);
    await must(s.createArgv.map((a, i) => (i === 0 ? 'run' : a)));
    await must(['rm', '-f', '-v', s.name]);
  },
  // AutoRemove set at create: `start -a` waits until the daemon removed it (no rm call, no inspect).
  'G create --rm||img-inspect, start -a (autoremove)': async (s, image) => {
    await Promise.all([must(['create', '--rm', ...s.createArgv.slice(1)]), must(['image', 'inspect', '--format', '{{json .Config.Volumes}}', image])]);
    await must(['start', '--attach', s.name]);
  },
  // The core's flow with the control calls after the run made over the Engine API socket.
  'H create||img-inspect, start -a, API inspect+rm': async (s, image) => {
    await Promise.all([must(s.createArgv), must(['image', 'inspect', '--format', '{{json .Config.Volumes}}', image])]);
    await must(['start', '--attach', s.name]);
    await engineApi('GET', `/containers/${s.name}/json`);
    await engineApi('DELETE', `/containers/${s.name}?force=1&v=1`);
  },
};

let engineSocketOnce: Promise<string> | undefined;

/**
 * The unix socket path of the engine the docker CLI talks to: DOCKER_HOST, else the current
 * context's endpoint (`docker context inspect`), never an assumed /var/run/docker.sock.
 * Throws when the endpoint is not a unix socket (tcp or ssh: the API comparison needs a socket).
 */
function engineSocket(): Promise<string> {
  engineSocketOnce ??= (async () => {
    const host = process.env.DOCKER_HOST || String((await dockerCli(['context', 'inspect', '--format', '{{.Endpoints.docker.Host}}'])).stdout).trim();
    if (!host.startsWith('unix://')) throw new Error(`the docker endpoint "${host}" is not a unix socket; --explain's Engine API calls need one`);
    return host.slice('unix://'.length);
  })();
  return engineSocketOnce;
}

/** One Engine API call over the engine's unix socket (what the CLI does, without a process). */
async function engineApi(method: string, path: string): Promise<string> {
  const socketPath = await engineSocket();
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => ((res.statusCode ?? 500) < 300 ? resolve(body) : reject(new Error(`${method} ${path}: ${res.statusCode} ${body}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Per-call CLI cost: a docker call that does almost nothing in the daemon. */
async function cliRoundTrips(runs: number): Promise<string[]> {
  const series: Record<string, number[]> = { 'docker container inspect (missing)': [], 'docker image inspect': [], 'docker version': [] };
  for (let i = 0; i < runs + 2; i++) {
    const calls: [string, readonly string[], number[]][] = [
      ['docker container inspect (missing)', ['container', 'inspect', 'sandbox-runner-bench-none'], [1]],
      ['docker image inspect', ['image', 'inspect', '--format', '{{json .Config.Volumes}}', 'sandbox-runner-test/busybox:1'], [0]],
      ['docker version', ['version', '--format', '{{.Server.Version}}'], [0]],
    ];
    for (const [name, args, ok] of calls) {
      const t0 = performance.now();
      await must(args, ok);
      if (i >= 2) series[name]!.push(performance.now() - t0);
    }
  }
  const api: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const t0 = performance.now();
    await engineApi('GET', '/images/sandbox-runner-test/busybox:1/json').catch(() => undefined);
    if (i >= 2) api.push(performance.now() - t0);
  }
  return [
    ...Object.entries(series).map(([k, v]) => `  ${k.padEnd(36)} ${fmtSummary(summarize(v))} ms`),
    `  ${'Engine API image inspect (socket)'.padEnd(36)} ${fmtSummary(summarize(api))} ms`,
  ];
}

export async function explain(runs: number, warmup: number): Promise<void> {
  const out: string[] = [];
  const cases: [string, string, Profile, string][] = [
    ['shell `true`', 'bench-shell', shellProfile(), 'true\n'],
    ['python `pass`', 'bench-python', pythonProfile(), 'pass\n'],
  ];
  log('explain: per-call CLI round trips');
  out.push('docker CLI round trip (spawn → exit), median [min..max]:', ...(await cliRoundTrips(runs)), '');
  for (const [label, name, profile, code] of cases) {
    log(`explain: traced core runs, ${label}`);
    out.push(...(await tracedCore(label, name, profile, code, runs)), '');
  }
  for (const deferReplacement of [false, true]) {
    const warm = await createWarmRunner({}, { deferReplacement });
    if (!warm) break;
    try {
      for (const [label, name, profile, code] of cases) {
        log(`explain: traced warm runs, ${label}${deferReplacement ? ', replacement deferred' : ''}`);
        out.push(...(await tracedCore(`${label}${deferReplacement ? ', replacement deferred until the run resolved (experiment)' : ''}`, name, profile, code, runs, warm)), '');
      }
    } finally {
      await warm.dispose();
    }
  }
  log('explain: traced cancels');
  out.push(...(await tracedCancel(runs)), '');
  for (const [label, name, profile, code] of cases) {
    const variants: Variant[] = Object.entries(FLOWS).map(([flowName, flow]) => ({
        name: flowName,
        run: async () => {
          const spec = await rawSpec(name, profile, code);
          try {
            const t0 = performance.now();
            await flow(spec, profile.image);
            return performance.now() - t0;
          } finally {
            await dockerCli(['rm', '-f', '-v', spec.name]);
            await spec.dispose();
          }
        },
      }));
    const res = await interleave(`explain ${label}`, variants, runs, warmup);
    const base = summarize(res['B raw: run --rm']!).median;
    out.push(`CLI flows, ${label}, interleaved, ms median [min..max] and ratio to run --rm:`);
    for (const [k, v] of Object.entries(res)) {
      const s = summarize(v);
      out.push(`  ${k.padEnd(50)} ${fmtSummary(s).padEnd(26)} ${(s.median / base).toFixed(3)}x`);
    }
    out.push('');
  }
  process.stdout.write(out.join('\n') + '\n');
}
