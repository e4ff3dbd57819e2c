/**
 * A run's declared dependencies in the editor (issue 22): what the code's PEP 723 block, the
 * profile's `dependencies` and an agent's `dependencies` input ask for (core deps/declared.ts),
 * consent to install them, and the install step the run manager runs before the program
 * (runManager.ts `StartRequest.install`: its status shows "installing", its output goes under the
 * run's header, and cancelling the run stops it with nothing published).
 *
 * Consent: the specs of a PEP 723 block are untrusted; the first install of a set asks in a modal
 * listing the packages with their specs, the index and what has network, remembered per workspace
 * folder and set (consent.ts, revocable from the Sandbox Profiles view). In Restricted Mode the
 * answer is never remembered: the modal is the only way, every time. A profile's `dependencies`
 * need no second question: a user profile's are the user's own choice, and a workspace profile's
 * are a loosening, consented to (or refused) before this step by core `decideRunStart`. An agent's
 * input is confirmed by the language model tool's confirmation, which lists the packages.
 *
 * Part of the dependencies bundle (depsModule.ts): the run controller loads it (lazy.ts `deps()`)
 * only for a run that core `mayDeclareDependencies` says might declare something.
 */
import * as vscode from 'vscode';
import type { Profile } from '../core';
import { declaredDependencies, installDeclared, installEnvironment, installFingerprint, installSource, installSourceExtras, shownSpecs, type DeclaredDependencies } from '../core/deps/declared';
import { requiresPythonCheck } from '../core/deps/imagePython';
import { SandboxError } from '../core/errors';
import { consentScope, type ConsentStore } from './consent';
import { dockerOptions, installSettings } from './settings';
import type { InstallStep } from './startRequest';


/** What admission decided: nothing to install, an install step (which may reject at once with a refusal), or declined by the user. */
export type DependencyAdmission =
  | { readonly kind: 'none' }
  | { readonly kind: 'install'; readonly install: InstallStep; readonly declared?: DeclaredDependencies }
  | { readonly kind: 'declined'; readonly declared: DeclaredDependencies };

/** What {@link admitDependencies} needs. */
export interface DependencyQuestion {
  readonly profileName: string;
  readonly profile: Profile;
  readonly code: string;
  /** The document (its workspace folder keys the consent). */
  readonly scope?: vscode.Uri;
  /** False in Restricted Mode: the answer is not remembered. */
  readonly trusted: boolean;
  readonly consents: ConsentStore;
  /** An agent's `dependencies` input; when given, the tool's own confirmation was the consent. */
  readonly agentSpecs?: readonly string[];
}

/** An install step that refuses with `error` before anything starts (shown as the run's failure). */
function refuse(error: unknown): InstallStep {
  return () => Promise.reject(error instanceof Error ? error : new Error(String(error)));
}

/**
 * Reads what the run declares and, for untrusted specs from a person's run, asks consent.
 * A bad block, spec or `sandboxRunner.dependencies.*` setting becomes an install step that
 * refuses at once, so the run's frame shows the sentence naming it and nothing starts.
 */
export async function admitDependencies(q: DependencyQuestion): Promise<DependencyAdmission> {
  let declared: DeclaredDependencies | undefined;
  try {
    declared = declaredDependencies(q.profileName, q.profile, q.code, q.agentSpecs);
  } catch (e) {
    return { kind: 'install', install: refuse(e) };
  }
  if (!declared) {
    // A requires-python without dependencies: checked against the image's Python (a probe container) before the run.
    const check = requiresPythonCheck(dockerOptions(), q.profileName, q.profile, q.code, q.agentSpecs);
    return check ? { kind: 'install', install: () => check().then(() => undefined) } : { kind: 'none' };
  }
  const { settings, issues } = installSettings();
  if (issues.length > 0) {
    return { kind: 'install', declared, install: refuse(new SandboxError('invalid-profile', `${issues[0]!.message}, so the dependencies were not installed and nothing ran.`, 'Correct it in your user settings, then run again.')) };
  }
  const installEnv = installEnvironment(settings, process.env);
  const source = installSource(declared.manager, installEnv);
  if (declared.untrustedSpecs.length > 0 && q.agentSpecs === undefined) {
    const fingerprint = installFingerprint(declared.manager, declared.specs, q.profile.image, installEnv);
    const scope = consentScope(q.scope);
    if (!(q.trusted && q.consents.hasInstall(fingerprint, scope))) {
      if (!(await askInstall(declared, source, installEnv, q.profile))) return { kind: 'declined', declared };
      if (q.trusted) await q.consents.grantInstall(fingerprint, scope);
    }
  }
  const docker = dockerOptions();
  const found = declared;
  return {
    kind: 'install',
    declared,
    install: async (signal, onOutput) => {
      const { set, mount } = await installDeclared(found, { docker, profileName: q.profileName, profile: q.profile, settings, installEnv, signal, onOutput });
      onOutput(
        set.installed
          ? vscode.l10n.t('dependencies installed on network {0}: {1}; the program runs with them read-only.', settings.network, shownSpecs(found.specs))
          : vscode.l10n.t('dependencies from the cache: {0}; the program runs with them read-only.', shownSpecs(found.specs)),
      );
      return mount;
    },
  };
}

/**
 * The modal's detail: the packages with their specs, the index (and extra indexes and trusted
 * hosts, when your environment sets them), the image, and what has network. What it says is what
 * the install does (issue 34): the installer gets these and nothing of the profile's `env` or the
 * workspace (core deps/installer.ts). Specs are shown JSON-quoted (untrusted text).
 */
export function installDetail(
  declared: DeclaredDependencies, source: string, profile: Pick<Profile, 'network' | 'image'>, trusted: boolean, installEnv: Readonly<Record<string, string>> = {},
): string {
  const shown = (s: string) => JSON.stringify(s.length > 120 ? `${s.slice(0, 119)}…` : s);
  const { extraIndexes, trustedHosts } = installSourceExtras(declared.manager, installEnv);
  return [
    vscode.l10n.t('The code declares these packages in its "# /// script" block:'),
    ...declared.untrustedSpecs.map((s) => `• ${shown(s)}`),
    ...(declared.profileSpecs.length > 0 ? [vscode.l10n.t('Also installed, from the profile: {0}', declared.profileSpecs.map(shown).join(', '))] : []),
    '',
    vscode.l10n.t('Index: {0}', source),
    ...(extraIndexes.length > 0 ? [vscode.l10n.t('Extra indexes: {0}', extraIndexes.map(shown).join(', '))] : []),
    ...(trustedHosts.length > 0 ? [vscode.l10n.t('Hosts trusted without HTTPS checks: {0}', trustedHosts.map(shown).join(', '))] : []),
    vscode.l10n.t('Image: {0}', shown(profile.image)),
    profile.network === 'none'
      ? vscode.l10n.t('Network only while installing; the program runs without network.')
      : vscode.l10n.t('Network while installing; the program then runs with its profile\'s network ({0}).', profile.network),
    vscode.l10n.t('They are installed in a separate container and mounted read-only into the run. Only wheels are installed, checked before the set is used, so no package code runs while installing; the installer ignores the workspace\'s settings and the profile\'s environment.'),
    '',
    trusted
      ? vscode.l10n.t('Allow only if you trust these packages. The answer is remembered for this folder and this set; revoke it from the Sandbox Profiles view.')
      : vscode.l10n.t('Restricted Mode: the answer is not remembered; you are asked at every run.'),
  ].join('\n');
}

/**
 * Asks, modally, whether to install the set. Resolves true on "Install and Run" only. The first
 * button, the one Enter presses, is "Don't Install" (issue 34: the default is the safe answer);
 * Escape and closing the dialog decline too.
 */
async function askInstall(declared: DeclaredDependencies, source: string, installEnv: Readonly<Record<string, string>>, profile: Profile): Promise<boolean> {
  const dont: vscode.MessageItem = { title: vscode.l10n.t('Don\'t Install') };
  const install: vscode.MessageItem = { title: vscode.l10n.t('Install and Run') };
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('Install {0} packages for this script?', declared.untrustedSpecs.length),
    { modal: true, detail: installDetail(declared, source, profile, vscode.workspace.isTrusted, installEnv) },
    dont,
    install,
  );
  return choice === install;
}
