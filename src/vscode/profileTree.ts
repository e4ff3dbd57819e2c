/**
 * The "Sandbox Profiles" tree: the engine that runs the code (context or host, product, version,
 * runtime) and problems with the engine settings as notes; each profile with its source, image
 * and network state; invalid profiles with their problems as children; active runs under their profile (cancel inline);
 * a note when the workspace is untrusted and its profiles are ignored; no rows while the engine is
 * unreachable, so the view's welcome content (package.json `viewsWelcome`) says why and what to do.
 * Last, a "Recent Runs" section (issue 12; recentRunsTree.ts) lists the window's finished runs.
 */
import * as vscode from 'vscode';
import type { ProfileSet } from '../core';
import type { ActiveRunInfo, ProfileSummary } from './api';
import type { ConsentStore } from './consent';
import type { SettingsSnapshot } from './settings';
import type { RunManager } from './runManager';
import type { RecentRunEntry, RunHistory } from './runHistory';
import { recentRunItem, recentRunsItem } from './recentRunsTree';
import { elapsed } from './statusBar';

/** A node of the tree. */
export type TreeNode =
  | { kind: 'profile'; summary: ProfileSummary }
  | { kind: 'problem'; text: string }
  | { kind: 'run'; run: ActiveRunInfo }
  | { kind: 'note'; text: string; icon: string; tooltip?: string; contextValue?: string }
  | { kind: 'recentRuns' }
  | { kind: 'recent'; entry: RecentRunEntry };

/** Profile rows from a resolved set, in tree order (valid by layer, then invalid). */
export function summarize(set: ProfileSet): ProfileSummary[] {
  return [
    ...set.profiles.map((p) => ({
      name: p.name,
      source: p.source,
      valid: true,
      image: p.profile.image,
      network: p.profile.network,
      problems: [],
    })),
    ...set.invalid.map((p) => ({
      name: p.name,
      source: p.source,
      valid: false,
      problems: p.issues.map((i) => `${i.key}: ${i.message}`),
    })),
  ];
}

export class ProfileTree implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private engineProblem: string | undefined;
  private engine: string | undefined;
  private engineSettingProblems: readonly string[] = [];
  private loosened = new Map<string, string>();

  constructor(
    private readonly settings: () => SettingsSnapshot,
    private readonly runs: RunManager,
    private readonly consents: ConsentStore,
    private readonly history?: RunHistory,
  ) {}

  /** Re-reads everything. */
  refresh(engineProblem?: string | null): void {
    if (engineProblem !== null) this.engineProblem = engineProblem;
    this.emitter.fire(undefined);
  }

  /**
   * Names the engine in use (core `describeEngine`, plain text) and the problems with the engine
   * settings (workspace values ignored, invalid values), shown as notes; undefined: not known yet.
   */
  setEngine(engine: string | undefined, settingProblems: readonly string[] = []): void {
    this.engine = engine;
    this.engineSettingProblems = settingProblems;
    this.emitter.fire(undefined);
  }

  /** The texts of the note rows currently shown at the top of the tree. */
  notes(): string[] {
    return this.getChildren().flatMap((n) => (n.kind === 'note' ? [n.text] : []));
  }

  /** The profile rows currently shown. */
  summaries(): ProfileSummary[] {
    return summarize(this.settings());
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (!node) {
      // Empty while the engine is unreachable, so the view's welcome content explains how to fix it.
      if (this.engineProblem) return [];
      const rows: TreeNode[] = [];
      if (this.engine) {
        rows.push({ kind: 'note', text: vscode.l10n.t('Engine: {0}', this.engine), icon: 'server', tooltip: vscode.l10n.t('Runs go to {0}.', this.engine) });
      }
      for (const problem of this.engineSettingProblems) rows.push({ kind: 'note', text: problem, icon: 'warning', tooltip: problem });
      if (!vscode.workspace.isTrusted) {
        rows.push({
          kind: 'note',
          text: vscode.l10n.t('Workspace profiles ignored (untrusted workspace)'),
          icon: 'workspace-untrusted',
          tooltip: vscode.l10n.t('Restricted Mode: only built-in and user profiles run. Trust the workspace to use its profiles.'),
        });
      }
      if (this.consents.count > 0) {
        rows.push({
          kind: 'note',
          text: vscode.l10n.t('Loosened profiles allowed in this workspace: {0}', this.consents.count),
          icon: 'unlock',
          tooltip: vscode.l10n.t('You allowed workspace profiles that loosen the sandbox. Revoke to be asked again.'),
          contextValue: 'consents',
        });
      }
      if (this.consents.installCount > 0) {
        rows.push({
          kind: 'note',
          text: vscode.l10n.t('Dependency installs allowed in this workspace: {0}', this.consents.installCount),
          icon: 'package',
          tooltip: vscode.l10n.t('You allowed installing dependency sets for runs in this workspace. Revoke to be asked again.'),
          contextValue: 'installConsents',
        });
      }
      const settings = this.settings();
      // Each shown profile's loosening, asked for by name (settings.ts `looseningOf`).
      this.loosened = new Map(settings.profiles.flatMap(({ name }) => {
        const r = settings.looseningOf(name);
        return r ? [[name, this.consents.has(r) ? vscode.l10n.t('allowed') : vscode.l10n.t('needs consent')] as const] : [];
      }));
      return [...rows, ...summarize(settings).map((summary) => ({ kind: 'profile' as const, summary })), ...(this.history ? [{ kind: 'recentRuns' as const }] : [])];
    }
    if (node.kind === 'recentRuns') return (this.history?.list() ?? []).map((entry) => ({ kind: 'recent' as const, entry }));
    if (node.kind !== 'profile') return [];
    if (!node.summary.valid) return node.summary.problems.map((text) => ({ kind: 'problem' as const, text }));
    return this.runs.active().filter((r) => r.profileName === node.summary.name).map((run) => ({ kind: 'run' as const, run }));
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'profile': {
        const s = node.summary;
        const hasRuns = this.runs.active().some((r) => r.profileName === s.name);
        const item = new vscode.TreeItem(
          s.name,
          !s.valid || hasRuns ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
        );
        item.id = `profile:${s.name}`;
        const loosened = this.loosened.get(s.name);
        item.description = s.valid
          ? `${s.source} · ${s.image} · ${s.network === 'none' ? vscode.l10n.t('network off') : vscode.l10n.t('network on')}${loosened ? ` · ${vscode.l10n.t('loosened ({0})', loosened)}` : ''}`
          : `${s.source} · ${vscode.l10n.t('invalid')}`;
        item.iconPath = new vscode.ThemeIcon(s.valid ? (s.network === 'none' ? 'shield' : 'globe') : 'error');
        item.contextValue = s.valid ? 'profile' : 'profileInvalid';
        item.tooltip = s.valid ? `${s.name} (${s.source})\nimage: ${s.image}\nnetwork: ${s.network}` : s.problems.join('\n');
        return item;
      }
      case 'problem': {
        const item = new vscode.TreeItem(node.text);
        item.iconPath = new vscode.ThemeIcon('circle-slash');
        item.tooltip = node.text;
        return item;
      }
      case 'run': {
        const item = new vscode.TreeItem(node.run.label);
        item.id = `run:${node.run.id}`;
        item.description = vscode.l10n.t('running {0}', elapsed(Date.now() - node.run.startedAt));
        item.iconPath = new vscode.ThemeIcon('loading~spin');
        item.contextValue = 'sandboxRun';
        return item;
      }
      case 'recentRuns':
        return recentRunsItem(this.history?.list().length ?? 0);
      case 'recent':
        return recentRunItem(node.entry);
      case 'note': {
        const item = new vscode.TreeItem(node.text);
        item.iconPath = new vscode.ThemeIcon(node.icon);
        item.tooltip = node.tooltip;
        item.contextValue = node.contextValue;
        return item;
      }
    }
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
