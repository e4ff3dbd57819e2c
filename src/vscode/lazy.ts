/**
 * Lazy loading of the extension's secondary bundles. VS Code loads extensions as CommonJS, and
 * esbuild's code splitting needs ESM, so esbuild.config.mjs emits each secondary bundle as its own
 * entry point beside dist/extension.js, and this module `require`s it on first use (synchronously:
 * a run, a sweep or a check can start in the same tick). Modules two bundles need are taken from
 * the bundle loaded first (sharedModules.ts, engineShared.ts, depsShared.ts) rather than copied;
 * values cross the seam as plain data, and errors are recognised by `isSandboxError`'s
 * `Symbol.for` brand, never by `instanceof`. A bundle that
 * takes modules from another lazy bundle (esbuild.config.mjs `LAZY_BUNDLES[…].from`) is loaded
 * after it, through its loader here, so that `engineLoaded()` stays true to what ran.
 *
 * The `require` paths are literal and marked external in esbuild.config.mjs (`LAZY_BUNDLES`), and
 * .vscodeignore ships every dist/*.js bundle, so a packaged extension finds them.
 */
import type * as AgentModule from './agentModule';
import type * as DepsModule from './depsModule';
import type * as EngineModule from './engineModule';
import type * as MarkdownModule from './markdownModule';
import type * as NotebookModule from './notebookModule';
import type * as RerunModule from './rerunModule';

/** Once-only loader: calls `load` on the first call and caches its value (or rethrows its error each time). */
export function once<T>(load: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: load() }).v;
}

/**
 * The engine bundle (dist/engine.js, built from src/vscode/engineModule.ts): runner, warm pool,
 * orphan sweep and engine check.
 * @throws Error (MODULE_NOT_FOUND) when dist/engine.js is missing, i.e. a broken install or build
 */
export const engine = once(() => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const m = require('./engine.js') as typeof EngineModule;
  engineWasLoaded = true;
  return m;
});

let engineWasLoaded = false;

/**
 * True once the engine bundle is loaded. Every container of this window is created through it,
 * so before that there is nothing of this window to remove (deactivate need not load it).
 */
export function engineLoaded(): boolean {
  return engineWasLoaded;
}

/**
 * The Markdown bundle (dist/markdown.js, built from src/vscode/markdownModule.ts): the fence
 * scanner and alias table behind the code-block lenses, loaded when a Markdown document first
 * asks for lenses (issue 12).
 * @throws Error (MODULE_NOT_FOUND) when dist/markdown.js is missing, i.e. a broken install or build
 */
export const markdown = once(() => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./markdown.js') as typeof MarkdownModule;
});

/**
 * The re-run bundle (dist/rerun.js, built from src/vscode/rerunModule.ts): program-argument
 * splitting, copied command lines, recent runs' output documents (issue 12).
 * @throws Error (MODULE_NOT_FOUND) when dist/rerun.js is missing, i.e. a broken install or build
 */
export const rerun = once(() => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./rerun.js') as typeof RerunModule;
});

/**
 * The notebook bundle (dist/notebook.js, built from src/vscode/notebookModule.ts): the sandbox
 * kernels of Jupyter notebooks (issue 24), loaded when a `jupyter-notebook` document first opens.
 * Its sessions come from the engine bundle (`engine()`), which it loads on a cell's first run.
 * @throws Error (MODULE_NOT_FOUND) when dist/notebook.js is missing, i.e. a broken install or build
 */
export const notebook = once(() => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./notebook.js') as typeof NotebookModule;
});

/**
 * The dependencies bundle (dist/deps.js, built from src/vscode/depsModule.ts, issue 22): declared
 * dependencies, their consent facts and install, the requires-python check, the missing-module
 * Quick Fix and the cache prune. It takes engine code from the engine bundle, loaded first.
 * @throws Error (MODULE_NOT_FOUND) when dist/deps.js or dist/engine.js is missing, i.e. a broken install or build
 */
export const deps = once(() => {
  engine();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./deps.js') as typeof DepsModule;
});

/**
 * The agent bundle (dist/agent.js, built from src/vscode/agentModule.ts, issues 14 and 24): the
 * language model tools, loaded on their first call. It takes code from the engine and
 * dependencies bundles, loaded first.
 * @throws Error (MODULE_NOT_FOUND) when dist/agent.js (or a bundle it takes code from) is missing
 */
export const agent = once(() => {
  deps();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./agent.js') as typeof AgentModule;
});
