/**
 * The extension's `main` (package.json, dist/extensionLoader.js): at activation it loads the
 * activation bundle (dist/extension.js, from src/extension.ts) through V8's code cache
 * (core/codeCache.ts) and hands `activate` and `deactivate` on to it.
 *
 * Compiling dist/extension.js was about half of `require` + `activate()` (`npm run bench`
 * activation_ms: require 15–20 ms without the cache, 8–10 ms with it, on a loaded 2-core machine),
 * and VS Code's server gives extensions no code cache of its own. The cache lives in the
 * extension's global storage (`ExtensionContext.globalStorageUri`, `code-cache/`, mode 0700: the
 * user's own, as trusted as the extension's files). It is written once per build: 5 s after an
 * activation that compiled without it (by then it holds what activation and the first commands
 * compiled; the timer never keeps the extension host alive), or at `deactivate` if that comes
 * first. dist/extension.js is registered in Node's module cache under its real path, so the lazy
 * bundles' `require('./extension.js')` (esbuild.config.mjs `PROVIDERS`) get this very instance.
 * `SANDBOX_RUNNER_NO_CODE_CACHE=1` in the extension host's environment turns the cache off.
 * No `vscode` import (types only).
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { compileWithCodeCache, type CompiledBundle } from './core/codeCache';

/** How long after activation the cache is written (ms). */
const SAVE_DELAY_MS = 5_000;

/** The activation bundle's exports (src/extension.ts). */
interface ActivationBundle {
  activate(context: vscode.ExtensionContext): unknown;
  deactivate(): Promise<void>;
}

let bundle: CompiledBundle | undefined;
let main: ActivationBundle | undefined;
let saveTimer: NodeJS.Timeout | undefined;

/** VS Code's `activate`: loads dist/extension.js (with the code cache) and returns what its `activate` returns (the extension's API). */
export function activate(context: vscode.ExtensionContext): unknown {
  const storage = process.env.SANDBOX_RUNNER_NO_CODE_CACHE === '1' ? undefined : context.globalStorageUri?.fsPath;
  bundle = compileWithCodeCache(realpathSync(join(__dirname, 'extension.js')), storage ? join(storage, 'code-cache') : undefined);
  main = bundle.run() as ActivationBundle;
  if (!bundle.used) saveTimer = setTimeout(() => bundle?.save(), SAVE_DELAY_MS).unref();
  return main.activate(context);
}

/** VS Code's `deactivate`: writes the cache if it is still due, then the bundle's `deactivate`. */
export async function deactivate(): Promise<void> {
  clearTimeout(saveTimer);
  bundle?.save();
  await main?.deactivate();
}
