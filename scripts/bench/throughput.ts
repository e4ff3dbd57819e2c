/**
 * `throughput_ratio`: 5 MiB of output (`head -c 5242880 /dev/zero | tr '\\0' y`) with an 8 MiB
 * bound, core (the sink counts the program's bytes) vs raw `run --rm` with stdout drained by a
 * no-op data listener, over the streaming window: (bytes after the first chunk) / (time of the
 * last chunk − time of the first chunk) as seen by this process; higher is better.
 * End-to-end (call to exit) time is an INFO row.
 */
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { runInSandbox } from '../../src/core';
import { expectExited } from './cold';
import { rawSpec, shellProfile } from './docker';
import { interleave } from './harness';
import { fmtMs as ms, fmtRatio, fmtSummary, summarize, type Row, type Series } from './stats';
import { targetText, verdictFor } from './targets';

const THROUGHPUT_BYTES = 5 * 1024 * 1024;
const THROUGHPUT_CODE = `head -c ${THROUGHPUT_BYTES} /dev/zero | tr '\\0' y\n`;

/** Bytes and chunk times on the receiving side. */
class Window {
  bytes = 0;
  firstBytes = 0;
  first = NaN;
  last = NaN;
  add(n: number): void {
    const t = performance.now();
    if (this.bytes === 0) {
      this.first = t;
      this.firstBytes = n;
    }
    this.bytes += n;
    this.last = t;
  }
  /** MB/s over the streaming window. */
  rate(): number {
    const dt = (this.last - this.first) / 1000;
    return dt > 0 ? (this.bytes - this.firstBytes) / dt / 1e6 : NaN;
  }
}

export async function benchThroughput(a: Series, rows: Row[]): Promise<number> {
  const profile = shellProfile({ limits: { outputBytes: 8 * 1024 * 1024 } });
  const rates: Record<string, number[]> = { core: [], raw: [] };
  const res = await interleave('throughput', [
    {
      name: 'raw',
      run: async () => {
        const spec = await rawSpec('bench-throughput', profile, THROUGHPUT_CODE, 'bind'); // output rate only: the code arrives before the clock
        try {
          const w = new Window();
          const t0 = performance.now();
          const p = execa('docker', spec.runArgv, { stdin: 'ignore', reject: false, buffer: false, detached: true, cleanup: true });
          p.stdout?.on('data', (b: Buffer) => w.add(b.byteLength));
          p.stderr?.on('data', () => undefined);
          const r = await p;
          const t = performance.now() - t0;
          if (r.exitCode !== 0 || w.bytes !== THROUGHPUT_BYTES) throw new Error(`raw throughput: exit ${r.exitCode}, ${w.bytes} bytes`);
          rates.raw!.push(w.rate());
          return t;
        } finally {
          await spec.dispose();
        }
      },
    },
    {
      name: 'core',
      run: async () => {
        const w = new Window();
        const t0 = performance.now();
        const r = await runInSandbox({
          profileName: 'bench-throughput',
          profile,
          code: THROUGHPUT_CODE,
          onOutput: (stream, data) => {
            if (stream === 'stdout') w.add(data.byteLength);
          },
        });
        const t = performance.now() - t0;
        expectExited(r, 'core throughput');
        if (w.bytes !== THROUGHPUT_BYTES) throw new Error(`core throughput: ${w.bytes} bytes delivered`);
        rates.core!.push(w.rate());
        return t;
      },
    },
  ], a.runs, a.warmup);
  // Warm-up iterations pushed rates too: keep the counted ones (the last `runs`).
  const core = summarize(rates.core!.slice(-a.runs));
  const raw = summarize(rates.raw!.slice(-a.runs));
  const ratio = core.median / raw.median;
  rows.push({
    metric: 'throughput 5 MiB (MB/s, stream)', ours: fmtSummary(core, 0), raw: fmtSummary(raw, 0), figure: fmtRatio(ratio), target: targetText('throughput_ratio'),
    verdict: verdictFor('throughput_ratio', ratio),
  });
  const e2eCore = summarize(res.core!);
  const e2eRaw = summarize(res.raw!);
  const e2eRatio = (THROUGHPUT_BYTES / e2eCore.median) / (THROUGHPUT_BYTES / e2eRaw.median);
  rows.push({ metric: 'throughput 5 MiB end-to-end (ms)', ours: ms(e2eCore), raw: ms(e2eRaw) + ' (run --rm)', figure: fmtRatio(e2eRatio), target: '(info)', verdict: 'INFO' });
  return ratio;
}
