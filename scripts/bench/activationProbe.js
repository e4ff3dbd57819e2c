'use strict';
// `node activationProbe.js BUNDLE EXTENSION_PATH [LAZY…]`: `vscode` is test/support/vscodeFake.js; prints
// one JSON line, an ActivationSample (activation.ts) with `ok: true`, or { ok: false, error }.
// The context's global storage is out/bench/global-storage, kept between probes as VS Code keeps
// it between windows (the loader's code cache lives there), and each probe ends with deactivate()
// as a window's extension host does.
const Module = require('module');
const path = require('path');
const { performance } = require('perf_hooks');
const FAKE = path.resolve(__dirname, '../../test/support/vscodeFake.js');

/**
 * Gives the fake as many top-level properties as VS Code's API object has (its classes, enums and
 * namespaces in @types/vscode; VS Code adds proposed ones): what a bundle does per property of the
 * API (esbuild's `__toESM`/`__reExport` copy them) then costs what it costs in VS Code.
 */
function padToApiSize(api) {
  const dts = require('fs').readFileSync(require.resolve('@types/vscode/index.d.ts'), 'utf8');
  const names = [...dts.matchAll(/^\texport (?:class|enum|namespace|const|function) (\w+)/gm)].map((m) => m[1]);
  for (const n of names) if (!(n in api)) api[n] = function () {};
}

async function probe([bundle, extensionPath, ...lazyBundles]) {
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? FAKE : resolve.call(this, request, ...rest); };
  const ctx = require(FAKE).context(extensionPath); // untimed
  const storage = path.join(extensionPath, 'out', 'bench', 'global-storage');
  require('fs').mkdirSync(storage, { recursive: true });
  ctx.globalStorageUri = { fsPath: storage, path: storage, scheme: 'file', toString: () => `file://${storage}` };
  padToApiSize(require(FAKE));
  const t0 = performance.now();
  const ext = require(bundle);
  const t1 = performance.now();
  await ext.activate(ctx);
  const t2 = performance.now();
  // After activate()'s setImmediate work, before timers: the .js beside the bundle it loaded, then each lazy bundle's require.
  await new Promise((r) => setImmediate(r));
  const loaded = Object.keys(require.cache).filter((f) => path.dirname(f) === path.dirname(path.resolve(bundle)) && f.endsWith('.js'));
  const t3 = performance.now();
  for (const b of lazyBundles) require(b);
  const lazyMs = performance.now() - t3;
  await ext.deactivate?.();
  return { ok: true, requireMs: t1 - t0, activateMs: t2 - t1, totalMs: t2 - t0, subscriptions: ctx.subscriptions.length, loaded, lazyMs };
}

probe(process.argv.slice(2))
  .catch((e) => ({ ok: false, error: String((e && e.stack) || e) }))
  .then((r) => process.stdout.write(`${JSON.stringify(r)}\n`))
  .finally(() => process.exit(0));
