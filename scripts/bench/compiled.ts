/**
 * `compiled_cold_ratio` (issue 23): C hello world through the runner with the built-in c profile
 * as shipped (image replaced by the local langs test image: compile step + run in one container)
 * vs raw `docker run --rm … sh -c 'cat > main.c && gcc … && ./a.out'` with the same floor flags
 * (the runner's own argv up to the image, so both sides pay the same isolation).
 */
import { BUILTIN_PROFILES } from '../../src/core/profiles/defaults';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { LANGUAGE_IMAGES } from '../../test/support/images';
import { coreRun, type Case } from './cold';
import { rawSpec, rawTimed, type Timing } from './docker';
import { interleave, ratioRow, type Ctx, type Figures } from './harness';

const C_CASE: Case = {
  label: 'c hello world (gcc + run)',
  profileName: 'bench-c',
  profile: ProfileSchema.parse({ ...BUILTIN_PROFILES.c, image: LANGUAGE_IMAGES.langs }),
  code: '#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n',
  prints: 'ok\n',
};

/** The raw side: the runner's argv up to `-c`, then a plain shell compile-and-run of the code read from stdin. */
async function rawCompiled(): Promise<Timing> {
  const spec = await rawSpec(C_CASE.profileName, C_CASE.profile, C_CASE.code);
  try {
    const at = spec.runArgv.lastIndexOf('-c');
    const script = 'cat > /sandbox/main.c && gcc -o /sandbox/a.out /sandbox/main.c -lm && exec /sandbox/a.out';
    return await rawTimed([...spec.runArgv.slice(0, at), '-c', script], `raw ${C_CASE.label}`, { input: Buffer.from(C_CASE.code) });
  } finally {
    await spec.dispose();
  }
}

export async function compiled(ctx: Ctx): Promise<Figures> {
  const p = await interleave(`compiled ${C_CASE.label}`, { raw: rawCompiled, core: () => coreRun(C_CASE).then(({ ms, firstByteMs }) => ({ ms, firstByteMs })) }, ctx);
  ctx.rows.push(ratioRow(`cold ${C_CASE.label} (ms, to result)`, 'compiled_cold_ratio', p.core.ms, p.raw.ms, 'run --rm sh -c "gcc && ./a.out"'));
  return { compiled_cold_ratio: p.core.ms.median / p.raw.ms.median };
}
