/**
 * The warm-start policy as a service: which runs get a container started ahead of time
 * (`sandboxRunner.warmStart`, user settings only), the pool that keeps them (made on first use, in
 * the engine bundle), and when one is prepared. The pool is replaced (old containers removed) when
 * its settings change, and emptied when every consent is revoked. A warm container is created and
 * started with the profile's mounts, network and limits: a profile a workspace loosened gets one
 * only once the user allowed exactly that loosening.
 */
import * as vscode from 'vscode';
import { pickProfile, type ResolvedProfile, type WarmPool } from '../core';
import type { ConsentStore } from './consent';
import { engine } from './lazy';
import { channelRunProfile } from './programOutput';
import { currentSettings, dockerOptions, SECTION, warmStartSettings, type SettingsCache, type SettingsSnapshot } from './settings';

/** Settings whose change replaces the pool (its engine or idle expiry changed). */
const POOL_KEYS = ['warmStart', 'warmIdleSeconds', 'dockerPath', 'dockerContext', 'dockerHost'];

export class WarmStart implements vscode.Disposable {
  private pool: WarmPool | undefined;
  private readonly subscriptions: vscode.Disposable[];

  /**
   * @param settings the cached settings snapshot (cheap reads on editor events)
   * @param consents consent to workspace loosenings (a loosened profile is warmed only with it)
   * @param protectedPaths host paths no mount may touch (the extension's storage)
   * @param log where the pool's messages go
   */
  constructor(
    private readonly settings: SettingsCache,
    private readonly consents: ConsentStore,
    private readonly protectedPaths: readonly string[],
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions = [
      // Revoked consents: warm containers of loosened profiles (prepared after a run) go too.
      consents.onDidChange(() => consents.count === 0 && this.reset()),
      vscode.workspace.onDidChangeConfiguration((e) => POOL_KEYS.some((k) => e.affectsConfiguration(`${SECTION}.${k}`)) && this.reset()),
      vscode.window.onDidChangeActiveTextEditor((editor) => this.prepareFor(editor)),
    ];
  }

  /** True when `sandboxRunner.warmStart` covers `chosen` (`all`, or `built-in` for a built-in profile). */
  private covers(chosen: ResolvedProfile): boolean {
    const { mode } = warmStartSettings();
    return mode === 'all' || (mode === 'built-in' && chosen.source === 'built-in');
  }

  /** True unless a workspace loosened `chosen` and the user did not allow exactly that loosening. */
  private consented(chosen: ResolvedProfile, snapshot: SettingsSnapshot): boolean {
    const report = snapshot.loosenings.get(chosen.name);
    return report === undefined || this.consents.has(report);
  }

  /**
   * The warm pool for a run of `chosen` (made on first use), or undefined when warm start is off
   * for it or a loosening of it lacks consent in `snapshot`.
   */
  readonly warmFor = (chosen: ResolvedProfile, snapshot: SettingsSnapshot): WarmPool | undefined => {
    if (!this.covers(chosen) || !this.consented(chosen, snapshot)) return undefined;
    this.pool ??= new (engine().WarmPool)({
      docker: dockerOptions(),
      idleMs: warmStartSettings().idleMs,
      protectedPaths: this.protectedPaths,
      onLog: (m) => this.log.info(`warm start: ${m}`),
    });
    return this.pool;
  };

  /**
   * Prepares a warm container for the profile of `editor`'s document. Cheap checks and the cached
   * snapshot first; fresh settings (which resolve mount paths on disk) only for a profile that a
   * workspace loosened.
   */
  prepareFor(editor: vscode.TextEditor | undefined): void {
    if (!editor || editor.document.uri.scheme === 'output' || warmStartSettings().mode === 'off') return;
    const cached = this.settings.get();
    const query = { languageId: editor.document.languageId, fileName: editor.document.fileName };
    const chosen = pickProfile(cached, query);
    if (!chosen || !this.covers(chosen)) return;
    const snapshot = cached.loosenings.has(chosen.name) ? currentSettings() : cached;
    // A document the workspace re-routed into a looser profile (the user's own included) gets no
    // warm container before the user allowed that re-routing.
    const routed = snapshot.looseningFor(query);
    if (routed && !this.consents.has(routed)) return;
    this.warmFor(chosen, snapshot)?.prepare(chosen.name, channelRunProfile(chosen.profile));
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
