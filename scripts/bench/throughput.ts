/**
 * `throughput_ratio`: 5 MiB of output (`head -c 5242880 /dev/zero | tr '\0' y`) with an 8 MiB
 * bound, core (the sink counts the program's bytes) vs raw `run --rm` with stdout drained, over
 * the streaming window as seen by this process: (bytes after the first chunk) / (time of the last
 * chunk − time of the first chunk), MB/s; higher is better. End-to-end time is an INFO row.
 */
import { performance } from 'node:perf_hooks';
import { runInSandbox } from '../../src/core';
import { expectExited } from './cold';
import { rawSpec, rawTimed, shellProfile } from './docker';
import { fmtRatio, fmtSummary, interleave, type Ctx, type Figures } from './harness';
import { ratioRow, targetText, verdictFor } from './targets';

const BYTES = 5 * 1024 * 1024;
const CODE = `head -c ${BYTES} /dev/zero | tr '\\0' y\n`;
const profile = shellProfile({ limits: { outputBytes: 8 * 1024 * 1024 } });

/** Bytes and chunk times on the receiving side. */
class Window {
  bytes = 0;
  firstBytes = 0;
  first = NaN;
  last = NaN;
  add(n: number): void {
    this.last = performance.now();
    if (this.bytes === 0) [this.first, this.firstBytes] = [this.last, n];
    this.bytes += n;
  }
  /** ms and MB/s over the streaming window, after checking every byte arrived. */
  result(what: string, ms: number): { ms: number; rate: number } {
    if (this.bytes !== BYTES) throw new Error(`${what} throughput: ${this.bytes} bytes delivered`);
    const dt = (this.last - this.first) / 1000;
    return { ms, rate: dt > 0 ? (this.bytes - this.firstBytes) / dt / 1e6 : NaN };
  }
}

async function raw(): Promise<{ ms: number; rate: number }> {
  const spec = await rawSpec('bench-throughput', profile, CODE, 'bind'); // output rate only: the code arrives before the clock
  try {
    const w = new Window();
    const { ms } = await rawTimed(spec.runArgv, 'raw throughput', { onData: (b) => w.add(b.byteLength) });
    return w.result('raw', ms);
  } finally {
    await spec.dispose();
  }
}

async function core(): Promise<{ ms: number; rate: number }> {
  const w = new Window();
  const t0 = performance.now();
  const r = await runInSandbox({
    profileName: 'bench-throughput', profile, code: CODE,
    onOutput: (stream, data) => {
      if (stream === 'stdout') w.add(data.byteLength);
    },
  });
  const ms = performance.now() - t0;
  expectExited(r, 'core throughput');
  return w.result('core', ms);
}

export async function throughput(ctx: Ctx): Promise<Figures> {
  const res = await interleave('throughput', { raw, core }, ctx);
  const ratio = res.core.rate.median / res.raw.rate.median;
  ctx.rows.push({
    metric: 'throughput 5 MiB (MB/s, stream)', ours: fmtSummary(res.core.rate, 0), raw: fmtSummary(res.raw.rate, 0), figure: fmtRatio(ratio),
    target: targetText('throughput_ratio'), verdict: verdictFor('throughput_ratio', ratio),
  });
  const e2e = ratioRow('throughput 5 MiB end-to-end (ms)', 'info', res.core.ms, res.raw.ms, 'run --rm');
  ctx.rows.push({ ...e2e, figure: fmtRatio(res.raw.ms.median / res.core.ms.median) }); // a speed: raw time / ours
  return { throughput_ratio: ratio };
}
