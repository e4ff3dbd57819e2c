/**
 * "May this run start?": the one decision every front end makes before a run (the CLI, the
 * extension's run commands and its agent tool, the MCP server). Each front end gathers its facts
 * (the profile set, the query, trust, consent) and only renders the answer; the rules live here:
 * 1. Which profile: `--profile-json`'s own profile (CLI), else the named profile, else the one for
 *    the language or file extension, else `sandboxRunner.defaultProfile` (loosening.ts
 *    `chooseProfile`). None: refused; in Restricted Mode (VS Code workspace trust, where the front
 *    end dropped the workspace layers) the refusal says so.
 * 2. A malformed entry for that profile, or one meant for this file, blocks the run
 *    (profileResolution.ts `blockingIssues`): it may have meant to tighten it, so never fall back.
 * 3. A workspace that loosens the profile, or re-routes the file into a looser one
 *    (loosening.ts `routeLoosening`), needs the person's consent (the editor's modal,
 *    ConsentStore; the CLI's `--allow-loosening`); an agent never gets asked: without consent
 *    already given (the agent tool) or ever (MCP), its run is refused.
 * Pure except for resolving mount sources through symlinks (routeLoosening). No vscode import.
 */
import { chooseProfile, routeLoosening, type LooseningReport, type RouteSettings } from './loosening';
import { blockingIssues, type InvalidProfile, type ProfileIssue, type ProfileQuery, type ProfileSet, type ResolvedProfile } from '../profiles/profileResolution';
import type { Profile } from '../profiles/profileSchema';

/** Who asks for the run: a person (a command, the CLI) may be asked for consent; an agent never is. */
export type RunCaller = 'person' | 'agent';

/** What a front end knows about a run before it starts. */
export interface RunStartFacts {
  /**
   * The profiles the run chooses from: `resolveProfiles(settings.layers, …)`, whose `issues` may
   * carry the front end's own problems too (the extension's global limit defaults).
   */
  readonly set: ProfileSet;
  /** The same settings by layer, for the consent check; `defaultProfile` also chooses the profile (step 1). */
  readonly settings: RouteSettings;
  /** What the run is for: a profile name, or a document's language and file name, and its paths. */
  readonly query: ProfileQuery;
  /** Who asks (see {@link RunCaller}). */
  readonly caller: RunCaller;
  /**
   * False in VS Code's Restricted Mode (`workspace.isTrusted`): the front end left the workspace
   * layers out of `set` and `settings`. Default true (the CLI and MCP read the workspace they are given).
   */
  readonly trusted?: boolean;
  /**
   * True when the run may go ahead with exactly this loosening: consent already given (the
   * extension's ConsentStore for the document's folder; the CLI's `--allow-loosening`; MCP: never).
   */
  readonly consented: (report: LooseningReport) => boolean;
  /**
   * A whole profile the command line vouches for (CLI `--profile-json`, named by `--profile` or
   * `inline`): it runs as given, and no setting chooses, blocks or loosens it.
   */
  readonly inline?: { readonly name: string; readonly profile: Profile };
}

/** The run may start. */
export interface RunGoAhead {
  readonly kind: 'go';
  /** The profile that runs (an inline profile has source `user`: the person's own, as user settings are). */
  readonly chosen: ResolvedProfile;
  /** The set's issues that do not block this run (the CLI shows them as warnings); none for an inline profile. */
  readonly warnings: readonly ProfileIssue[];
  /** The loosening the run has consent for, if any. */
  readonly loosening?: LooseningReport;
}

/** No valid profile for the query (step 1). */
export interface NoProfileRefusal {
  /** `restricted`: the workspace is untrusted (Restricted Mode), so its profiles were not considered. */
  readonly kind: 'no-profile' | 'restricted';
  /** The profile name asked for (`query.name`), if any. */
  readonly name: string | undefined;
  /** The invalid entry of that name, when the name names one. */
  readonly invalidEntry: InvalidProfile | undefined;
}

/** A malformed entry blocks the chosen profile (step 2). */
export interface MalformedRefusal {
  readonly kind: 'malformed';
  readonly chosen: ResolvedProfile;
  /** The blocking issues, in the set's order (each in `set.issues`). */
  readonly issues: readonly ProfileIssue[];
}

/**
 * A workspace loosening without consent (step 3): `needs-consent` for a person (the front end may
 * ask and then run `chosen`), `agent-loosening` for an agent (never asked: refused).
 */
export interface LooseningRefusal {
  readonly kind: 'needs-consent' | 'agent-loosening';
  readonly chosen: ResolvedProfile;
  /** What is loosened (`loosenings`), the docker arguments added and removed, the image and command. */
  readonly report: LooseningReport;
}

/** Why the run may not start. */
export type RunRefusal = NoProfileRefusal | MalformedRefusal | LooseningRefusal;

/** The decision: a go-ahead or a typed refusal. */
export type RunStart = RunGoAhead | RunRefusal;

/**
 * Decides whether a run may start (rules in this file's header). Loosenings are computed for the
 * chosen profile only.
 * @returns `{ kind: 'go', chosen, warnings, loosening? }` or a {@link RunRefusal}
 */
export function decideRunStart(facts: RunStartFacts): RunStart {
  const { set, query, inline } = facts;
  if (inline) return { kind: 'go', chosen: { name: inline.name, source: 'user', profile: inline.profile }, warnings: [] };
  const chosen = chooseProfile(set, query, facts.settings.defaultProfile);
  if (!chosen) {
    const invalidEntry = query.name === undefined ? undefined : set.invalid.find((p) => p.name === query.name);
    return { kind: facts.trusted === false ? 'restricted' : 'no-profile', name: query.name, invalidEntry };
  }
  const blocking = blockingIssues(set, chosen.name, query);
  if (blocking.length > 0) return { kind: 'malformed', chosen, issues: blocking };
  // Nothing blocks, so every issue of the set is a warning.
  const warnings = set.issues;
  const report = routeLoosening(facts.settings, query);
  if (!report) return { kind: 'go', chosen, warnings };
  if (!facts.consented(report)) return { kind: facts.caller === 'agent' ? 'agent-loosening' : 'needs-consent', chosen, report };
  return { kind: 'go', chosen, warnings, loosening: report };
}
