/**
 * The rows of the profiles view's "Recent Runs" section (issue 12): the section itself and one
 * row per finished run (runHistory.ts) with its label, profile, outcome and duration; its menu
 * (package.json `view/item/context`, by `contextValue`) re-runs it, shows its output and copies it
 * as a `sandbox-run` command line. Labels and arguments come from file names and the user's
 * typing: tree labels, descriptions and string tooltips are never parsed as markup (VS Code
 * renders them as text); control characters are replaced so a name stays on one line.
 */
import * as vscode from 'vscode';
import type { RunOutcome } from '../core';
import { rerunBlocker, type RecentRunEntry, type RecentRun } from './runHistory';

/** Context values of a recent run's row: one that can re-run, and one that cannot (a selection after a reload). */
export const RECENT_RUN_CONTEXT = { rerunnable: 'recentRun', stale: 'recentRunStale' } as const;

/** C0/C1 controls and bidi controls, replaced by a space in shown names. */
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/** `text` on one line, at most `max` characters. */
function shown(text: string, max = 200): string {
  const one = text.replace(CONTROLS, ' ');
  return one.length > max ? one.slice(0, max - 1) + '…' : one;
}

/** The outcome in a few words, e.g. "exit 0", "timed out". */
export function outcomeText(run: Pick<RecentRun, 'outcome' | 'exitCode'>): string {
  const words: Record<RunOutcome, string> = {
    exited: vscode.l10n.t('exit {0}', run.exitCode ?? '?'),
    'timed-out': vscode.l10n.t('timed out'),
    cancelled: vscode.l10n.t('cancelled'),
    'output-limit': vscode.l10n.t('output limit'),
    'oom-killed': vscode.l10n.t('out of memory'),
    'failed-to-start': vscode.l10n.t('could not start'),
    'engine-error': vscode.l10n.t('engine failed'),
    'compile-failed': vscode.l10n.t('compilation failed'),
  };
  return words[run.outcome];
}

/** A duration in ms as "850 ms", "3.2 s" or "2 min 5 s". */
export function durationText(ms: number): string {
  if (ms < 1000) return vscode.l10n.t('{0} ms', Math.round(ms));
  if (ms < 60_000) return vscode.l10n.t('{0} s', (ms / 1000).toFixed(1));
  const s = Math.round(ms / 1000);
  return vscode.l10n.t('{0} min {1} s', Math.floor(s / 60), s % 60);
}

/** The section row. */
export function recentRunsItem(count: number): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('Recent Runs'), vscode.TreeItemCollapsibleState.Expanded);
  item.id = 'recentRuns';
  item.description = count > 0 ? undefined : vscode.l10n.t('none yet');
  item.iconPath = new vscode.ThemeIcon('history');
  item.tooltip = vscode.l10n.t('The last runs of this workspace, newest first. Re-run, show the output, or copy a run as a sandbox-run command line from its menu.');
  item.contextValue = 'recentRuns';
  return item;
}

function icon(run: RecentRun): string {
  if (run.outcome === 'exited') return run.exitCode === 0 ? 'pass' : 'error';
  if (run.outcome === 'cancelled') return 'circle-slash';
  if (run.outcome === 'timed-out') return 'watch';
  return 'warning';
}

/** One run's row. */
export function recentRunItem(entry: RecentRunEntry): vscode.TreeItem {
  const { run } = entry;
  const item = new vscode.TreeItem(shown(run.label));
  item.id = `recent:${run.id}`;
  const args = run.args.length === 0 ? '' : run.args.length === 1 ? vscode.l10n.t(' · 1 arg') : vscode.l10n.t(' · {0} args', run.args.length);
  item.description = shown(`${run.profileName} · ${outcomeText(run)} · ${durationText(run.durationMs)}${args}${run.interactive ? vscode.l10n.t(' · interactive') : ''}`);
  item.iconPath = new vscode.ThemeIcon(icon(run));
  const blocker = rerunBlocker(entry);
  item.contextValue = blocker ? RECENT_RUN_CONTEXT.stale : RECENT_RUN_CONTEXT.rerunnable;
  item.tooltip = [
    shown(run.label),
    vscode.l10n.t('profile: {0}', shown(run.profileName)),
    vscode.l10n.t('outcome: {0} after {1}', outcomeText(run), durationText(run.durationMs)),
    ...(run.args.length > 0 ? [vscode.l10n.t('arguments: {0}', run.args.map((a) => JSON.stringify(a)).join(' ').slice(0, 500))] : []),
    vscode.l10n.t('finished: {0}', new Date(run.finishedAt).toLocaleString()),
    ...(blocker ? [blocker] : []),
  ].join('\n');
  item.command = { command: 'sandboxRunner.showRunOutput', title: vscode.l10n.t('Show Output'), arguments: [run.id] };
  return item;
}
