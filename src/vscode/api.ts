/**
 * The extension's exported API (the value `activate` returns), for other extensions and for the
 * extension-host tests. Plain data and events only; no internal objects leak through it.
 */
import type * as vscode from 'vscode';
import type { ProfileSource, RunOutcome, RunResult } from '../core';

/** A run in progress. */
export interface ActiveRunInfo {
  /** Unique id of the run (also used by `sandboxRunner.cancel`). */
  readonly id: string;
  readonly profileName: string;
  /** What runs, e.g. "selection of a.py (lines 1-3)" or "a.py". */
  readonly label: string;
  /** `Date.now()` when the run started, in ms. */
  readonly startedAt: number;
}

/** A finished run. */
export interface FinishedRun extends ActiveRunInfo {
  readonly result: RunResult;
}

/** One row of the profile tree, as data. */
export interface ProfileSummary {
  readonly name: string;
  readonly source: ProfileSource;
  readonly valid: boolean;
  readonly image?: string;
  readonly network?: 'none' | 'bridge';
  /** `key: message` lines for an invalid profile. */
  readonly problems: readonly string[];
}

/** What `activate` returns. */
export interface SandboxRunnerApi {
  /** Fires after every run, whatever its outcome (after the output footer is written). */
  readonly onDidFinishRun: vscode.Event<FinishedRun>;
  /** Fires when a run starts. */
  readonly onDidStartRun: vscode.Event<ActiveRunInfo>;
  /** Runs in progress, oldest first. */
  activeRuns(): readonly ActiveRunInfo[];
  /** Text written to the "Sandbox Runner" output channel so far (the last 1 MiB). */
  outputText(): string;
  /**
   * What the terminal of interactive run `runId` was sent so far (the last 1 MiB): our header,
   * the program's output after the terminal filter (colours and cursor moves kept, as the terminal
   * shows them) and the result line. Undefined when the run had no terminal or the user closed it.
   * VS Code has no stable API to read a terminal's contents, so the host tests read it here.
   */
  terminalText(runId: string): string | undefined;
  /** The status-bar item's text while visible, else undefined. */
  statusBarText(): string | undefined;
  /** The profiles the tree shows, in tree order. */
  profiles(): readonly ProfileSummary[];
  /** The tree's note rows (e.g. "Workspace profiles ignored (untrusted workspace)"), top first. */
  treeNotes(): readonly string[];
  /**
   * The language model tool `sandboxRunner_run` as registered with `vscode.lm.registerTool`
   * (issue 14): its `prepareInvocation` and `invoke`, for the host tests (outside a chat,
   * `vscode.lm.invokeTool` shows a modal confirmation that would block them).
   */
  agentTool(): vscode.LanguageModelTool<unknown>;
  /** The profiles view's Recent Runs (issue 12), newest first, as workspace state keeps them (no code, no output). */
  recentRuns(): readonly RecentRun[];
  /** The notebook kernel status bar item's text (issue 24) while visible, else undefined. */
  notebookStatusText(): string | undefined;
}

/** What ran: a saved file as it is on disk, the whole text of an unsaved or untitled document, or a selection. */
export type RunKind = 'file' | 'unsaved' | 'selection';

/** A finished run as workspace state keeps it (runHistory.ts; plain data; no code, profile or output). */
export interface RecentRun {
  /** The run's id (RunManager). */
  readonly id: string;
  readonly kind: RunKind;
  /** What ran, e.g. "a.py" or "selection of a.py (lines 1-3)": a file name, untrusted text. */
  readonly label: string;
  /** The document's URI (`Uri.toString()`). */
  readonly documentUri: string;
  readonly fileName: string;
  readonly languageId: string;
  readonly profileName: string;
  readonly args: readonly string[];
  readonly interactive: boolean;
  readonly outcome: RunOutcome;
  readonly exitCode: number | null;
  /** Run duration, ms. */
  readonly durationMs: number;
  /** `Date.now()` when it finished, ms. */
  readonly finishedAt: number;
}
