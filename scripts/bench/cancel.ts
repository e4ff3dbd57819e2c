/**
 * `cancel_ratio`: a running `echo started; sleep 600` snippet; once "started" arrives on stdout,
 * time from a forced cancel (`forceSignal`, the second Ctrl-C: removal without the interrupt
 * grace) to the runInSandbox promise resolving (outcome cancelled), vs, for the identical
 * container created and started with `start --attach`, `docker rm -f -v NAME` spawn → exit.
 * Both are then verified gone (untimed); a leftover is a MISS.
 */
import { performance } from 'node:perf_hooks';
import { runInSandbox } from '../../src/core';
import { containerExists, rawSpec, rawTimed, shellProfile } from './docker';
import { interleave, type Ctx, type Figures } from './harness';
import { ratioRow } from './targets';

const CODE = 'echo started; sleep 600\n';
const profile = shellProfile();

/** `seen(chunk)` resolves `started` once "started" has arrived; rejects after 20 s. */
function watchStarted(): { seen: (b: Uint8Array) => void; started: Promise<void> } {
  let buf = '';
  let done = (): void => undefined;
  const started = new Promise<void>((res, rej) => {
    done = res;
    setTimeout(() => rej(new Error('no "started" within 20000 ms')), 20_000).unref();
  });
  const seen = (b: Uint8Array) => {
    buf = (buf + Buffer.from(b).toString('utf8')).slice(-64);
    if (buf.includes('started')) done();
  };
  return { seen, started };
}

/** Raw: create, `start --attach`, then the timed `rm -f -v`; counts a leftover. */
async function rawCancel(leftovers: { n: number }): Promise<{ ms: number }> {
  const spec = await rawSpec('bench-cancel', profile, CODE, 'bind'); // how the code arrives does not matter here
  try {
    await rawTimed(spec.createArgv, 'raw cancel create');
    const w = watchStarted();
    const attach = rawTimed(['start', '--attach', spec.name], 'raw cancel attach', { onData: w.seen }).catch(() => undefined);
    await w.started;
    const { ms } = await rawTimed(['rm', '-f', '-v', spec.name], 'raw cancel rm');
    if (await containerExists(spec.name)) leftovers.n++;
    await attach;
    return { ms };
  } finally {
    await spec.dispose();
  }
}

/** Core: the timed forced cancel of a started run; counts a leftover. */
async function coreCancel(leftovers: { n: number }): Promise<{ ms: number }> {
  const controller = new AbortController();
  const w = watchStarted();
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
  if (await containerExists(r.containerName)) leftovers.n++;
  return { ms };
}

export async function cancel(ctx: Ctx): Promise<Figures> {
  const leftovers = { n: 0 };
  const res = await interleave('cancel', { raw: () => rawCancel(leftovers), core: () => coreCancel(leftovers) }, ctx);
  const row = ratioRow('cancel: abort → gone (ms)', 'cancel_ratio', res.core.ms, res.raw.ms, 'rm -f -v');
  ctx.rows.push(leftovers.n ? { ...row, verdict: 'MISS', note: `(${leftovers.n} containers still present after their run)` } : row);
  return { cancel_ratio: res.core.ms.median / res.raw.ms.median };
}
