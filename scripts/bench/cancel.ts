/** `cancel_ratio`: once "started" is on stdout, a forced cancel (`forceSignal`: no interrupt grace) → the promise resolving,
 * vs raw `docker rm -f -v`. A container left afterwards is a MISS. */
import { performance } from 'node:perf_hooks';
import { runInSandbox } from '../../src/core/run/runner';
import { settlesWithin } from '../../test/support/deadlines';
import { shellProfile } from '../../test/support/profiles';
import { containerExists, rawSpec, rawTimed } from './docker';
import { interleave, ratioRow, type Ctx, type Figures } from './harness';

const [CODE, profile, leftovers] = ['echo started; sleep 600\n', shellProfile(), [] as string[]];

/** `seen(chunk)` for each stdout chunk; `started` resolves once "started" has arrived (rejects after 20 s). */
function watchStarted(): { seen: (b: Uint8Array) => void; started: Promise<void> } {
  let [buf, done] = ['', (): void => undefined];
  const seen = (b: Uint8Array) => {
    buf = (buf + Buffer.from(b).toString('utf8')).slice(-64);
    if (buf.includes('started')) done();
  };
  return { seen, started: settlesWithin(new Promise<void>((r) => (done = r)), 20_000, 'the "started" line') };
}

/** Raw: the runner's argv (no `--rm`: the runner removes its containers itself) in the background, then the timed `rm -f -v`. */
async function raw(): Promise<{ ms: number }> {
  const [spec, w] = [await rawSpec('bench-cancel', profile, CODE), watchStarted()];
  const run = rawTimed(spec.runArgv.filter((a) => a !== '--rm'), 'raw cancel run', { input: spec.input, onData: w.seen }).catch(() => undefined); // killed: non-zero
  try {
    await w.started;
    const { ms } = await rawTimed(['rm', '-f', '-v', spec.name], 'raw cancel rm');
    if (await containerExists(spec.name)) leftovers.push(spec.name);
    return { ms };
  } finally {
    await run;
    await spec.dispose();
  }
}

/** Core: the timed forced cancel of a started run. */
async function core(): Promise<{ ms: number }> {
  const [controller, w] = [new AbortController(), watchStarted()];
  const pending = runInSandbox({ profileName: 'bench-cancel', profile, code: CODE, signal: controller.signal, forceSignal: controller.signal, onOutput: (s, d) => void (s === 'stdout' && w.seen(d)) });
  await w.started;
  const t0 = performance.now();
  controller.abort();
  const r = await pending;
  const ms = performance.now() - t0;
  if (r.outcome !== 'cancelled') throw new Error(`core cancel: expected cancelled, got ${r.outcome}: ${r.message}`);
  if (await containerExists(r.containerName)) leftovers.push(r.containerName);
  return { ms };
}

export async function cancel(ctx: Ctx): Promise<Figures> {
  const p = await interleave('cancel', { raw, core }, ctx);
  const row = ratioRow('cancel: abort → gone (ms)', 'cancel_ratio', p.core.ms, p.raw.ms, 'rm -f -v');
  ctx.rows.push(leftovers.length ? { ...row, verdict: 'MISS', note: `(${leftovers.length} containers still present after their run)` } : row);
  return { cancel_ratio: p.core.ms.median / p.raw.ms.median };
}
