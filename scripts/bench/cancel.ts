/**
 * `cancel_ratio`: a running `echo started; sleep 600` snippet; after "started" arrives on stdout,
 * time from a forced cancel (`forceSignal`, the second Ctrl-C: removal without the interrupt
 * grace) to the runInSandbox promise resolving (outcome cancelled), vs, for the identical
 * container created and started with `start --attach` the same way, the time of
 * `docker rm -f -v NAME` from spawn to exit. Both are then verified gone (untimed); a leftover is a MISS.
 */
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { runInSandbox } from '../../src/core';
import { containerExists, rawRun, rawSpec, shellProfile } from './docker';
import { interleave } from './harness';
import { fmtMs as ms, fmtRatio, summarize, type Row, type Series } from './stats';
import { targetText, verdictFor } from './targets';

const CANCEL_CODE = 'echo started; sleep 600\n';

function waitForText(what: string, timeoutMs: number): { seen: (text: string) => void; promise: Promise<void> } {
  let buf = '';
  let done: () => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((res, rej) => {
    done = () => {
      clearTimeout(timer);
      res();
    };
    timer = setTimeout(() => rej(new Error(`no "${what}" within ${timeoutMs} ms`)), timeoutMs);
  });
  return {
    seen: (text) => {
      buf = (buf + text).slice(-64);
      if (buf.includes(what)) done();
    },
    promise,
  };
}

export async function benchCancel(a: Series, rows: Row[]): Promise<number> {
  const profile = shellProfile();
  let leftovers = 0;
  const res = await interleave('cancel', [
    {
      name: 'raw',
      run: async () => {
        // The raw side removes a running container as the runner does; how its code arrived does not matter here.
        const spec = await rawSpec('bench-cancel', profile, CANCEL_CODE, 'bind');
        try {
          await rawRun(spec.createArgv, 'raw cancel create');
          const started = waitForText('started', 20_000);
          const attach = execa('docker', ['start', '--attach', spec.name], { stdin: 'ignore', reject: false, buffer: false, detached: true, cleanup: true });
          attach.stdout?.on('data', (b: Buffer) => started.seen(b.toString('utf8')));
          attach.stderr?.on('data', () => undefined);
          await started.promise;
          const t = await rawRun(['rm', '-f', '-v', spec.name], 'raw cancel rm');
          if (await containerExists(spec.name)) leftovers++;
          await attach;
          return t;
        } finally {
          await spec.dispose();
        }
      },
    },
    {
      name: 'core',
      run: async () => {
        const controller = new AbortController();
        const started = waitForText('started', 20_000);
        const pending = runInSandbox({
          profileName: 'bench-cancel',
          profile,
          code: CANCEL_CODE,
          signal: controller.signal,
          forceSignal: controller.signal,
          onOutput: (stream, data) => {
            if (stream === 'stdout') started.seen(Buffer.from(data).toString('utf8')); // ASCII: chunks decode alone
          },
        });
        await started.promise;
        const t0 = performance.now();
        controller.abort();
        const r = await pending;
        const t = performance.now() - t0;
        if (r.outcome !== 'cancelled') throw new Error(`core cancel: expected cancelled, got ${r.outcome}: ${r.message}`);
        if (await containerExists(r.containerName)) leftovers++;
        return t;
      },
    },
  ], a.runs, a.warmup);
  const core = summarize(res.core!);
  const raw = summarize(res.raw!);
  const ratio = core.median / raw.median;
  rows.push({
    metric: 'cancel: abort → gone (ms)', ours: ms(core), raw: ms(raw) + ' (rm -f -v)', figure: fmtRatio(ratio), target: targetText('cancel_ratio'),
    verdict: leftovers === 0 ? verdictFor('cancel_ratio', ratio) : 'MISS',
    note: leftovers ? `(${leftovers} containers still present after their run)` : undefined,
  });
  return ratio;
}
