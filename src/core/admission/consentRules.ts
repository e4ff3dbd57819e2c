/**
 * One consent rule per top-level profile key (issue 34, "One rule per profile key"): what a
 * workspace profile changing that key against its baseline loosens. The table's type lists every
 * key of `Profile` (profileSchema.ts) as required, so a key added to the schema without a rule
 * here fails the build; `test/unit/consentRules.test.ts` checks the same against the schema's
 * keys at run time. `compareToBaseline` (loosening.ts) is a loop over {@link CONSENT_RULES}.
 *
 * Rule kinds (SECURITY.md, "Workspace settings and consent"):
 * - `free`: no change of the key reaches past the floor (tightening, or a key that only shapes
 *   the program the workspace may choose anyway); re-routing by languages/extensions/shebangs is
 *   compared by `routeLoosening`, not here.
 * - `wider`: a value that grants more than the baseline's (network, limits, mounts, workspace,
 *   dependencies, runtime dropped).
 * - `withMounts`: any change while the profile has bind mounts (user).
 * - `withGrants`: any change while the baseline has network, bind mounts or the workspace folder
 *   (image, command, compile, env, modulePathEnv): those grants would go to another program.
 */
import { LIMIT_RANGES, type Limits } from '../profiles/limits';
import type { Profile } from '../profiles/profileSchema';

/** One loosening a workspace profile makes (loosening.ts re-exports it). */
export interface Loosening {
  /** The setting key, e.g. `sandboxRunner.profiles.py.network`. */
  readonly key: string;
  /** What changes, e.g. `network: none → bridge`. */
  readonly description: string;
}

/** What a rule sees: both profiles, their mounts resolved as the run mounts them, the setting key prefix. */
export interface RuleInput {
  /** `sandboxRunner.profiles.NAME` */
  readonly key: string;
  readonly effective: Profile;
  readonly baseline: Profile;
  /** `effective` with each mount source resolved (symlinks, path variables). */
  readonly realEffective: Profile;
  /** `baseline` with each mount source resolved. */
  readonly realBaseline: Profile;
  /** The run's workspace folder, when known (only shown in descriptions). */
  readonly workspaceFolder?: string;
  /** True when the baseline has network, bind mounts or the workspace folder ({@link hasGrants}). */
  readonly granted: boolean;
}

/** The kinds of rule, named in the table so a reader (and the tests) see which applies to a key. */
export type RuleKind = 'free' | 'wider' | 'withMounts' | 'withGrants';

/** A key's consent rule: its kind and the loosenings it finds (empty: none). */
export interface Rule<K extends keyof Profile> {
  readonly kind: RuleKind;
  /** Why the rule is what it is (kept next to the rule for review). */
  readonly why: string;
  readonly check: (input: RuleInput, name: K) => Loosening[];
}

/** True when a profile grants network, bind mounts or the workspace folder: what a swapped program would inherit. */
export function hasGrants(p: Profile): boolean {
  return p.network !== 'none' || p.mounts.length > 0 || p.workspace === 'ro';
}

const json = (v: unknown) => JSON.stringify(v ?? null);

const free = <K extends keyof Profile>(why: string): Rule<K> => ({ kind: 'free', why, check: () => [] });

/** Any change of `name` while the baseline has grants, shown as `name: before → after`. */
const withGrants = <K extends keyof Profile>(why: string): Rule<K> => ({
  kind: 'withGrants',
  why,
  check: ({ key, effective, baseline, granted }, name) =>
    granted && json(effective[name]) !== json(baseline[name])
      ? [{ key: `${key}.${name}`, description: `${name}: ${name === 'image' ? `${baseline.image} → ${effective.image}` : `${json(baseline[name])} → ${json(effective[name])}`} in a profile with network or mounts` }]
      : [],
});

/**
 * The consent rule of every top-level profile key, in the order loosenings are listed. The
 * mapped type (`-?`: optional keys too) makes a missing key a compile error, and `satisfies`
 * makes an unknown one an error.
 */
export const CONSENT_RULES = {
  network: {
    kind: 'wider',
    why: 'a network other than none reaches outside',
    check: ({ key, effective, baseline }) =>
      effective.network !== baseline.network && effective.network !== 'none'
        ? [{ key: `${key}.network`, description: `network: ${baseline.network} → ${effective.network}` }]
        : [],
  },
  limits: {
    kind: 'wider',
    why: 'a larger limit lets the program use more of the host',
    check: ({ key, effective, baseline }) =>
      (Object.keys(LIMIT_RANGES) as Array<keyof Limits>)
        .filter((limit) => effective.limits[limit] > baseline.limits[limit])
        .map((limit) => ({
          key: `${key}.limits.${limit}`,
          description: `${limit}: ${baseline.limits[limit]} → ${effective.limits[limit]} ${LIMIT_RANGES[limit].unit}`,
        })),
  },
  mounts: {
    kind: 'wider',
    why: 'a host path not among the baseline\'s, or made writable, is compared where it leads',
    check: ({ key, effective, realEffective, realBaseline }) =>
      effective.mounts.flatMap((m, i): Loosening[] => {
        const source = realEffective.mounts[i]!.source;
        const shown = source === m.source ? m.source : `${m.source} → ${source}`;
        const same = realBaseline.mounts.find((b) => b.source === source && b.target === m.target);
        if (!same) return [{ key: `${key}.mounts.${i}`, description: `new ${m.mode} bind mount of host path ${shown} at ${m.target}` }];
        if (m.mode === 'rw' && same.mode !== 'rw') return [{ key: `${key}.mounts.${i}.mode`, description: `bind mount ${shown} becomes writable (ro → rw)` }];
        return [];
      }),
  },
  // The workspace folder mounted read-only (issue 12) is a host-path mount like any other: from
  // workspace settings it needs consent; from the built-in or the user's own settings it does not.
  workspace: {
    kind: 'wider',
    why: 'the workspace folder mounted read-only is a host-path mount',
    check: ({ key, effective, baseline, workspaceFolder }) =>
      effective.workspace === 'ro' && baseline.workspace !== 'ro'
        ? [{ key: `${key}.workspace`, description: `workspace: ${baseline.workspace} → ro (the workspace folder${workspaceFolder ? ` ${workspaceFolder}` : ''} mounted read-only)` }]
        : [],
  },
  // With bind mounts, another UID reads and writes the host files that UID owns (e.g. a
  // repository's .git/hooks owned by the user): any change of user is a loosening then.
  user: {
    kind: 'withMounts',
    why: 'another UID owns other host files in the bind mounts',
    check: ({ key, effective, baseline }) =>
      (effective.mounts.length > 0 || effective.workspace === 'ro') && effective.user !== baseline.user
        ? [{ key: `${key}.user`, description: `user: ${baseline.user} → ${effective.user} with bind mounts` }]
        : [],
  },
  // A profile the user gave network or mounts runs the user's chosen program with them: a workspace
  // that swaps the image or command of such a profile hands those grants to another program.
  image: withGrants('another image is another program with the same grants'),
  command: withGrants('another command is another program with the same grants'),
  // The compile step (issue 23) runs with the same grants before the command does.
  compile: withGrants('the compile step runs with the same grants before the command'),
  // Environment variables choose what the program loads as surely as its command does
  // (NODE_OPTIONS=--import=data:…, LD_PRELOAD, PATH, PYTHONPATH to a sitecustomize.py in the
  // workspace mount). Without grants the workspace may change the command itself, so env alone
  // reaches nothing past the floor of a run; the install phase must not see a profile's env at
  // all (issue 34's install finding, deps/install.ts), which this rule does not rely on.
  env: {
    kind: 'withGrants',
    why: 'NODE_OPTIONS, LD_PRELOAD, PATH, PYTHONPATH choose what runs, as the command does',
    check: ({ key, effective, baseline, granted }) => {
      if (!granted) return [];
      const names = new Set([...Object.keys(effective.env), ...Object.keys(baseline.env)]);
      return [...names]
        .filter((name) => effective.env[name] !== baseline.env[name])
        .map((name) => ({
          key: `${key}.env.${name}`,
          description: `env ${name}: ${json(baseline.env[name])} → ${json(effective.env[name])} in a profile with network or mounts`,
        }));
    },
  },
  modulePathEnv: withGrants('the variable that carries the file\'s folder chooses what is loaded'),
  // Installing runs with network and puts third-party code on the program's path (issue 22): a
  // package the user did not list is a loosening, whatever else the profile grants.
  dependencies: {
    kind: 'wider',
    why: 'installing runs with network and adds third-party code',
    check: ({ key, effective, baseline }) => {
      const added = effective.dependencies.filter((d) => !baseline.dependencies.includes(d));
      return added.length > 0
        ? [{ key: `${key}.dependencies`, description: `dependencies: installs ${added.map((d) => JSON.stringify(d)).join(', ')} (network only while installing)` }]
        : [];
    },
  },
  runtime: {
    kind: 'wider',
    why: 'dropping or changing a stronger runtime (gVisor) weakens isolation',
    check: ({ key, effective, baseline }) =>
      baseline.runtime !== undefined && effective.runtime !== baseline.runtime
        ? [{ key: `${key}.runtime`, description: `runtime: ${baseline.runtime} → ${effective.runtime ?? 'engine default'}` }]
        : [],
  },
  shebangs: free('re-routing a file by its shebang is compared by routeLoosening'),
  languages: free('re-routing a file by its language is compared by routeLoosening'),
  extensions: free('re-routing a file by its extension is compared by routeLoosening'),
  workdir: free('a directory inside the container; its tmpfs is the floor\'s'),
  lineEndings: free('changes the code\'s bytes, which the workspace may change anyway'),
} satisfies { [K in keyof Profile]-?: Rule<K> };

/**
 * Every rule's loosenings, in table order.
 * @returns the loosenings of `input.effective` against `input.baseline` (empty: none)
 */
export function ruleLoosenings(input: RuleInput): Loosening[] {
  return (Object.keys(CONSENT_RULES) as Array<keyof Profile>).flatMap((name) =>
    (CONSENT_RULES[name] as Rule<typeof name>).check(input, name),
  );
}
