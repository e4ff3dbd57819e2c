/**
 * Notebook kernels (issue 24), the part loaded at activation: it waits for the first Jupyter
 * notebook (`jupyter-notebook`, VS Code's built-in ipynb support) of the window and only then
 * loads the notebook bundle (lazy.ts `notebook()`), which creates the "Sandbox (PROFILE)"
 * controllers. Activation itself adds one listener and one command here, nothing else.
 */
import * as vscode from 'vscode';
import { engine, notebook } from './lazy';
import type { NotebookKernels } from './notebookKernels';
import { JUPYTER_NOTEBOOK, type NotebookDeps } from './notebookType';

/** The toolbar's and the palette's Restart command (package.json). */
export const RESTART_KERNEL_COMMAND = 'sandboxRunner.restartNotebookKernel';

let kernels: NotebookKernels | undefined;

/**
 * Creates the kernels when a Jupyter notebook is open now or opens later (once), and registers
 * the Restart command (a no-op before any notebook opened: no session exists then).
 * Disposables go into `context.subscriptions`.
 */
export function registerNotebookKernels(context: vscode.ExtensionContext, deps: Omit<NotebookDeps, 'engine'>): void {
  const load = () => {
    if (kernels) return;
    kernels = new (notebook().NotebookKernels)({ ...deps, engine });
    context.subscriptions.push(kernels);
  };
  if (vscode.workspace.notebookDocuments.some((d) => d.notebookType === JUPYTER_NOTEBOOK)) load();
  else {
    const opened = vscode.workspace.onDidOpenNotebookDocument((d) => {
      if (d.notebookType !== JUPYTER_NOTEBOOK) return;
      opened.dispose();
      load();
    });
    context.subscriptions.push(opened);
  }
  context.subscriptions.push(vscode.commands.registerCommand(RESTART_KERNEL_COMMAND, (arg?: unknown) => kernels?.restartFromCommand(arg)));
}

/** Closes every notebook session and waits for their containers' removal (deactivate). */
export async function closeNotebookSessions(): Promise<void> {
  await kernels?.closeAll();
}

/** The notebook kernel status bar item's text while shown (API `notebookStatusText`). */
export function notebookStatusText(): string | undefined {
  return kernels?.statusText;
}
