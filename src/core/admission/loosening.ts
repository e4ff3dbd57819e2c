/**
 * What a workspace profile loosens against its baseline (the same-named profile from built-in and
 * user settings, or the built-in defaults for a new name). A cloned repository's settings are
 * attacker-controlled: they may tighten anything, but each loosening needs the user's consent.
 * Items of the floor itself (root user, capabilities, no-new-privileges, read-only root, ipc/cgroup
 * namespaces, pids limit presence, no host env) cannot be expressed by a profile at all.
 * Mount sources are compared where they lead (through symlinks), as the run mounts them.
 */
import { realpathSync } from 'node:fs';
import { createFlags } from '../container/argv';
import { hostPathProblem } from '../hostPath';
import { splitPathVariable, substitutePathVariable, type RunPaths } from '../profiles/pathVariables';
import { workspaceTarget } from '../mounts/workspaceMount';
import { hasGrants, ruleLoosenings, type Loosening } from './consentRules';
import { ProfileSchema, type Profile } from '../profiles/profileSchema';
import { pickProfile, resolveProfiles, type ProfileLayer, type ProfileQuery, type ProfileSet, type ResolvedProfile, type ResolveOptions } from '../profiles/profileResolution';

/** One loosened setting. */
// One loosening (setting key and what changes) is declared with the rules that find it (consentRules.ts).
export type { Loosening } from './consentRules';

/** A workspace profile's loosenings and the docker arguments that differ from its baseline. */
export interface LooseningReport {
  readonly profileName: string;
  readonly loosenings: readonly Loosening[];
  /** `docker create` arguments present only in the workspace profile's argv (flag and value). */
  readonly addedArgs: readonly string[];
  /** Arguments of the baseline that the workspace profile drops. */
  readonly removedArgs: readonly string[];
  /** The image and command the loosened profile runs (part of what consent is given for). */
  readonly image: string;
  readonly command: readonly string[];
}

/**
 * A mount source as an argv item: a source still naming a variable (no path known for it,
 * pathVariables.ts) is shown as `/${workspaceFolder}/…`, so the argv can be built and compared.
 */
function argvSource(source: string): string {
  return splitPathVariable(source) ? `/${source}` : source;
}

/**
 * The `flag value` items of a create argv before the image (argv.ts `createFlags`, labels and
 * names excluded), e.g. `--network bridge`, `--read-only`. A `workspace: "ro"` profile's folder
 * mount is included as a read-only bind of `workspaceFolder` (`/${workspaceFolder}` when not
 * known) at its target.
 */
function flagItems(profile: Profile, workspaceFolder?: string): string[] {
  const folder = workspaceFolder ?? '/${workspaceFolder}';
  const mounts = profile.mounts.map((m) => ({ source: argvSource(m.source), target: m.target, readOnly: m.mode !== 'rw' }));
  if (profile.workspace === 'ro') mounts.push({ source: folder, target: workspaceFolder ? workspaceTarget(workspaceFolder) : '/workspace/${workspaceFolder}', readOnly: true });
  const flags = createFlags({ name: 'x', profile, snippetHostDir: '/snippet', snippetFileName: 'main', mounts, labels: {} });
  return flags.filter(([flag]) => flag !== '--name' && flag !== '--label').map((pair) => pair.join(' '));
}

/** Maps a mount's host path to the path the run will mount (e.g. through symlinks). */
export type MountSourceResolver = (source: string) => string;

/**
 * {@link realMountSource} after the run's `${workspaceFolder}`/`${fileDirname}` (pathVariables.ts)
 * are substituted, so consent compares the paths the run will mount; a variable the run has no
 * path for stays as written (the run is refused for it anyway).
 */
export function runMountSource(paths: RunPaths = {}): MountSourceResolver {
  return (source) => realMountSource(substitutePathVariable(source, paths) ?? source);
}

/** The profile with each mount source replaced by where it leads. */
function withResolvedMounts(profile: Profile, resolve: MountSourceResolver): Profile {
  return { ...profile, mounts: profile.mounts.map((m) => ({ ...m, source: resolve(m.source) })) };
}

/**
 * Where a host path leads through symlinks, as `resolveMounts` will mount it; the path as
 * written when it does not resolve (missing, unreadable) or is not a host path of this platform
 * (hostPath.ts `hostPathProblem`): the run refuses such a mount anyway.
 */
export function realMountSource(source: string): string {
  // A path of another OS's flavour (a Windows path on Linux) is never resolved against the working directory.
  if (hostPathProblem(source)) return source;
  try {
    return realpathSync(source);
  } catch {
    return source;
  }
}

function multisetMinus(a: string[], b: string[]): string[] {
  const left = [...b];
  return a.filter((x) => {
    const i = left.indexOf(x);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

/**
 * Compares a profile with its baseline: every top-level key by its rule in consentRules.ts
 * `CONSENT_RULES`. Pure unless `resolve` touches the file system.
 * @param profileName the profile's name; setting keys are `sandboxRunner.profiles.NAME.…`
 * @param resolve maps mount sources (of both profiles) to what the run mounts; mounts are
 *   compared, described (`raw → resolved` when they differ) and turned into docker arguments
 *   by that resolved path. Default: the path as written.
 */
export function compareToBaseline(
  profileName: string,
  effective: Profile,
  baseline: Profile,
  resolve: MountSourceResolver = (source) => source,
  workspaceFolder?: string,
): LooseningReport {
  const key = `sandboxRunner.profiles.${profileName}`;
  const realEffective = withResolvedMounts(effective, resolve);
  const realBaseline = withResolvedMounts(baseline, resolve);
  // One rule per profile key (consentRules.ts): a key without a rule does not build.
  const loosenings = ruleLoosenings({ key, effective, baseline, realEffective, realBaseline, workspaceFolder, granted: hasGrants(baseline) });
  // Resolved sources: retargeting a symlink changes the arguments, hence the consent fingerprint.
  const folder = workspaceFolder === undefined ? undefined : resolve(workspaceFolder);
  const e = flagItems(realEffective, folder);
  const b = flagItems(realBaseline, folder);
  return {
    profileName,
    loosenings,
    addedArgs: multisetMinus(e, b),
    removedArgs: multisetMinus(b, e),
    image: effective.image,
    command: effective.command,
  };
}

/**
 * The loosening reports of every valid profile that workspace settings changed. Mount sources
 * are resolved through symlinks ({@link realMountSource}) before they are compared and reported.
 * @param layers the same layers given to `resolveProfiles` (user, then workspace)
 * @param effectiveOptions the options used for the run (global defaults including workspace values)
 * @param baselineOptions the same options from user settings only
 * @returns reports with at least one loosening, by profile name
 */
export function workspaceLoosenings(
  layers: readonly ProfileLayer[],
  effectiveOptions: ResolveOptions = {},
  baselineOptions: ResolveOptions = {},
): Map<string, LooseningReport> {
  const of = profileLoosenings(layers, effectiveOptions, baselineOptions);
  const out = new Map<string, LooseningReport>();
  for (const p of resolveProfiles(layers, undefined, effectiveOptions).profiles) {
    const report = of(p.name);
    if (report) out.set(p.name, report);
  }
  return out;
}

/**
 * What workspace settings loosen in one profile, computed only when asked for (the profile tree
 * asks for the profiles it shows, warm start for the profile it warms), as
 * {@link workspaceLoosenings} reports it for that name. The layers are resolved once, at the first
 * call, and each name's report is kept: like the map it replaces, a snapshot's answer (mount
 * sources resolved through symlinks) does not change until the settings are read again.
 * @param layers, effectiveOptions, baselineOptions as for {@link workspaceLoosenings}
 * @returns a function of a profile name: its report when it has a loosening, else undefined
 *   (also for a name that is not a valid profile)
 */
export function profileLoosenings(
  layers: readonly ProfileLayer[],
  effectiveOptions: ResolveOptions = {},
  baselineOptions: ResolveOptions = {},
): (name: string) => LooseningReport | undefined {
  let sets: { full: ProfileSet; base: ProfileSet } | undefined;
  const known = new Map<string, LooseningReport | undefined>();
  return (name) => {
    if (known.has(name)) return known.get(name);
    sets ??= {
      full: resolveProfiles(layers, undefined, effectiveOptions),
      base: resolveProfiles(layers.filter((l) => l.source !== 'workspace'), undefined, baselineOptions),
    };
    const p = sets.full.profiles.find((x) => x.name === name);
    let report: LooseningReport | undefined;
    if (p) {
      const baseline =
        sets.base.profiles.find((b) => b.name === p.name)?.profile ??
        ProfileSchema.parse({ image: p.profile.image, command: p.profile.command, limits: baselineOptions.limitDefaults ?? {} });
      report = compareToBaseline(p.name, p.profile, baseline, realMountSource);
    }
    known.set(name, report?.loosenings.length ? report : undefined);
    return known.get(name);
  };
}

/**
 * The profile a run uses: the one `query` picks (explicit name, else language id, else file
 * extension, see `pickProfile`), else, when no name was given, the profile named by
 * `defaultProfile` (`sandboxRunner.defaultProfile`). The one rule for the editor, the CLI and
 * {@link routeLoosening}, so the consent decision is about the profile that actually runs.
 */
export function chooseProfile(set: ProfileSet, query: ProfileQuery, defaultProfile?: string): ResolvedProfile | undefined {
  return pickProfile(set, query) ?? (query.name === undefined && defaultProfile ? pickProfile(set, { name: defaultProfile }) : undefined);
}

/** The settings a run is resolved from, split by layer (see {@link routeLoosening}). */
export interface RouteSettings {
  /** The `sandboxRunner.profiles` layers, user then workspace (as for `resolveProfiles`). */
  readonly layers: readonly ProfileLayer[];
  /** Options for the run (global defaults including workspace values). */
  readonly effectiveOptions?: ResolveOptions;
  /** The same options from user settings only. */
  readonly baselineOptions?: ResolveOptions;
  /** `sandboxRunner.defaultProfile` as the run sees it (workspace over user). */
  readonly defaultProfile?: string;
  /** `sandboxRunner.defaultProfile` from user settings only. */
  readonly baselineDefaultProfile?: string;
  /**
   * The run's document paths (issue 12): mount sources' `${workspaceFolder}`/`${fileDirname}` are
   * substituted with them before comparing ({@link runMountSource}), and a `workspace: "ro"`
   * mount is compared as that folder. Without them variables compare as written.
   */
  readonly paths?: RunPaths;
}

/**
 * What a run of `query` needs consent for, because of workspace settings; undefined when nothing.
 * Two things are compared, each with {@link compareToBaseline} (network, mounts, limits, user,
 * runtime; the image and command are part of the fingerprint):
 * - the profile that runs against the same-named profile without the workspace layer (a workspace
 *   that loosens a profile; as {@link workspaceLoosenings});
 * - when the workspace makes the document resolve to another profile than it would without the
 *   workspace layer (it added a language or extension to a profile, or set `defaultProfile`), the
 *   profile that runs against the one it would have resolved to (or, when none, the defaults with
 *   the same image and command). A workspace may re-route files into a profile that is tighter,
 *   but re-routing them into a looser one (such as the user's own profile with network or a
 *   read-write mount) is a loosening, even though that profile itself is unchanged.
 * Pure except for resolving mount sources through symlinks ({@link realMountSource}).
 * @returns the report to consent to: loosenings of both comparisons (the route first), the
 *   docker arguments that differ from what would have run, and the image and command that run
 */
export function routeLoosening(settings: RouteSettings, query: ProfileQuery): LooseningReport | undefined {
  const full = resolveProfiles(settings.layers, undefined, settings.effectiveOptions ?? {});
  const base = resolveProfiles(settings.layers.filter((l) => l.source !== 'workspace'), undefined, settings.baselineOptions ?? {});
  const now = chooseProfile(full, query, settings.defaultProfile);
  if (!now) return undefined;
  const before = chooseProfile(base, query, settings.baselineDefaultProfile);
  const defaults = () =>
    ProfileSchema.parse({ image: now.profile.image, command: now.profile.command, limits: settings.baselineOptions?.limitDefaults ?? {} });
  const sameName = base.profiles.find((b) => b.name === now.name)?.profile ?? defaults();
  const paths = settings.paths ?? query.paths;
  const resolveSource = runMountSource(paths);
  const folder = paths?.workspaceFolder;
  const own = compareToBaseline(now.name, now.profile, sameName, resolveSource, folder);
  // A profile the user named (a command's explicit choice) is not a re-routing by the workspace.
  if (before?.name === now.name || query.name !== undefined) return own.loosenings.length > 0 ? own : undefined;

  const route = compareToBaseline(now.name, now.profile, before?.profile ?? defaults(), resolveSource, folder);
  const loosenings = [...route.loosenings];
  for (const l of own.loosenings) {
    if (!loosenings.some((x) => x.key === l.key && x.description === l.description)) loosenings.push(l);
  }
  if (loosenings.length === 0) return undefined;
  const byDefault = pickProfile(full, query) === undefined;
  loosenings.unshift({
    key: byDefault ? 'sandboxRunner.defaultProfile' : `sandboxRunner.profiles.${now.name}`,
    description: `workspace settings send this file to profile "${now.name}" instead of ${before ? `"${before.name}"` : 'no profile'}`,
  });
  return { ...route, loosenings };
}

/**
 * A stable fingerprint of what is loosened and of what would run with it (image and command), so
 * consent is asked again when the loosening grows or the workspace swaps the program it applies to.
 */
export function looseningFingerprint(report: LooseningReport): string {
  return JSON.stringify([
    report.profileName,
    report.image,
    report.command,
    [...report.addedArgs].sort(),
    report.loosenings.map((l) => l.description).sort(),
  ]);
}
