/**
 * `cold_ratio`: `runInSandbox` of `echo ok` (shell) and `print("ok")` (python), call → result
 * delivered (removal that continues after the result is not in the figure), vs raw `docker run
 * --rm` spawn → exit; the worse of the two ratios. Also the pieces the cli, warm, concurrent and
 * remote sections reuse. First output byte: core from the call to the first stdout chunk, raw from
 * spawn to the docker CLI's first stdout chunk (information).
 */
import { performance } from 'node:perf_hooks';
import { runInSandbox, type Profile, type RunResult } from '../../src/core';
import { pythonProfile, rawSpec, rawTimed, runnerDelivery, shellProfile, type EngineEnv, type RawDelivery, type Timing } from './docker';
import { interleave, log, type Ctx, type Figures, type Summary } from './harness';
import { ratioRow } from './targets';

export interface Case {
  readonly label: string;
  readonly profileName: string;
  readonly profile: Profile;
  readonly code: string;
  /** What the program prints on stdout (checked). */
  readonly prints: string;
}

export const CASES: readonly Case[] = [
  { label: 'shell `echo ok`', profileName: 'bench-shell', profile: shellProfile(), code: 'echo ok\n', prints: 'ok\n' },
  { label: 'python `print("ok")`', profileName: 'bench-python', profile: pythonProfile(), code: 'print("ok")\n', prints: 'ok\n' },
];

/** @throws Error unless `r` is a clean exit 0 */
export function expectExited(r: RunResult, what: string): void {
  if (r.outcome !== 'exited' || r.exitCode !== 0) throw new Error(`${what}: expected exit 0, got ${r.outcome}: ${r.message}`);
}

const deliveries = new Map<string, RawDelivery>();

/** How the runner's cold path delivers `c`'s code (one untimed run, found once per case); the raw side does the same locally. */
export async function deliveryFor(c: Case): Promise<RawDelivery> {
  let d = deliveries.get(c.profileName);
  if (!d) {
    d = await runnerDelivery(c.profileName, c.profile, c.code);
    log(`${c.label}: the runner's cold path delivers the code by ${d}; the raw side does the same`);
    deliveries.set(c.profileName, d);
  }
  return d;
}

/** One raw cold run: the identical argv as `run --rm`, the snippet written (or framed) before the clock. */
export async function rawCold(c: Case, delivery: RawDelivery, env?: EngineEnv): Promise<Timing> {
  const spec = await rawSpec(c.profileName, c.profile, c.code, delivery);
  try {
    return await rawTimed(spec.runArgv, `raw ${c.label}`, { env, input: spec.input });
  } finally {
    await spec.dispose();
  }
}

/** One core cold run on the engine of `env`; checks exit 0 and the printed line. */
export async function coreCold(c: Case, env?: EngineEnv): Promise<Timing> {
  let firstByteMs = NaN;
  let out = '';
  const t0 = performance.now();
  const r = await runInSandbox({
    profileName: c.profileName, profile: c.profile, code: c.code, ...(env ? { docker: { env } } : {}),
    onOutput: (stream, data) => {
      if (stream !== 'stdout') return;
      if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
      out += Buffer.from(data).toString('utf8');
    },
  });
  const ms = performance.now() - t0;
  expectExited(r, `core ${c.label}`);
  if (out !== c.prints) throw new Error(`core ${c.label}: printed ${JSON.stringify(out)}, expected ${JSON.stringify(c.prints)}`);
  return { ms, firstByteMs };
}

/** Interleaved raw and core cold runs of `c`. */
export function coldPair(label: string, c: Case, ctx: Ctx, delivery: RawDelivery, env?: EngineEnv) {
  return interleave(label, { raw: () => rawCold(c, delivery, env), core: () => coreCold(c, env) }, ctx);
}

/** "(first output byte, median: ours 512.3 ms, raw 498.1 ms)" */
export const firstByteNote = (ours: Summary, raw: Summary): string =>
  `(first output byte, median: ours ${ours.median.toFixed(1)} ms, raw ${raw.median.toFixed(1)} ms)`;

/** The cold rows; cold_first_byte_ms is the shell case's. */
export async function cold(ctx: Ctx): Promise<Figures> {
  const ratios: number[] = [];
  const first: number[] = [];
  for (const c of CASES) {
    const d = await deliveryFor(c);
    const { core, raw } = await coldPair(`cold ${c.label}`, c, ctx, d);
    ctx.rows.push(ratioRow(`cold ${c.label} (ms, to result)`, 'cold_ratio', core.ms, raw.ms, `run --rm, ${d}`, firstByteNote(core.firstByteMs, raw.firstByteMs)));
    ratios.push(core.ms.median / raw.ms.median);
    first.push(core.firstByteMs.median);
  }
  return { cold_ratio: Math.max(...ratios), cold_first_byte_ms: first[0] ?? NaN };
}
