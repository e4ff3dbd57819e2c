/**
 * `cold_ratio`: `runInSandbox` call → result vs raw `docker run --rm` spawn → exit, per case (the worse
 * ratio), and the first output byte. The cases and both sides serve the cli, warm, concurrent and remote sections.
 */
import { performance } from 'node:perf_hooks';
import { runInSandbox, type Profile, type RunRequest, type RunResult } from '../../src/core';
import { pythonProfile, shellProfile } from '../../test/support/profiles';
import { checkSameArgv, rawSpec, rawTimed, type EngineEnv, type Timing } from './docker';
import { interleave, ratioRow, type Ctx, type Figures, type Row, type Summary } from './harness';

/** Case: a snippet, its profile, what it prints (checked). Pair: one interleaved series' summaries per side and figure. */
export type Case = { readonly label: string; readonly profileName: string; readonly profile: Profile; readonly code: string; readonly prints: string };
export type Pair = Record<'raw' | 'core', Record<keyof Timing, Summary>>;

export const CASES: readonly Case[] = [
  { label: 'shell `echo ok`', profileName: 'bench-shell', profile: shellProfile(), code: 'echo ok\n', prints: 'ok\n' },
  { label: 'python `print("ok")`', profileName: 'bench-python', profile: pythonProfile({ env: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' } }), code: 'print("ok")\n', prints: 'ok\n' },
];

/** @throws Error unless `r` is a clean exit 0 */
export function expectExited(r: RunResult, what: string): void {
  if (r.outcome !== 'exited' || r.exitCode !== 0) throw new Error(`${what}: expected exit 0, got ${r.outcome}: ${r.message}`);
}

/** One raw cold run of `c` on the engine of `env` (its argv checked once against the runner's, untimed). */
export async function rawCold(c: Case, env?: EngineEnv): Promise<Timing> {
  await checkSameArgv(c.profileName, c.profile, c.code);
  const spec = await rawSpec(c.profileName, c.profile, c.code);
  return rawTimed(spec.runArgv, `raw ${c.label}`, { env, input: spec.input }).finally(() => spec.dispose());
}

/** One run of `c` through the runner, `extra` merged into the request (engine, warm pool); checks exit 0 and the printed line. */
export async function coreRun(c: Case, extra: Partial<RunRequest> = {}): Promise<Timing & { containerName: string }> {
  let [firstByteMs, out] = [NaN, ''];
  const t0 = performance.now();
  const r = await runInSandbox({
    profileName: c.profileName, profile: c.profile, code: c.code, ...extra,
    onOutput: (stream, data) => {
      if (stream !== 'stdout') return;
      if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
      out += Buffer.from(data).toString('utf8');
    },
  });
  const ms = performance.now() - t0;
  expectExited(r, `core ${c.label}`);
  if (out !== c.prints) throw new Error(`core ${c.label}: printed ${JSON.stringify(out)}, expected ${JSON.stringify(c.prints)}`);
  return { ms, firstByteMs, containerName: r.containerName };
}

export const firstByteNote = (p: Pair): string => `(first output byte, median: ours ${p.core.firstByteMs.median.toFixed(1)} ms, raw ${p.raw.firstByteMs.median.toFixed(1)} ms)`;

/** For each case, `ours` interleaved with raw cold runs (engine of `env`) and a row; the worse ratio and the shell case's first byte. */
export async function eachCase(ctx: Ctx, label: string, ours: (c: Case) => Promise<Timing>, row: (c: Case, p: Pair) => Row, env?: EngineEnv) {
  const [ratios, first] = [[] as number[], [] as number[]];
  for (const c of CASES) {
    const p = await interleave(`${label} ${c.label}`, { raw: () => rawCold(c, env), core: () => ours(c).then(({ ms, firstByteMs }) => ({ ms, firstByteMs })) }, ctx);
    ctx.rows.push(row(c, p));
    ratios.push(p.core.ms.median / p.raw.ms.median);
    first.push(p.core.firstByteMs.median);
  }
  return { ratio: Math.max(...ratios), firstByteMs: first[0]! };
}

export async function cold(ctx: Ctx): Promise<Figures> {
  const row = (c: Case, p: Pair) => ratioRow(`cold ${c.label} (ms, to result)`, 'cold_ratio', p.core.ms, p.raw.ms, 'run --rm, stdin', firstByteNote(p));
  const r = await eachCase(ctx, 'cold', (c) => coreRun(c), row);
  return { cold_ratio: r.ratio, cold_first_byte_ms: r.firstByteMs };
}
