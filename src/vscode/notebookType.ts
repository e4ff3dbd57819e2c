/**
 * What the activation part (notebookEntry.ts) and the notebook bundle (notebookKernels.ts) of
 * the notebook kernels (issue 24) share: the notebook type and the dependencies activation passes.
 */
import type * as vscode from 'vscode';
import type { ConsentStore } from './consent';
import type * as EngineModule from './engineModule';
import type { SettingsCache } from './settings';

/** The notebook type of VS Code's built-in ipynb support (and of the Jupyter extension). */
export const JUPYTER_NOTEBOOK = 'jupyter-notebook';

/** What the kernels need from activation. */
export interface NotebookDeps {
  readonly log: vscode.LogOutputChannel;
  /** Extra host paths no mount may touch (the extension's own storage). */
  readonly protectedPaths: readonly string[];
  readonly consents: ConsentStore;
  readonly settings: SettingsCache;
  /** The engine bundle (lazy.ts `engine()`): sessions and the profile check. */
  readonly engine: () => typeof EngineModule;
}
