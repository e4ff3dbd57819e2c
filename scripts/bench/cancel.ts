/**
 * `cancel_ratio`: `echo started; sleep 600`; once "started" is on stdout, a forced cancel
 * (`forceSignal`, the second Ctrl-C: removal without the interrupt grace) → the runInSandbox promise
 * resolving (outcome cancelled), vs `docker rm -f -v NAME` spawn → exit for the identical raw
 * container. Both are then verified gone (untimed); a leftover is a MISS.
 */
import { performance } from 'node:perf_hooks';
import { runInSandbox } from '../../src/core';
import { settlesWithin } from '../../test/support/deadlines';
import { shellProfile } from '../../test/support/profiles';
import { containerExists, rawSpec, rawTimed } from './docker';
import { interleave, type Ctx, type Figures } from './harness';
import { ratioRow } from './targets';

const CODE = 'echo started; sleep 600\n';
const profile = shellProfile();

/** `seen(chunk)` for each stdout chunk; `started` resolves once "started" has arrived (rejects after 20 s). */
function watchStarted(): { seen: (b: Uint8Array) => void; started: Promise<void> } {
  let [buf, done] = ['', (): void => undefined];
  const seen = (b: Uint8Array) => {
    buf = (buf + Buffer.from(b).toString('utf8')).slice(-64);
    if (buf.includes('started')) done();
  };
  return { seen, started: settlesWithin(new Promise<void>((r) => (done = r)), 20_000, 'the "started" line') };
}

/** Raw: `run --rm` in the background, then the timed `rm -f -v`. */
async function raw(leftovers: string[]): Promise<{ ms: number }> {
  const spec = await rawSpec('bench-cancel', profile, CODE);
  try {
    const w = watchStarted();
    const run = rawTimed(spec.runArgv, 'raw cancel run', { input: spec.input, onData: w.seen }).catch(() => undefined); // killed: exits non-zero
    await w.started;
    const { ms } = await rawTimed(['rm', '-f', '-v', spec.name], 'raw cancel rm');
    if (await containerExists(spec.name)) leftovers.push(spec.name);
    await run;
    return { ms };
  } finally {
    await spec.dispose();
  }
}

/** Core: the timed forced cancel of a started run. */
async function core(leftovers: string[]): Promise<{ ms: number }> {
  const [controller, w] = [new AbortController(), watchStarted()];
  const pending = runInSandbox({
    profileName: 'bench-cancel', profile, code: CODE, signal: controller.signal, forceSignal: controller.signal,
    onOutput: (stream, data) => {
      if (stream === 'stdout') w.seen(data);
    },
  });
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
  const leftovers: string[] = [];
  const p = await interleave('cancel', { raw: () => raw(leftovers), core: () => core(leftovers) }, ctx);
  const row = ratioRow('cancel: abort → gone (ms)', 'cancel_ratio', p.core.ms, p.raw.ms, 'rm -f -v');
  ctx.rows.push(leftovers.length ? { ...row, verdict: 'MISS', note: `(${leftovers.length} containers still present after their run)` } : row);
  return { cancel_ratio: p.core.ms.median / p.raw.ms.median };
}
