/**
 * Consent for workspace profiles that loosen the sandbox (issue: trust policy). Asked once per
 * workspace folder and loosening (issue 12: in a multi-root workspace, allowing a loosening for
 * one folder's files does not allow it for another's), in a modal that lists exactly what is loosened and the docker
 * arguments that differ; stored in VS Code's workspace storage (outside the repository, so a
 * cloned repository cannot pre-seed it) and revocable from the profile tree.
 */
import * as vscode from 'vscode';
import type { LooseningReport } from '../core';
import { looseningFingerprint } from '../core/admission/loosening';

const KEY = 'sandboxRunner.looseningConsents';
/** Issue 22: consents to install a dependency set, keyed like loosenings (folder NUL fingerprint). */
const INSTALL_KEY = 'sandboxRunner.installConsents';
const allowLabel = () => vscode.l10n.t('Allow for This Workspace');
const reviewLabel = () => vscode.l10n.t('Review Workspace Settings');

/**
 * The folder a consent is keyed by: the workspace folder of `uri` (a document), or, without one,
 * the window's only folder. '' when there is none (a file outside every folder, or a multi-root
 * window asked without a document). Source: VS Code `workspace.getWorkspaceFolder`.
 */
export function consentScope(uri?: vscode.Uri): string {
  const folder = uri ? vscode.workspace.getWorkspaceFolder(uri) : vscode.workspace.workspaceFolders?.length === 1 ? vscode.workspace.workspaceFolders[0] : undefined;
  return folder?.uri.toString() ?? '';
}

/** The stored key of a consent: the folder, a NUL, the loosening's fingerprint. */
function consentKey(report: LooseningReport, scope: string): string {
  return `${scope}\u0000${looseningFingerprint(report)}`;
}

export class ConsentStore {
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires when consent is given or revoked. */
  readonly onDidChange = this.emitter.event;

  constructor(private readonly state: vscode.Memento) {}

  private all(): string[] {
    return this.state.get<string[]>(KEY, []);
  }

  /** True when the user allowed exactly this loosening for the folder `scope` (see {@link consentScope}). */
  has(report: LooseningReport, scope = consentScope()): boolean {
    return this.all().includes(consentKey(report, scope));
  }

  /** Number of loosening consents stored for this workspace. */
  get count(): number {
    return this.all().length;
  }

  /** Number of dependency install consents stored for this workspace (issue 22). */
  get installCount(): number {
    return this.installs().length;
  }

  private installs(): string[] {
    return this.state.get<string[]>(INSTALL_KEY, []);
  }

  /** True when the user allowed installing the set `fingerprint` (core deps/declared.ts `installFingerprint`) for the folder `scope`. */
  hasInstall(fingerprint: string, scope: string): boolean {
    return this.installs().includes(`${scope}\u0000${fingerprint}`);
  }

  /** Allows installing the set `fingerprint` for the folder `scope`. */
  async grantInstall(fingerprint: string, scope: string): Promise<void> {
    await this.state.update(INSTALL_KEY, [...new Set([...this.installs(), `${scope}\u0000${fingerprint}`])]);
    this.emitter.fire();
  }

  /** Allows exactly this loosening for the folder `scope` (see {@link consentScope}). */
  async grant(report: LooseningReport, scope = consentScope()): Promise<void> {
    await this.state.update(KEY, [...new Set([...this.all(), consentKey(report, scope)])]);
    this.emitter.fire();
  }

  /** Forgets every loosening consent of this workspace; loosening profiles will ask again (install consents stay). */
  async revokeAll(): Promise<void> {
    await this.state.update(KEY, []);
    this.emitter.fire();
  }

  /** Forgets every dependency install consent of this workspace; the next install of each set asks again (loosening consents stay). */
  async revokeInstalls(): Promise<void> {
    await this.state.update(INSTALL_KEY, []);
    this.emitter.fire();
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** The modal's detail text: what is loosened, then the docker arguments that differ. */
export function consentDetail(report: LooseningReport): string {
  return [
    vscode.l10n.t('This workspace\'s settings loosen the sandbox floor:'),
    ...report.loosenings.map((l) => `• ${l.description}   (${l.key})`),
    '',
    vscode.l10n.t('Docker arguments that differ from your own settings:'),
    ...report.addedArgs.map((a) => `+ ${a}`),
    ...report.removedArgs.map((a) => `− ${a}`),
    '',
    vscode.l10n.t('Allow only if you trust this repository\'s settings. You can revoke this from the Sandbox Profiles view.'),
  ].join('\n');
}

/**
 * Ensures consent for `report` in the folder `scope` (see {@link consentScope}; asking once,
 * modally). Resolves true when the run may go ahead.
 */
export async function ensureConsent(store: ConsentStore, report: LooseningReport, scope = consentScope()): Promise<boolean> {
  if (store.has(report, scope)) return true;
  // The first item is the modal's default button: make Enter open the settings, never grant.
  const [review, allow] = [reviewLabel(), allowLabel()];
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('The workspace profile "{0}" loosens the sandbox.', report.profileName),
    { modal: true, detail: consentDetail(report) },
    review,
    allow,
  );
  if (choice === review) await vscode.commands.executeCommand('workbench.action.openWorkspaceSettingsFile');
  if (choice !== allow) return false;
  await store.grant(report, scope);
  return true;
}
