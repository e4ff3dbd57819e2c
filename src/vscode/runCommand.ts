/**
 * "Run in Sandbox": runs the selection (or the whole document when the selection is empty) with
 * the profile for the document's language, streaming into the "Sandbox Runner" output channel,
 * under a cancellable progress notification wired to the run's AbortSignal.
 */
import * as vscode from 'vscode';
import { pickProfile, runInSandbox, type RunResult } from '../core';
import { OutputWriter } from './outputWriter';
import { currentProfiles, dockerPath } from './settings';

/** Runs in progress in this window; deactivate cancels them all. */
export class ActiveRuns {
  private readonly runs = new Set<{ controller: AbortController; done: Promise<unknown> }>();

  /** Tracks a run until `done` settles. */
  track(controller: AbortController, done: Promise<unknown>): void {
    const entry = { controller, done };
    this.runs.add(entry);
    void done.finally(() => this.runs.delete(entry));
  }

  /** Number of runs in progress. */
  get size(): number {
    return this.runs.size;
  }

  /** Cancels every run and resolves once their containers are removed. */
  async cancelAll(): Promise<void> {
    const entries = [...this.runs];
    for (const e of entries) e.controller.abort();
    await Promise.allSettled(entries.map((e) => e.done));
  }
}

/** What the command runs: the editor's selection or whole text, and where it comes from. */
function snippetFrom(editor: vscode.TextEditor): { code: string; label: string } {
  const doc = editor.document;
  const selection = editor.selection;
  const name = doc.isUntitled ? doc.uri.path : vscode.workspace.asRelativePath(doc.uri);
  if (!selection.isEmpty) {
    return { code: doc.getText(selection), label: `selection of ${name} (lines ${selection.start.line + 1}-${selection.end.line + 1})` };
  }
  return { code: doc.getText(), label: name };
}

/**
 * Creates the command handler.
 * @param channel the program output channel
 * @param runs the window's active runs
 */
export function runInSandboxCommand(channel: vscode.OutputChannel, runs: ActiveRuns) {
  return async (): Promise<RunResult | undefined> => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage('Open a file or select code to run it in the sandbox.');
      return undefined;
    }
    const set = currentProfiles();
    const doc = editor.document;
    const chosen = pickProfile(set, { languageId: doc.languageId, fileName: doc.fileName });
    if (!chosen) {
      const problems = set.issues.map((i) => `${i.key}: ${i.message}`);
      for (const p of problems) channel.appendLine(`[sandbox-runner] ${p}`);
      void vscode.window.showErrorMessage(
        `No valid sandbox profile runs ${doc.languageId} files; add one under sandboxRunner.profiles in your settings.`,
      );
      return undefined;
    }
    const { code, label } = snippetFrom(editor);
    const { profile } = chosen;
    const writer = new OutputWriter(channel);
    channel.show(true);
    channel.appendLine(
      `▶ ${label} · profile ${chosen.name} · image ${profile.image} · network ${profile.network === 'none' ? 'off' : 'ON'} · ` +
        `${profile.limits.memoryMiB} MiB, ${profile.limits.cpus} CPU, ${profile.limits.pids} pids, ${profile.limits.timeoutSeconds} s`,
    );

    const controller = new AbortController();
    const done = Promise.resolve(vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Sandbox: running ${label}`, cancellable: true },
      (_progress, token) => {
        token.onCancellationRequested(() => controller.abort());
        return runInSandbox({
          profileName: chosen.name,
          profile,
          code,
          sourceFileName: doc.fileName,
          signal: controller.signal,
          docker: { dockerPath: dockerPath() },
          onOutput: (_stream, text) => writer.write(text),
        });
      },
    ));
    runs.track(controller, done);
    const result = await done;
    writer.flush();
    channel.appendLine(`\n■ ${result.message}`);
    if (result.outcome === 'failed-to-start' || result.outcome === 'engine-error') {
      const action = await vscode.window.showErrorMessage(result.message, 'Show Output');
      if (action === 'Show Output') channel.show();
    }
    return result;
  };
}
