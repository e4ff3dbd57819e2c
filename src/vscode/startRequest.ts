/**
 * What a caller supplies to start a run through the window's run manager (runManager.ts), and the
 * part of the manager the agent tool uses. Types only, apart from the manager itself: the lazy
 * engine bundle's modules (agentTool.ts) import these without reaching lazy.ts, so the activation
 * bundle's types of that bundle (lazy.ts) form no import cycle.
 */
import type * as vscode from 'vscode';
import type { RunRequest, RunResult } from '../core';
import type { ActiveRunInfo } from './api';

/**
 * Installs a run's dependency set (or finds it cached) and returns what the run mounts
 * (dependencyRun.ts). Rejects with a SandboxError when it refuses or fails; nothing is published then.
 * @param onOutput the installer's output, filtered, in pieces (not whole lines)
 */
export type InstallStep = (signal: AbortSignal, onOutput: (text: string) => void) => Promise<RunRequest['dependencySet']>;

/** What a caller supplies to start a run (the signals are the manager's). */
export type StartRequest = Omit<RunRequest, 'signal' | 'forceSignal'> & {
  readonly label: string;
  /**
   * Issue 22: installs the run's dependencies before the program starts, under the same
   * cancellation (the run shows as installing meanwhile); its output goes to `onOutput` as notices.
   */
  readonly install?: InstallStep;
  /** The document the code came from (`Uri.toString()`): the editor's stop button cancels its runs. */
  readonly documentUri?: string;
};

/** How a started run is followed. */
export interface StartOptions {
  /** Cancelling it cancels the run as a first `cancel` does (interrupt, then removal). */
  readonly token?: vscode.CancellationToken;
  /**
   * Called with the result after the run left the active set and before `onDidFinish` fires
   * (the caller writes the run's footer here, so listeners of the finish event see it). Must not throw.
   */
  readonly settle?: (result: RunResult) => void;
}

/** The run manager as a starter of runs (runManager.ts `RunManager.start`). */
export interface RunStarter {
  /**
   * Starts a run; resolves with its result (never rejects for run failures), after
   * `options.settle` ran and `onDidFinish` fired.
   */
  start(request: StartRequest, options?: StartOptions): { info: ActiveRunInfo; done: Promise<RunResult> };
}
