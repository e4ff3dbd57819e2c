/**
 * The "notebook" bundle (dist/notebook.js, issue 24): the sandbox kernels of Jupyter notebooks
 * (notebookKernels.ts), their cell outputs (notebookOutputs.ts) and status bar item
 * (notebookStatus.ts). Activation does not load it: notebookEntry.ts requires it through lazy.ts
 * `notebook()` when the window's first `jupyter-notebook` document opens. Sessions themselves
 * are engine code, reached through `engine()`.
 */
export { NotebookKernels } from './notebookKernels';
