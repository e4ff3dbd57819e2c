/**
 * Cold runs, shared by the local cold row, the remote cold row (scripts/bench/remote.ts) and the
 * warm row's baseline: the cases, one raw `docker run --rm` (identical isolation argv, snippet
 * written before its timer), one core `runInSandbox` (call → result delivered), and one CLI run
 * (`node dist/cli.js`, spawn → exit, which includes container removal).
 *
 * Each case prints one short line, so the time to the first output byte is measured on both
 * sides: core from the call to the first `onOutput` stdout chunk, raw from spawn to the first
 * stdout chunk of the docker CLI.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { runInSandbox, type Profile, type RunResult } from '../../src/core';
import { pythonProfile, rawSpec, rawTimed, shellProfile, type EngineEnv, type RawDelivery, type RawTiming } from './docker';
import { interleave } from './harness';
import { summarize, type Summary } from './stats';

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

/** Throws unless `r` is a clean exit 0. */
export function expectExited(r: RunResult, what: string): void {
  if (r.outcome !== 'exited' || r.exitCode !== 0) throw new Error(`${what}: expected exit 0, got ${r.outcome}: ${r.message}`);
}

/**
 * A raw cold run on the engine of `env`: identical argv as `run --rm`, snippet written first
 * (untimed) for `bind` delivery, or the code written to stdin for `stdin` delivery.
 */
export async function rawCold(c: Case, env?: EngineEnv, delivery: RawDelivery = 'bind'): Promise<RawTiming> {
  const spec = await rawSpec(c.profileName, c.profile, c.code, delivery);
  try {
    return await rawTimed(spec.runArgv, `raw ${c.label}`, env, spec.input);
  } finally {
    await spec.dispose();
  }
}

/** One core cold run on the engine of `env`: call → result delivered, and call → first stdout byte. */
export async function coreCold(c: Case, env?: EngineEnv): Promise<RawTiming> {
  let first = NaN;
  let out = '';
  const t0 = performance.now();
  const r = await runInSandbox({
    profileName: c.profileName,
    profile: c.profile,
    code: c.code,
    ...(env ? { docker: { env } } : {}),
    onOutput: (stream, data) => {
      if (stream !== 'stdout') return;
      if (Number.isNaN(first)) first = performance.now() - t0;
      out += Buffer.from(data).toString('utf8');
    },
  });
  const ms = performance.now() - t0;
  expectExited(r, `core ${c.label}`);
  if (out !== c.prints) throw new Error(`core ${c.label}: printed ${JSON.stringify(out)}, expected ${JSON.stringify(c.prints)}`);
  return { ms, firstByteMs: first };
}

/** Medians of one interleaved core/raw cold series. */
export interface ColdFigures {
  readonly core: Summary;
  readonly raw: Summary;
  readonly coreFirstByte: Summary;
  readonly rawFirstByte: Summary;
  /** core median / raw median. */
  readonly ratio: number;
}

/** Interleaved core vs raw cold runs of `c` on the engine of `env`. */
export async function coldSeries(label: string, c: Case, runs: number, warmup: number, env?: EngineEnv, delivery: RawDelivery = 'bind'): Promise<ColdFigures> {
  const first: Record<string, number[]> = { core: [], raw: [] };
  const timedSide = (name: 'core' | 'raw', fn: () => Promise<RawTiming>) => ({
    name,
    run: async () => {
      const t = await fn();
      first[name]!.push(t.firstByteMs);
      return t.ms;
    },
  });
  const res = await interleave(label, [timedSide('raw', () => rawCold(c, env, delivery)), timedSide('core', () => coreCold(c, env))], runs, warmup);
  const core = summarize(res.core!);
  const raw = summarize(res.raw!);
  return {
    core,
    raw,
    // Warm-up iterations pushed first-byte times too: keep the counted ones (the last `runs`).
    coreFirstByte: summarize(first.core!.slice(-runs).filter(Number.isFinite)),
    rawFirstByte: summarize(first.raw!.slice(-runs).filter(Number.isFinite)),
    ratio: core.median / raw.median,
  };
}

/**
 * The CLI's exit time for the shell case: `node dist/cli.js -w WS -p bench-shell -q FILE`,
 * spawn → exit (node start-up, the run, and container removal), interleaved with raw
 * `docker run --rm`. Information only. The workspace's .vscode/settings.json defines the case's
 * profile; the CLI must be the build beside the measured extension bundle.
 * @returns undefined when dist/cli.js is missing
 */
export async function cliExitSeries(cli: string, c: Case, runs: number, warmup: number, delivery: RawDelivery = 'bind'): Promise<{ cli: Summary; raw: Summary } | undefined> {
  const ws = mkdtempSync(join(tmpdir(), 'sandbox-runner-bench-cli-'));
  try {
    mkdirSync(join(ws, '.vscode'));
    const { image, command, extensions } = c.profile;
    writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'sandboxRunner.profiles': { [c.profileName]: { image, command, extensions } } }));
    const file = join(ws, `snippet${extensions[0] ?? '.txt'}`);
    writeFileSync(file, c.code);
    const res = await interleave(`cli exit ${c.label}`, [
      { name: 'raw', run: async () => (await rawCold(c, undefined, delivery)).ms },
      {
        name: 'cli',
        run: async () => {
          const t0 = performance.now();
          const r = await execa(process.execPath, [resolve(cli), '-w', ws, '-p', c.profileName, '-q', '--allow-loosening', file], { reject: false, stdin: 'ignore' });
          const t = performance.now() - t0;
          if (r.exitCode !== 0 || r.stdout !== c.prints.trimEnd()) throw new Error(`cli ${c.label}: exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout)}, stderr ${String(r.stderr).trim()}`);
          return t;
        },
      },
    ], runs, warmup);
    return { cli: summarize(res.cli!), raw: summarize(res.raw!) };
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}
