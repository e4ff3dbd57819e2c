/**
 * Notebook kernels (issue 24), the part loaded at activation: it waits for the first Jupyter
 * notebook (`jupyter-notebook`, VS Code's built-in ipynb support) of the window and only then
 * loads the notebook bundle (lazy.ts `notebook()`), which creates the "Sandbox (PROFILE)"
 * controllers and registers the Restart command (package.json shows it only for a sandbox
 * kernel, which exists only then). Activation adds one listener here, nothing else.
 */
import * as vscode from 'vscode';
import { engine, notebook } from './lazy';
import type { NotebookKernels } from './notebookKernels';
import { JUPYTER_NOTEBOOK, type NotebookDeps } from './notebookType';

let kernels: NotebookKernels | undefined;

/** Creates the kernels when a Jupyter notebook is open now or opens later (once); disposables go into `context.subscriptions`. */
export function registerNotebookKernels(context: vscode.ExtensionContext, deps: Omit<NotebookDeps, 'engine'>): void {
  const load = (d: vscode.NotebookDocument) => {
    if (kernels || d.notebookType !== JUPYTER_NOTEBOOK) return;
    context.subscriptions.push((kernels = new (notebook().NotebookKernels)({ ...deps, engine })));
  };
  vscode.workspace.notebookDocuments.forEach(load);
  context.subscriptions.push(vscode.workspace.onDidOpenNotebookDocument(load));
}

/** The kernels once a Jupyter notebook opened (deactivate closes their sessions; the API reads the status bar text). */
export function notebookKernels(): NotebookKernels | undefined {
  return kernels;
}
