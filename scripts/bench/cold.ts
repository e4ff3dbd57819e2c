/** `cold_ratio`, `cli_exit_ratio`, `cold_cli_exit_ms`: `runInSandbox` (or the CLI) vs raw `run --rm` of the same argv, per case (the worse); the cases and sides serve other sections too. */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { runInSandbox } from '../../src/core/run/runner';
import type { Profile } from '../../src/core/profiles/profileSchema';
import type { RunRequest } from '../../src/core/run/request';
import type { RunResult } from '../../src/core/run/result';
import { pythonProfile, shellProfile } from '../../test/support/profiles';
import { checkSameArgv, rawSpec, rawTimed, type EngineEnv, type Timing } from './docker';
import { interleave, noFigure, ratioRow, targetText, type Ctx, type Figures, type Row, type Summary } from './harness';

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
/** For each case (default {@link CASES}), `ours` interleaved with raw cold runs (engine of `env`) and a row; the worse ratio and the shell case's first byte. */
export async function eachCase(ctx: Ctx, label: string, ours: (c: Case) => Promise<Timing>, row: (c: Case, p: Pair) => Row, env?: EngineEnv, cases: readonly Case[] = CASES) {
  const [ratios, first] = [[] as number[], [] as number[]];
  for (const c of cases) {
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

/** `cli_exit_ratio` and `cold_cli_exit_ms`: `node dist/cli.js` (beside the bundle) of the shell case, spawn → exit (node start-up, run, removal), vs raw `run --rm`. */
export async function cli(ctx: Ctx): Promise<Figures> {
  const [cliJs, c] = [resolve(ctx.bundle, '..', 'cli.js'), CASES[0]!];
  const metric = `cold CLI exit ${c.label} (ms)`;
  if (!existsSync(cliJs)) {
    ctx.rows.push(noFigure(metric, targetText('cli_exit_ratio'), 'ERROR', `(${cliJs} missing: run npm run bench, which builds it)`));
    return {};
  }
  const ws = mkdtempSync(join(tmpdir(), 'sandbox-runner-bench-cli-'));
  const { image, command, extensions } = c.profile;
  const file = join(ws, `snippet${extensions[0] ?? '.txt'}`);
  mkdirSync(join(ws, '.vscode'));
  writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'sandboxRunner.profiles': { [c.profileName]: { image, command, extensions } } }));
  writeFileSync(file, c.code);
  const runCli = async () => {
    const t0 = performance.now();
    const r = await execa(process.execPath, [cliJs, '-w', ws, '-p', c.profileName, '-q', '--allow-loosening', file], { reject: false, stdin: 'ignore' });
    const ms = performance.now() - t0;
    if (r.exitCode !== 0 || r.stdout !== c.prints.trimEnd()) throw new Error(`cli ${c.label}: exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout)}, stderr ${String(r.stderr).trim()}`);
    return { ms };
  };
  try {
    const p = await interleave(`cli exit ${c.label}`, { raw: () => rawCold(c).then(({ ms }) => ({ ms })), cli: runCli }, ctx);
    ctx.rows.push(ratioRow(metric, 'cli_exit_ratio', p.cli.ms, p.raw.ms, 'run --rm', '(node dist/cli.js spawn → exit: node start-up, the run, and container removal)'));
    return { cold_cli_exit_ms: p.cli.ms.median, cli_exit_ratio: p.cli.ms.median / p.raw.ms.median };
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}
