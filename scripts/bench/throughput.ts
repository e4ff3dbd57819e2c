/** `throughput_ratio`: 5 MiB of output, MB/s over the streaming window (first chunk → last), ours / raw; end to end as INFO. */
import { performance } from 'node:perf_hooks';
import { runInSandbox } from '../../src/core/run/runner';
import { shellProfile } from '../../test/support/profiles';
import { expectExited } from './cold';
import { rawSpec, rawTimed } from './docker';
import { fmtRatio, fmtSummary, interleave, judged, ratioRow, type Ctx, type Figures } from './harness';

const BYTES = 5 * 1024 * 1024;
const [CODE, profile] = [`head -c ${BYTES} /dev/zero | tr '\\0' y\n`, shellProfile({ limits: { outputBytes: 8 * 1024 * 1024 } })];

/** `add(n)` per chunk; `result(ms)` checks that every byte arrived and adds the rate (MB/s). */
function receiver(what: string) {
  let [bytes, firstBytes, first, last] = [0, 0, NaN, NaN];
  const add = (n: number) => {
    last = performance.now();
    if (bytes === 0) [first, firstBytes] = [last, n];
    bytes += n;
  };
  const result = (ms: number) => {
    if (bytes !== BYTES) throw new Error(`${what} throughput: ${bytes} bytes delivered`);
    return { ms, rate: last > first ? (bytes - firstBytes) / ((last - first) / 1000) / 1e6 : NaN };
  };
  return { add, result };
}

async function raw(): Promise<{ ms: number; rate: number }> {
  const [spec, w] = [await rawSpec('bench-throughput', profile, CODE), receiver('raw')];
  return rawTimed(spec.runArgv, 'raw throughput', { input: spec.input, onData: (b) => w.add(b.byteLength) }).then((t) => w.result(t.ms)).finally(() => spec.dispose());
}

async function core(): Promise<{ ms: number; rate: number }> {
  const [w, t0] = [receiver('core'), performance.now()];
  const r = await runInSandbox({ profileName: 'bench-throughput', profile, code: CODE, onOutput: (s, d) => void (s === 'stdout' && w.add(d.byteLength)) });
  const ms = performance.now() - t0;
  expectExited(r, 'core throughput');
  return w.result(ms);
}

export async function throughput(ctx: Ctx): Promise<Figures> {
  const p = await interleave('throughput', { raw, core }, ctx);
  const ratio = p.core.rate.median / p.raw.rate.median;
  ctx.rows.push(judged('throughput 5 MiB (MB/s, stream)', 'throughput_ratio', ratio, { ours: fmtSummary(p.core.rate, 0), raw: fmtSummary(p.raw.rate, 0), figure: fmtRatio(ratio) }));
  const e2e = ratioRow('throughput 5 MiB end-to-end (ms)', 'info', p.core.ms, p.raw.ms, 'run --rm');
  ctx.rows.push({ ...e2e, figure: fmtRatio(p.raw.ms.median / p.core.ms.median) }); // a speed ratio: raw time / ours
  return { throughput_ratio: ratio };
}
