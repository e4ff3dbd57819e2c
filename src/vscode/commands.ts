/**
 * Every command of the extension, each a factory over its dependencies; `registerCommands`
 * puts every registration into `context.subscriptions`.
 */
import * as vscode from 'vscode';
import type { RunResult } from '../core';
import { codeBlockRunTarget } from './codeBlockRun';
import type { ConsentStore } from './consent';
import type { EditorStop } from './editorStop';
import { reportNoEditor } from './failures';
import type { TreeNode } from './profileTree';
import { plainText } from './plainText';
import type { ProgramOutput } from './programOutput';
import type { RunController } from './runController';
import type { RunManager } from './runManager';
import { editorTarget, fileTarget, type Target } from './runTarget';
import { currentSettings, dockerOptions } from './settings';
import { deps } from './lazy';

/** What the extension's commands need. */
export interface CommandDeps {
  readonly runs: RunManager;
  /** Owns each run from request to result (./runController.ts). */
  readonly controller: RunController;
  readonly output: ProgramOutput;
  readonly refreshProfiles: () => Promise<void>;
  /** Consent for workspace profiles that loosen the sandbox. */
  readonly consents: ConsentStore;
  /** The editor title's stop button (issue 12). */
  readonly editorStop: EditorStop;
}

/**
 * Runs `target` through the run controller (profile by name, else the one for its language;
 * `interactive` default: the `sandboxRunner.interactive` setting). Resolves with the result, or
 * undefined when no run started. `args`: program arguments (issue 12; core `RunRequest.args`).
 */
export function execute(deps: CommandDeps, target: Target, profileName?: string, interactive?: boolean, args?: readonly string[]): Promise<RunResult | undefined> {
  return deps.controller.run(target, { profileName, interactive, args });
}

function isNode<K extends TreeNode['kind']>(arg: unknown, kind: K): arg is Extract<TreeNode, { kind: K }> {
  return typeof arg === 'object' && arg !== null && (arg as { kind?: unknown }).kind === kind;
}

async function noEditor(): Promise<undefined> {
  void reportNoEditor();
  return undefined;
}

/** Asks for a profile by name (Quick Pick); undefined when dismissed. */
async function pickProfileName(): Promise<string | undefined> {
  const settings = currentSettings();
  const picked = await vscode.window.showQuickPick(
    // Quick pick items render `$(icon)`: shown names are escaped, the pick carries the real one.
    settings.profiles.map((p) => ({
      name: p.name,
      label: plainText(p.name),
      description: plainText(`${p.source} · ${p.profile.image}`),
      detail: p.profile.network === 'none'
        ? vscode.l10n.t('network off · {0} MiB · {1} s', p.profile.limits.memoryMiB, p.profile.limits.timeoutSeconds)
        : vscode.l10n.t('network on · {0} MiB · {1} s', p.profile.limits.memoryMiB, p.profile.limits.timeoutSeconds),
    })),
    { title: vscode.l10n.t('Run in Sandbox with Profile'), placeHolder: vscode.l10n.t('Choose a sandbox profile') },
  );
  return picked?.name;
}

/** The run commands: each builds a Target (the editor's selection or document, or a file) and runs it. */
function runHandlers(deps: CommandDeps): Record<string, (...args: unknown[]) => unknown> {
  return {
    'sandboxRunner.run': async (arg?: unknown) => {
      if (arg instanceof vscode.Uri && arg.toString() !== vscode.window.activeTextEditor?.document.uri.toString()) {
        return execute(deps, await fileTarget(arg));
      }
      const target = editorTarget(false);
      return target ? execute(deps, target) : noEditor();
    },
    'sandboxRunner.runInteractive': async (arg?: unknown) => {
      if (arg instanceof vscode.Uri && arg.toString() !== vscode.window.activeTextEditor?.document.uri.toString()) {
        return execute(deps, await fileTarget(arg), undefined, true);
      }
      const target = editorTarget(false);
      return target ? execute(deps, target, undefined, true) : noEditor();
    },
    'sandboxRunner.runSelection': async () => {
      const target = editorTarget(false);
      return target ? execute(deps, target) : noEditor();
    },
    'sandboxRunner.runFile': async (arg?: unknown) => {
      if (arg instanceof vscode.Uri) return execute(deps, await fileTarget(arg));
      const target = editorTarget(true);
      return target ? execute(deps, target) : noEditor();
    },
    'sandboxRunner.runWithProfile': async (arg?: unknown) => {
      let name = typeof arg === 'string' ? arg : isNode(arg, 'profile') ? arg.summary.name : undefined;
      name ??= await pickProfileName();
      if (name === undefined) return undefined;
      const target = editorTarget(false);
      return target ? execute(deps, target, name) : noEditor();
    },
    // A Markdown code block's lens (issue 12): runs the block as a selection (codeBlockRun.ts).
    'sandboxRunner.runCodeBlock': async (uri?: unknown, fenceLine?: unknown) => {
      const target = await codeBlockRunTarget(uri, fenceLine);
      return target ? execute(deps, target) : undefined;
    },
  };
}

/** The cancel commands (a run by id or tree node; the only run; or one picked; an editor's runs). */
function cancelHandlers(runs: RunManager, editorStop: EditorStop): Record<string, (...args: unknown[]) => unknown> {
  return {
    'sandboxRunner.stopEditorRun': (arg?: unknown) => editorStop.stop(arg),
    'sandboxRunner.cancel': async (arg?: unknown) => {
      const id = typeof arg === 'string' ? arg : isNode(arg, 'run') ? arg.run.id : undefined;
      if (id !== undefined) return runs.cancel(id);
      const active = runs.active();
      if (active.length === 0) return false;
      if (active.length === 1) return runs.cancel(active[0]!.id);
      const all = { label: vscode.l10n.t('$(debug-stop) Cancel All'), id: '*' };
      const picked = await vscode.window.showQuickPick(
        [all, ...active.map((r) => ({ label: plainText(r.label), description: plainText(r.profileName), id: r.id }))],
        { title: vscode.l10n.t('Cancel Sandbox Run') },
      );
      if (!picked) return false;
      if (picked.id === '*') await runs.cancelAll();
      else runs.cancel(picked.id);
      return true;
    },
    'sandboxRunner.cancelAll': () => runs.cancelAll(),
  };
}

/** The view and settings commands. */
function viewHandlers(deps: CommandDeps): Record<string, (...args: unknown[]) => unknown> {
  return {
    'sandboxRunner.showOutput': () => deps.output.show(),
    'sandboxRunner.refreshProfiles': () => deps.refreshProfiles(),
    'sandboxRunner.revokeConsents': () => deps.consents.revokeAll(),
    'sandboxRunner.revokeInstallConsents': () => deps.consents.revokeInstalls(),
    'sandboxRunner.clearDependencyCache': () => clearDependencyCache(),
    'sandboxRunner.openProfileSetting': async (arg?: unknown) => {
      const source = isNode(arg, 'profile') ? arg.summary.source : 'user';
      const command = source === 'workspace' ? 'workbench.action.openWorkspaceSettingsFile' : 'workbench.action.openSettingsJson';
      if (source === 'built-in') return vscode.commands.executeCommand('workbench.action.openSettings', 'sandboxRunner.profiles');
      return vscode.commands.executeCommand(command);
    },
  };
}

/**
 * "Clear Dependency Cache" (issue 22): removes every installed dependency set of the engine in use
 * that no container uses (core prune.ts `pruneDependencySets`, as `sandbox-run --prune-deps`) and
 * says how many volumes went and how many were kept (in use). Resolves with that report.
 */
async function clearDependencyCache(): Promise<{ removed: readonly string[]; kept: readonly { name: string; reason: string }[] } | undefined> {
  try {
    const report = await deps().pruneDependencySets(dockerOptions());
    void vscode.window.showInformationMessage(
      report.kept.length === 0
        ? vscode.l10n.t('Dependency cache cleared: {0} volumes removed.', report.removed.length)
        : vscode.l10n.t('Dependency cache: {0} volumes removed, {1} kept because a run or an install is using them.', report.removed.length, report.kept.length),
    );
    return report;
  } catch (e) {
    void vscode.window.showErrorMessage(vscode.l10n.t('The dependency cache was not cleared: {0}', e instanceof Error ? e.message : String(e)));
    return undefined;
  }
}

/** Registers every command; all disposables go into `context.subscriptions`. */
export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const handlers = { ...runHandlers(deps), ...cancelHandlers(deps.runs, deps.editorStop), ...viewHandlers(deps) };
  for (const [id, handler] of Object.entries(handlers)) {
    context.subscriptions.push(vscode.commands.registerCommand(id, handler));
  }
}
