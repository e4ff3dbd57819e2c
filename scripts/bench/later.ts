/** Rows of the issues filed with issue 26: `gvisor_cold_ratio` (measured when the engine offers runsc; sessions are
 * measured in session.ts, dependencies in deps.ts). */
import { execa } from 'execa';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { CASES, coreRun, eachCase, firstByteNote, type Case, type Pair } from './cold';
import { noFigure, ratioRow, targetText, type Ctx, type Figures } from './harness';

/** The engine's runtimes (`docker info`), [] when it does not say. */
async function runtimes(): Promise<string[]> {
  const r = await execa('docker', ['info', '--format', '{{json .Runtimes}}'], { reject: false });
  try {
    return Object.keys(JSON.parse(String(r.stdout)) as object);
  } catch {
    return [];
  }
}

/** `gvisor_cold_ratio`: the cold cases with `runtime: runsc`, against raw `docker run --runtime runsc` with the same argv. */
export async function gvisor(ctx: Ctx): Promise<Figures> {
  if (!(await runtimes()).includes('runsc')) {
    ctx.rows.push(noFigure('gvisor cold (ms, to result)', targetText('gvisor_cold_ratio'), 'INFO', '(not measured: the engine offers no runsc runtime; scripts/gvisor-up.sh registers it)'));
    return {};
  }
  const cases: Case[] = CASES.map((c) => ({ ...c, label: `${c.label} runsc`, profileName: `${c.profileName}-runsc`, profile: ProfileSchema.parse({ ...c.profile, runtime: 'runsc' }) }));
  const row = (c: Case, p: Pair) => ratioRow(`gvisor cold ${c.label} (ms, to result)`, 'gvisor_cold_ratio', p.core.ms, p.raw.ms, 'run --rm --runtime runsc', firstByteNote(p));
  const r = await eachCase(ctx, 'gvisor cold', (c) => coreRun(c), row, undefined, cases);
  return { gvisor_cold_ratio: r.ratio };
}
