/**
 * `sandboxRunner.preferRuntime` (issue 25): a user's machine-scoped choice of a stronger OCI
 * runtime (gVisor "runsc") for every profile that names none, applied only where the engine offers
 * it, so a profile keeps running on an engine without it (then under the engine's default, as the
 * header and footer say). A profile's own `runtime` always wins. Pure.
 */
import type { Profile } from './profileSchema';

/** The runtimes the setting may name (the profile schema's `runtime` values). */
export const PREFERRABLE_RUNTIMES = ['runsc'] as const;

/**
 * `profile` with `prefer` as its runtime when it has none, `prefer` is one of
 * {@link PREFERRABLE_RUNTIMES} and `offered` (the engine's runtimes, engine.ts `engineRuntimes`)
 * lists it; else `profile` unchanged.
 * @param prefer the setting's value ("" or undefined: no preference)
 * @param offered undefined when the engine did not say: no preference is applied then
 */
export function withPreferredRuntime(profile: Profile, prefer: string | undefined, offered: readonly string[] | undefined): Profile {
  if (profile.runtime || !prefer || !offered?.includes(prefer)) return profile;
  if (!(PREFERRABLE_RUNTIMES as readonly string[]).includes(prefer)) return profile;
  return { ...profile, runtime: prefer as Profile['runtime'] };
}
