/**
 * The status-bar cancel item: visible only while runs are active, showing a stop codicon, the
 * number of runs and the elapsed time of the oldest (or "installing" while a run installs its
 * dependencies, issue 22); clicking it runs `sandboxRunner.cancel`.
 */
import * as vscode from 'vscode';
import type { RunManager } from './runManager';

/** "m:ss" for a duration in ms. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export class RunStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('sandboxRunner.cancel', vscode.StatusBarAlignment.Left, 100);
  private timer: NodeJS.Timeout | undefined;
  private readonly subscription: vscode.Disposable;
  private visibleText: string | undefined;

  constructor(private readonly runs: RunManager) {
    this.item.name = vscode.l10n.t('Sandbox Runner: cancel');
    this.item.command = 'sandboxRunner.cancel';
    this.subscription = runs.onDidChange(() => this.update());
  }

  /** The item's text while shown, else undefined. */
  get text(): string | undefined {
    return this.visibleText;
  }

  private update(): void {
    const active = this.runs.active();
    if (active.length === 0) {
      this.item.hide();
      this.visibleText = undefined;
      if (this.timer) clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const oldest = active[0]!;
    this.item.text = this.runs.installing()
      ? vscode.l10n.t({ message: '$(sync~spin) Sandbox installing · {0}', args: [elapsed(Date.now() - oldest.startedAt)], comment: ['Issue 22: a run is installing its dependencies; {0}: elapsed time of the oldest run, m:ss'] })
      : vscode.l10n.t({ message: '$(debug-stop) Sandbox {0} · {1}', args: [active.length, elapsed(Date.now() - oldest.startedAt)], comment: ['{0}: the number of runs in progress; {1}: elapsed time of the oldest, m:ss'] });
    this.item.tooltip =
      (active.length === 1 ? vscode.l10n.t('Cancel the sandbox run:') + '\n' : vscode.l10n.t('Cancel sandbox runs:') + '\n') +
      active.map((r) => vscode.l10n.t('• {0} ({1})', r.label, r.profileName)).join('\n');
    this.item.accessibilityInformation = { label: active.length === 1 ? vscode.l10n.t('Cancel 1 sandbox run') : vscode.l10n.t('Cancel {0} sandbox runs', active.length) };
    this.visibleText = this.item.text;
    this.item.show();
    this.timer ??= setInterval(() => this.update(), 1000);
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.subscription.dispose();
    this.item.dispose();
  }
}
