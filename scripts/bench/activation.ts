/**
 * `activation_ms`: fresh node processes, each running scripts/bench/vscodeStub.js, which maps
 * `vscode` to that fake and times require(dist/extension.js) + activate(context). This is our
 * bundle's load and activate() code, not VS Code's activation (no extension host, no IPC).
 */
import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { execa } from 'execa';
import { lazyBundles } from './bundle';
import { fmtSummary, log, summarize, type Ctx, type Figures } from './harness';
import { targetText, verdictFor } from './targets';

const PROBE = resolve('scripts/bench/vscodeStub.js');

export interface ActivationSample {
  readonly requireMs: number;
  readonly activateMs: number;
  readonly totalMs: number;
  /** The .js files in the bundle's folder loaded once activate() (and its setImmediate work) finished. */
  readonly loaded: readonly string[];
  /** ms to require the `lazy` bundles after activation: what a first use pays once. */
  readonly lazyMs: number;
}

/**
 * Samples of `warmup + runs` fresh processes; the first `warmup` (which warm the file cache) are dropped.
 * @throws Error with the child's stack when the bundle fails to load or activate() throws
 */
export async function probeActivation(bundle: string, runs: number, warmup: number, lazy: readonly string[] = []): Promise<ActivationSample[]> {
  const out: ActivationSample[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const r = await execa(process.execPath, [PROBE, bundle, process.cwd(), ...lazy], { reject: false, stdin: 'ignore' });
    let parsed: { ok: boolean; error?: string } & ActivationSample;
    try {
      parsed = JSON.parse(String(r.stdout).trim().split('\n').pop() ?? '') as typeof parsed;
    } catch {
      throw new Error(`activation probe failed (exit ${r.exitCode}): ${String(r.stderr).trim() || r.stdout}`);
    }
    if (!parsed.ok) throw new Error(`activate() failed with the fake vscode: ${parsed.error}`);
    if (i >= warmup) out.push(parsed);
  }
  return out;
}

export async function activation(ctx: Ctx): Promise<Figures> {
  if (!existsSync(ctx.bundle)) return {};
  log('activation: fresh node processes with a fake vscode');
  const lazy = lazyBundles(ctx.bundle);
  try {
    const samples = await probeActivation(ctx.bundle, ctx.runs, ctx.warmup, lazy);
    const [total, req, act, lazyMs] = (['totalMs', 'requireMs', 'activateMs', 'lazyMs'] as const).map((k) => summarize(samples.map((s) => s[k])));
    ctx.rows.push({
      metric: 'activation: require + activate (ms)', ours: fmtSummary(total!), raw: '-', figure: `${total!.median.toFixed(1)} ms`, target: targetText('activation_ms'),
      verdict: verdictFor('activation_ms', total!.median),
      note: `(require ${req!.median.toFixed(1)} + activate ${act!.median.toFixed(1)}; our code with a fake vscode, not VS Code; ` +
        `then, once, on first use: require of ${lazy.map((f) => basename(f)).join(', ') || 'no lazy bundle'} ${lazyMs!.median.toFixed(1)} ms)`,
    });
    return { activation_ms: total!.median };
  } catch (e) {
    ctx.rows.push({ metric: 'activation (ms)', ours: '-', raw: '-', figure: 'error', target: targetText('activation_ms'), verdict: 'ERROR', note: `(${String(e).split('\n')[0]})` });
    return {};
  }
}
