/**
 * Sessions (issue 24): `session_cell_ms`, a `1+1` cell in a live session from `execute` to its
 * result (median; the session is started once, outside the series), and `session_start_ratio`,
 * a new session's start plus its first cell (`1+1`) against a raw cold `docker run --rm` of the
 * python case with the same floor (cold.ts `rawCold`). Each started session is closed (container removed).
 */
import { performance } from 'node:perf_hooks';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { startSession, type SandboxSession } from '../../src/core/session/session';
import { CASES, rawCold } from './cold';
import { interleave, judged, ratioRow, type Ctx, type Figures } from './harness';

const PYTHON = CASES.find((c) => c.profileName === 'bench-python')!;
const profile = ProfileSchema.parse({ ...PYTHON.profile, languages: ['python'] });

/** Runs `1+1` and checks that the session answered 2; returns ms from execute to result. */
async function onePlusOne(s: SandboxSession): Promise<number> {
  let shown: unknown;
  const t0 = performance.now();
  const r = await s.execute('1+1', (e) => e.kind === 'display' && (shown = e.data['text/plain']));
  const ms = performance.now() - t0;
  if (r.status !== 'ok' || shown !== '2') throw new Error(`session cell 1+1: status ${r.status}, shown ${JSON.stringify(shown)}`);
  return ms;
}

export async function session(ctx: Ctx): Promise<Figures> {
  const live = await startSession({ profileName: 'bench-python', profile });
  let cell;
  try {
    cell = await interleave('session cell 1+1', { core: async () => ({ ms: await onePlusOne(live) }) }, ctx);
  } finally {
    await live.close();
  }
  const m = cell.core.ms;
  ctx.rows.push(judged('session cell `1+1` (ms, execute → result)', 'session_cell_ms', m.median, { ours: `${m.median.toFixed(1)} [${m.min.toFixed(1)}..${m.max.toFixed(1)}]`, figure: `${m.median.toFixed(1)} ms` }));
  const start = await interleave('session start + first cell', {
    raw: async () => ({ ms: (await rawCold(PYTHON)).ms }),
    core: async () => {
      const t0 = performance.now();
      const s = await startSession({ profileName: 'bench-python', profile });
      try {
        await onePlusOne(s);
        return { ms: performance.now() - t0 };
      } finally {
        await s.close();
      }
    },
  }, ctx);
  ctx.rows.push(ratioRow('session start + first cell `1+1` (ms)', 'session_start_ratio', start.core.ms, start.raw.ms, 'run --rm python print("ok")'));
  return { session_cell_ms: m.median, session_start_ratio: start.core.ms.median / start.raw.ms.median };
}
