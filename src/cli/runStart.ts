/**
 * The CLI's side of "may this run start?" (core runStart.ts `decideRunStart`): it gathers the
 * facts (the workspace's profiles, `--profile`/FILE, `--profile-json`, `--allow-loosening`) and
 * renders the answer: the settings' problems (warnings unless they block), and a refusal as one
 * line on stderr with exit status 2.
 */
import { basename } from 'node:path';
import type { ProfileIssue, ResolvedProfile } from '../core';
import { decideRunStart, type LooseningRefusal, type NoProfileRefusal, type RunStart } from '../core/admission/runStart';
import { fail, say } from './messages';
import type { CliValues } from './options';
import type { ProfileSource } from './profileSource';
import type { RunTarget } from './runTarget';

/**
 * The profile the run uses, after its settings' problems were said (`warning: KEY: MESSAGE`, or
 * without `warning:` when the problem blocks this run). Exits with a usage error when no profile
 * runs FILE, a malformed entry blocks it, or a workspace loosening lacks `--allow-loosening`
 * (what it loosens and the docker arguments that differ said first).
 */
export function chooseCliProfile(values: CliValues, source: ProfileSource, target: RunTarget): ResolvedProfile {
  const { set, settingsPath } = source;
  // --profile-json: the command line's own profile; the settings choose nothing and loosen nothing.
  // A workspace's settings file may come with a cloned repository: it may tighten anything, but a
  // loosening needs the user's explicit --allow-loosening (the editor asks in a modal instead).
  const decision: RunStart = decideRunStart({
    set,
    settings: { layers: source.layers },
    query: target.query,
    caller: 'person',
    consented: () => values['allow-loosening'] === true,
    ...(source.inline ? { inline: { name: values.profile ?? 'inline', profile: source.inline } } : {}),
  });
  switch (decision.kind) {
    case 'go':
      sayIssues(decision.warnings, []);
      return decision.chosen;
    case 'no-profile':
    case 'restricted':
      return refuseNoProfile(decision, source, target);
    case 'malformed':
      // A malformed setting for the chosen profile (or for all profiles) may have meant to tighten it:
      // never fall back to the built-in silently. Other problems are warnings.
      sayIssues(set.issues, decision.issues);
      return fail(`the settings for profile "${decision.chosen.name}", or of a profile meant for this file, are malformed (above); fix ${settingsPath} and run again.`);
    case 'needs-consent':
    case 'agent-loosening':
      sayIssues(set.issues, []);
      return refuseLoosening(decision, settingsPath);
  }
}

/** Says each of the settings' problems: `warning: KEY: MESSAGE`, or without `warning:` when it is in `blocking`. */
function sayIssues(issues: readonly ProfileIssue[], blocking: readonly ProfileIssue[]): void {
  for (const i of issues) say(`${blocking.includes(i) ? '' : 'warning: '}${i.key}: ${i.message}`);
}

/**
 * Says what the workspace loosens (also a file it re-routed, by extension, into a looser profile
 * than the built-in it would use) and the docker arguments that differ, and exits 2.
 */
function refuseLoosening(decision: LooseningRefusal, settingsPath: string): never {
  const { report } = decision;
  for (const l of report.loosenings) say(`${l.key}: ${l.description}`);
  for (const a of report.addedArgs) say(`  + ${a}`);
  for (const a of report.removedArgs) say(`  - ${a}`);
  fail(`profile "${decision.chosen.name}" from ${settingsPath} loosens the sandbox (above); review it and pass --allow-loosening to run it.`);
}

/** Says why no profile runs FILE (the invalid entry's problems, else all of the settings') and exits 2. */
function refuseNoProfile(decision: NoProfileRefusal, source: ProfileSource, target: RunTarget): never {
  const { set, settingsPath } = source;
  const bad = decision.invalidEntry;
  for (const i of bad?.issues ?? set.issues) say(`${i.key}: ${i.message}`);
  fail(
    decision.name
      ? `profile "${decision.name}" ${bad ? 'is invalid (see above); fix it in ' + settingsPath : 'does not exist; use --list-profiles to see the profiles'}.`
      : set.invalid.length > 0
        ? `no valid profile runs "${basename(target.file)}"; the invalid profile(s) ${set.invalid.map((p) => `"${p.name}"`).join(', ')} (above) may be meant for it: fix them in ${settingsPath}.`
        : `no profile runs "${basename(target.file)}"; pass --profile NAME or add a profile with its extension to ${settingsPath}.`,
  );
}
