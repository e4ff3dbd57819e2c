'use strict';
// The activation row's probe: `node activationProbe.js BUNDLE EXTENSION_PATH [LAZY…]` maps `vscode` to
// test/support/vscodeFake.js and prints one JSON line: { ok, requireMs, activateMs, totalMs, subscriptions,
// loaded, lazyMs } (ActivationSample in activation.ts) or { ok: false, error }.
const Module = require('module');
const path = require('path');
const { performance } = require('perf_hooks');
const FAKE = path.resolve(__dirname, '../../test/support/vscodeFake.js');

async function probe([bundle, extensionPath, ...lazyBundles]) {
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? FAKE : resolve.call(this, request, ...rest); };
  const ctx = require(FAKE).context(extensionPath); // untimed
  const t0 = performance.now();
  const ext = require(bundle);
  const t1 = performance.now();
  await ext.activate(ctx);
  const t2 = performance.now();
  // After the work activate() defers by setImmediate (untimed), before any timer: the .js files beside
  // the bundle it loaded, then what a first use pays once: require of each lazy bundle.
  await new Promise((r) => setImmediate(r));
  const loaded = Object.keys(require.cache).filter((f) => path.dirname(f) === path.dirname(path.resolve(bundle)) && f.endsWith('.js'));
  const t3 = performance.now();
  for (const b of lazyBundles) require(b);
  return { ok: true, requireMs: t1 - t0, activateMs: t2 - t1, totalMs: t2 - t0, subscriptions: ctx.subscriptions.length, loaded, lazyMs: performance.now() - t3 };
}

probe(process.argv.slice(2))
  .catch((e) => ({ ok: false, error: String((e && e.stack) || e) }))
  .then((r) => process.stdout.write(`${JSON.stringify(r)}\n`))
  .finally(() => process.exit(0));
