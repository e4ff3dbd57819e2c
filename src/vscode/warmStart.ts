/**
 * The warm-start policy as a service: which runs get a container started ahead of time
 * (`sandboxRunner.warmStart`, user settings only), the pool that keeps them (made on first use, in
 * the engine bundle), and when one is prepared. The pool is replaced (old containers removed) when
 * its settings change, and emptied when every consent is revoked. A warm container is created and
 * started with the profile's mounts, network and limits: a profile a workspace loosened gets one
 * only once the user allowed exactly that loosening (for the document's folder).
 *
 * When (issue 12): a warm container is prepared when the user first runs a profile (the run's
 * `take` prepares the next one), or opens a file of a language they have run in this window. Never
 * on a mere tab switch, and never for a language not run yet in this window: opening a repository
 * starts no container.
 */
import * as vscode from 'vscode';
import type { ResolvedProfile, WarmPool } from '../core';
import { pickProfile } from '../core/profiles/profileResolution';
import { consentScope, type ConsentStore } from './consent';
import { engine } from './lazy';
import { channelRunProfile } from './programOutput';
import { currentSettings, dockerOptions, SECTION, warmStartSettings, type SettingsSnapshot } from './settings';

/** Settings whose change replaces the pool (its engine or idle expiry changed). */
const POOL_KEYS = ['warmStart', 'warmIdleSeconds', 'dockerPath', 'dockerContext', 'dockerHost'];

/** Schemes of documents a user opens to edit (not output channels, diffs' git views or settings). */
const EDITED_SCHEMES = new Set(['file', 'untitled', 'vscode-remote']);

export class WarmStart implements vscode.Disposable {
  private pool: WarmPool | undefined;
  private readonly subscriptions: vscode.Disposable[];
  /** Languages run in this window (any profile, plain or interactive). */
  private readonly ranLanguages = new Set<string>();

  /**
   * @param consents consent to workspace loosenings (a loosened profile is warmed only with it)
   * @param protectedPaths host paths no mount may touch (the extension's storage)
   * @param log where the pool's messages go
   */
  constructor(
    private readonly consents: ConsentStore,
    private readonly protectedPaths: readonly string[],
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions = [
      // Revoked consents: warm containers of loosened profiles (prepared after a run) go too.
      consents.onDidChange(() => consents.count === 0 && this.reset()),
      vscode.workspace.onDidChangeConfiguration((e) => POOL_KEYS.some((k) => e.affectsConfiguration(`${SECTION}.${k}`)) && this.reset()),
      vscode.workspace.onDidOpenTextDocument((doc) => this.ranLanguages.has(doc.languageId) && this.prepareFor(doc)),
    ];
  }

  /** True when `sandboxRunner.warmStart` covers `chosen` (`all`, or `built-in` for a built-in profile). */
  private covers(chosen: ResolvedProfile): boolean {
    const { mode } = warmStartSettings();
    return mode === 'all' || (mode === 'built-in' && chosen.source === 'built-in');
  }

  /** True unless a workspace loosened `chosen` and the user did not allow exactly that loosening for `scope`'s folder. */
  private consented(chosen: ResolvedProfile, snapshot: SettingsSnapshot, scope?: vscode.Uri): boolean {
    const report = snapshot.looseningOf(chosen.name);
    return report === undefined || this.consents.has(report, consentScope(scope));
  }

  /** Notes that a document of `languageId` ran: opening another file of it prepares a warm container. */
  readonly noteRun = (languageId: string): void => {
    this.ranLanguages.add(languageId);
  };

  /**
   * The warm pool for a run of `chosen` (made on first use), or undefined when warm start is off
   * for it or a loosening of it lacks consent in `snapshot` (for `scope`'s folder).
   */
  readonly warmFor = (chosen: ResolvedProfile, snapshot: SettingsSnapshot, scope?: vscode.Uri): WarmPool | undefined => {
    if (!this.covers(chosen) || !this.consented(chosen, snapshot, scope)) return undefined;
    this.pool ??= new (engine().WarmPool)({
      docker: dockerOptions(),
      idleMs: warmStartSettings().idleMs,
      protectedPaths: this.protectedPaths,
      onLog: (m) => this.log.info(`warm start: ${m}`),
    });
    return this.pool;
  };

  /**
   * Prepares a warm container for the profile of `doc` (an opened file of a language run in this
   * window), with the settings of its own workspace folder; nothing for a document the workspace
   * re-routed into a looser profile before the user allowed that (for its folder).
   */
  private prepareFor(doc: vscode.TextDocument): void {
    if (!EDITED_SCHEMES.has(doc.uri.scheme) || warmStartSettings().mode === 'off') return;
    const snapshot = currentSettings(doc.uri);
    const query = { languageId: doc.languageId, fileName: doc.fileName };
    const chosen = pickProfile(snapshot, query);
    if (!chosen || !this.covers(chosen)) return;
    const routed = snapshot.looseningFor(query);
    if (routed && !this.consents.has(routed, consentScope(doc.uri))) return;
    this.warmFor(chosen, snapshot, doc.uri)?.prepare({ name: chosen.name, profile: channelRunProfile(chosen.profile) });
  }

  /** Removes the pool's containers; the next run or preparation makes a new pool. */
  reset(): void {
    void this.pool?.dispose();
    this.pool = undefined;
  }

  /** Removes every warm container and resolves when they are gone (for deactivate). */
  async shutdown(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.dispose();
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.reset();
  }
}
