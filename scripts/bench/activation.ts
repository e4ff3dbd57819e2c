/**
 * `activation_ms`: fresh node processes run activationProbe.js: require(package.json `main`, dist/extensionLoader.js) +
 * activate() with a fake vscode (our code, not VS Code's). The loader's code cache (src/extensionLoader.ts) is in place
 * after the warm-up probes, as in every window after the first; the note gives the figure without it (the first window
 * after an install or update: SANDBOX_RUNNER_NO_CODE_CACHE=1).
 */
import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { execa } from 'execa';
import { lazyBundles } from './bundle';
import { fmtSummary, judged, log, noFigure, summarize, targetText, type Ctx, type Figures, type Summary } from './harness';

/** One probe, ms; `loaded`: the .js files beside the bundle loaded by then; `lazyMs`: then requiring the lazy bundles (what a first use pays once). */
export type ActivationSample = { requireMs: number; activateMs: number; totalMs: number; loaded: string[]; lazyMs: number };

/** Samples of `warmup + runs` fresh processes, the first `warmup` (which warm the file cache) dropped. @throws Error with the probe's stack when loading or activate() fails */
export async function probeActivation(bundle: string, runs: number, warmup: number, lazy: readonly string[] = [], env: Record<string, string> = {}): Promise<ActivationSample[]> {
  const out: ActivationSample[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const r = await execa(process.execPath, [resolve('scripts/bench/activationProbe.js'), bundle, process.cwd(), ...lazy], { reject: false, stdin: 'ignore', env });
    const last = String(r.stdout).trim().split('\n').pop() ?? '';
    const s = (last.startsWith('{') ? JSON.parse(last) : { ok: false, error: `exit ${r.exitCode}: ${String(r.stderr).trim() || last}` }) as ActivationSample & { ok: boolean; error?: string };
    if (!s.ok) throw new Error(`activate() failed with the fake vscode: ${s.error}`);
    if (i >= warmup) out.push(s);
  }
  return out;
}

export async function activation(ctx: Ctx): Promise<Figures> {
  if (!existsSync(ctx.bundle)) return {};
  log('activation: fresh node processes with a fake vscode');
  const lazy = lazyBundles(ctx.bundle);
  try {
    const samples = await probeActivation(ctx.bundle, ctx.runs, ctx.warmup, lazy);
    const [total, req, act, first] = (['totalMs', 'requireMs', 'activateMs', 'lazyMs'] as const).map((k) => summarize(samples.map((s) => s[k]))) as [Summary, Summary, Summary, Summary];
    const uncached = summarize((await probeActivation(ctx.bundle, ctx.runs, 0, [], { SANDBOX_RUNNER_NO_CODE_CACHE: '1' })).map((s) => s.totalMs));
    ctx.rows.push(judged('activation: require + activate (ms)', 'activation_ms', total.median, {
      ours: fmtSummary(total), figure: `${total.median.toFixed(1)} ms`,
      note: `(require ${req.median.toFixed(1)} + activate ${act.median.toFixed(1)}; our code with a fake vscode, not VS Code; ` +
        `without the code cache (a first window after an install or update) ${uncached.median.toFixed(1)}; ` +
        `then, once, on first use: require of ${lazy.map((f) => basename(f)).join(', ') || 'no lazy bundle'} ${first.median.toFixed(1)} ms)`,
    }));
    return { activation_ms: total.median };
  } catch (e) {
    ctx.rows.push(noFigure('activation (ms)', targetText('activation_ms'), 'ERROR', `(${String(e).split('\n')[0]})`, 'error'));
    return {};
  }
}
