/**
 * Resolving the profiles a run may use: built-in defaults, then user settings, then workspace
 * settings, merged by profile name (a later layer's keys replace an earlier layer's, `limits` and
 * `env` merged key by key), then validated. All problems are returned, never just the first.
 */
import { extname } from 'node:path';
import type * as z from '../zod';
import { BUILTIN_PROFILES } from './defaults';
import type { RunPaths } from './pathVariables';
import { PROFILES_SETTING, profileSettingPath } from '../layout';
import { byCodeUnits } from '../textOrder';
import { PROFILE_NAME, ProfileSchema, type Profile } from './profileSchema';
import { shebangCandidates } from './shebang';

/** Where a profile's values came from; the highest layer that set any key wins the label. */
export type ProfileSource = 'built-in' | 'user' | 'workspace';

/** One layer of raw settings, e.g. the parsed value of `sandboxRunner.profiles` in one file. */
export interface ProfileLayer {
  readonly source: Exclude<ProfileSource, 'built-in'>;
  /** The raw value of `sandboxRunner.profiles` (anything: it is validated here). */
  readonly value: unknown;
}

/** A validation problem: the full setting key (e.g. `sandboxRunner.profiles.py.limits.pids`) and what is allowed. */
export interface ProfileIssue {
  readonly key: string;
  readonly message: string;
}

/** A valid profile with its name and source. */
export interface ResolvedProfile {
  readonly name: string;
  readonly source: ProfileSource;
  readonly profile: Profile;
}

/**
 * A profile and the name it runs under: a {@link ResolvedProfile} without its source, which is
 * what the runner's helpers need (the warm pool, the mount checks, the workspace plan). Any
 * ResolvedProfile is one.
 */
export type NamedProfile = Pick<ResolvedProfile, 'name' | 'profile'>;

/** A profile that failed validation; it is never used for a run. */
export interface InvalidProfile {
  readonly name: string;
  readonly source: ProfileSource;
  readonly issues: readonly ProfileIssue[];
  /**
   * The language ids and file extensions (lower case) its raw entry lists, as far as they are
   * strings: the runs it was meant for, which must not fall back to another profile
   * ({@link blockingIssues}).
   */
  readonly claims: { readonly languages: readonly string[]; readonly extensions: readonly string[] };
}

/** The outcome of {@link resolveProfiles}. */
export interface ProfileSet {
  /** Valid profiles, highest layer first (workspace, then user, then built-in), then by name. */
  readonly profiles: readonly ResolvedProfile[];
  readonly invalid: readonly InvalidProfile[];
  /** Every issue: those of invalid profiles plus those of the layers' overall shape. */
  readonly issues: readonly ProfileIssue[];
}

const RANK: Record<ProfileSource, number> = { workspace: 0, user: 1, 'built-in': 2 };

/** True for a JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Formats zod issues as setting keys under `prefix`, one message per key and problem. */
export function toProfileIssues(prefix: string, error: z.core.$ZodError): ProfileIssue[] {
  const out: ProfileIssue[] = [];
  for (const issue of error.issues) {
    const key = [prefix, ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) out.push({ key: `${key}.${k}`, message: 'is not a known setting; remove it' });
    } else {
      out.push({ key, message: issue.message });
    }
  }
  return out;
}

/** Keys whose objects merge key by key across layers (a later layer's entry wins per key), not replace. */
const MERGED_BY_KEY = ['limits', 'env'] as const;

/**
 * One layer over another: top-level keys replace, {@link MERGED_BY_KEY} objects merge key by key
 * (so `env: {FOO: "1"}` on the built-in python keeps its PYTHONUNBUFFERED; issue 12). A value that
 * is not an object replaces, and is then reported by validation.
 */
function mergeProfile(base: Record<string, unknown> | undefined, over: Record<string, unknown>) {
  if (!base) return { ...over };
  const merged: Record<string, unknown> = { ...base, ...over };
  for (const key of MERGED_BY_KEY) {
    const [b, o] = [base[key], over[key]];
    if (isPlainObject(b) && isPlainObject(o)) merged[key] = { ...b, ...o };
  }
  return merged;
}

/** Options of {@link resolveProfiles}. */
export interface ResolveOptions {
  /**
   * Limits applied to every profile that does not set them itself (e.g. the user's global
   * `sandboxRunner.timeoutSeconds`); validated with the profile, so a bad value is reported.
   */
  readonly limitDefaults?: Readonly<Record<string, unknown>>;
}

/**
 * Merges and validates profiles.
 * @param layers user then workspace layers (in that order); each may be undefined or malformed.
 * @param builtins the built-in profiles (default {@link BUILTIN_PROFILES}).
 * @param options global limit defaults.
 * @returns valid and invalid profiles with every issue; never throws.
 */
export function resolveProfiles(
  layers: readonly ProfileLayer[],
  builtins: Readonly<Record<string, unknown>> = BUILTIN_PROFILES,
  options: ResolveOptions = {},
): ProfileSet {
  const raw = new Map<string, { source: ProfileSource; value: unknown }>();
  const issues: ProfileIssue[] = [];
  for (const [name, value] of Object.entries(builtins)) raw.set(name, { source: 'built-in', value });

  for (const layer of layers) {
    if (layer.value === undefined || layer.value === null) continue;
    if (!isPlainObject(layer.value)) {
      issues.push({ key: PROFILES_SETTING, message: `(${layer.source} settings) must be an object of named profiles` });
      continue;
    }
    for (const [name, value] of Object.entries(layer.value)) {
      const key = profileSettingPath(name);
      if (!PROFILE_NAME.test(name)) {
        issues.push({ key, message: 'is not a valid profile name: use 1-64 letters, digits, ".", "_" or "-"' });
        continue;
      }
      if (!isPlainObject(value)) {
        issues.push({ key, message: 'must be an object with at least "image" and "command"' });
        continue;
      }
      const prev = raw.get(name);
      raw.set(name, {
        source: layer.source,
        value: mergeProfile(isPlainObject(prev?.value) ? prev.value : undefined, value),
      });
    }
  }

  const profiles: ResolvedProfile[] = [];
  const invalid: InvalidProfile[] = [];
  for (const [name, { source, value }] of raw) {
    const withDefaults =
      options.limitDefaults && isPlainObject(value) && (value.limits === undefined || isPlainObject(value.limits))
        ? { ...value, limits: { ...options.limitDefaults, ...(value.limits as Record<string, unknown> | undefined) } }
        : value;
    const parsed = ProfileSchema.safeParse(withDefaults);
    if (parsed.success) {
      profiles.push({ name, source, profile: parsed.data });
    } else {
      const profileIssues = toProfileIssues(profileSettingPath(name), parsed.error);
      invalid.push({ name, source, issues: profileIssues, claims: rawClaims(value) });
      issues.push(...profileIssues);
    }
  }
  const order = (a: { source: ProfileSource; name: string }, b: { source: ProfileSource; name: string }) =>
    RANK[a.source] - RANK[b.source] || byCodeUnits(a.name, b.name);
  profiles.sort(order);
  invalid.sort(order);
  return { profiles, invalid, issues };
}

/** The string entries of a raw profile's `languages` and `extensions` (extensions lower-cased). */
function rawClaims(value: unknown): InvalidProfile['claims'] {
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  if (!isPlainObject(value)) return { languages: [], extensions: [] };
  return { languages: strings(value.languages), extensions: strings(value.extensions).map((e) => e.toLowerCase()) };
}

/** What a run is for: an explicit profile name, or a document's language id and/or file name. */
export interface ProfileQuery {
  readonly name?: string;
  readonly languageId?: string;
  readonly fileName?: string;
  /** The interpreter the code's first line names (shebang.ts `shebangInterpreter`), e.g. `bash`. */
  readonly shebang?: string;
  /** The run's document paths, for consent on `${workspaceFolder}`/`${fileDirname}` mounts and `workspace` (loosening.ts `routeLoosening`). */
  readonly paths?: RunPaths;
}

/**
 * Picks the profile for a run: by `name` if given; else the first profile (workspace, user,
 * built-in order) whose `shebangs` lists the code's interpreter (issue 23, the name as written,
 * then without its version: `python3.12`, `python3`, `python`); else the first that lists
 * `languageId`; else the first that lists the file's extension.
 * @returns the profile, or undefined when none matches (also when `name` names an invalid one).
 */
export function pickProfile(set: ProfileSet, query: ProfileQuery): ResolvedProfile | undefined {
  if (query.name !== undefined) return set.profiles.find((p) => p.name === query.name);
  for (const name of query.shebang ? shebangCandidates(query.shebang) : []) {
    const byShebang = set.profiles.find((p) => p.profile.shebangs.includes(name));
    if (byShebang) return byShebang;
  }
  if (query.languageId) {
    const byLanguage = set.profiles.find((p) => p.profile.languages.includes(query.languageId!));
    if (byLanguage) return byLanguage;
  }
  const ext = query.fileName ? extname(query.fileName).toLowerCase() : '';
  return ext ? set.profiles.find((p) => p.profile.extensions.includes(ext)) : undefined;
}

/**
 * Issues that must stop a run with profile `name`: the whole `sandboxRunner.profiles` setting is
 * malformed, or the entry for `name` is (e.g. not an object), or, for a run routed by language or
 * file extension (`query` without a name), an invalid entry of the same or a higher layer lists
 * that language or extension. Such a setting may have meant to tighten the run, so falling back to
 * the built-in (or another profile) would be wrong.
 */
export function blockingIssues(set: ProfileSet, name: string, query: ProfileQuery = { name }): ProfileIssue[] {
  const chosen = set.profiles.find((p) => p.name === name);
  const ext = query.fileName ? extname(query.fileName).toLowerCase() : '';
  const meantForRun = (p: InvalidProfile) =>
    query.name === undefined &&
    (!chosen || RANK[p.source] <= RANK[chosen.source]) &&
    ((query.languageId !== undefined && p.claims.languages.includes(query.languageId)) || (ext !== '' && p.claims.extensions.includes(ext)));
  const claimed = new Set(set.invalid.filter(meantForRun).flatMap((p) => p.issues));
  return set.issues.filter((i) => i.key === PROFILES_SETTING || i.key === profileSettingPath(name) || claimed.has(i));
}
