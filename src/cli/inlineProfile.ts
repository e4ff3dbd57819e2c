/**
 * `sandbox-run --profile-json JSON` (issue 12): a whole profile given on the command line, as
 * "Copy as sandbox-run Command" writes it (the run's resolved profile). The user's own command
 * line vouches for it, as for `--allow-loosening`: it is validated by the same schema as every
 * profile (core `ProfileSchema`, so the isolation floor holds whatever it says), but a workspace's
 * settings play no part in it, so the workspace-loosening refusal does not apply.
 */
import { PROFILES_SETTING, ProfileSchema, toProfileIssues, type Profile } from '../core';

/** The key prefix problems of an inline profile are reported under. */
export const INLINE_PROFILE_KEY = '--profile-json';

/**
 * Parses and validates an inline profile.
 * @param json the option's value: one JSON object (not JSONC: a shell word, no comments)
 * @returns the validated profile, or the problems, each naming its key
 *   (`--profile-json.limits.memoryMiB: …`); never throws
 */
export function parseInlineProfile(json: string): { profile: Profile } | { problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    return { problems: [`${INLINE_PROFILE_KEY}: is not valid JSON (${(e as Error).message})`] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problems: [`${INLINE_PROFILE_KEY}: must be a JSON object (a profile, as in ${PROFILES_SETTING})`] };
  }
  const parsed = ProfileSchema.safeParse(value);
  if (!parsed.success) return { problems: toProfileIssues(INLINE_PROFILE_KEY, parsed.error).map((i) => `${i.key}: ${i.message}`) };
  return { profile: parsed.data };
}
