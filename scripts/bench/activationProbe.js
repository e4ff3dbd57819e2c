'use strict';
// `node activationProbe.js BUNDLE EXTENSION_PATH [LAZY…]`: `vscode` is test/support/vscodeFake.js; prints
// one JSON line, an ActivationSample (activation.ts) with `ok: true`, or { ok: false, error }.
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
  // After activate()'s setImmediate work, before timers: the .js beside the bundle it loaded, then each lazy bundle's require.
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
