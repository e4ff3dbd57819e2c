// Bundles the extension, the CLI and the mocha suites with esbuild.
// Everything is emitted as CommonJS for Node 20 (execa 9 is ESM-only; bundling removes the
// ESM/CJS seam). `vscode` stays external: the extension host provides it at run time.
//
// The extension is several bundles: dist/extension.js is what activation loads (through
// dist/extensionLoader.js, package.json `main`, which gives it V8's code cache); each entry of
// LAZY_BUNDLES is a bundle of its own that src/vscode/lazy.ts `require`s on first use (esbuild's
// code splitting needs ESM, and VS Code loads extensions as CommonJS). Their `require('./x.js')`
// paths stay external. The build fails when a module that must stay lazy (ACTIVATION_FORBIDDEN)
// lands in dist/extension.js again, and prints each bundle's size.
//
// Options: --production (minified, no source maps), --metafile=PATH (esbuild's metafile of the
// extension bundles, for `npm run bench`'s composition lines).
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const production = process.argv.includes('--production');
const metafileOut = process.argv.find((a) => a.startsWith('--metafile='))?.slice('--metafile='.length);

/**
 * Bundles that serve modules to later lazy bundles: output file name → the file whose `SHARED` map
 * (exported by the bundle as `__shared`) lists them. Its keys are read here.
 */
const PROVIDERS = {
  'extension.js': 'src/vscode/sharedModules.ts',
  'engine.js': 'src/vscode/engineShared.ts',
  'deps.js': 'src/vscode/depsShared.ts',
};
/**
 * Bundles loaded lazily by the extension: output file name in dist/ → its entry point and the
 * bundles (PROVIDERS) it takes shared modules from, first match first. lazy.ts loads those before it.
 */
const LAZY_BUNDLES = {
  'engine.js': { entry: 'src/vscode/engineModule.ts', from: ['extension.js'] },
  'markdown.js': { entry: 'src/vscode/markdownModule.ts', from: ['extension.js'] },
  'rerun.js': { entry: 'src/vscode/rerunModule.ts', from: ['extension.js'] },
  'notebook.js': { entry: 'src/vscode/notebookModule.ts', from: ['extension.js'] },
  'deps.js': { entry: 'src/vscode/depsModule.ts', from: ['extension.js', 'engine.js'] },
  'agent.js': { entry: 'src/vscode/agentModule.ts', from: ['extension.js', 'engine.js', 'deps.js'] },
  // zod mini (src/core/zod.ts), required by src/core/zodLoader.ts on the first validation (plugin zodApart).
  'zod.js': { entry: 'src/core/zod.ts', from: [] },
};
/**
 * What must never be part of the activation bundle (it belongs in a lazy bundle), keyed by folder,
 * package and entry, never by file, so a file moved inside a folder stays covered:
 * - core folders whose every module runs only after activation: the runner (run/), the orphan
 *   sweep (sweep/), the agent's core (agent/) and dependency installs (deps/, issue 22);
 * - packages of engine and Markdown code: execa (every engine CLI call, engine/cli.ts), shell-quote,
 *   markdown-it and its dependencies, smol-toml (PEP 723 blocks);
 * - the lazy bundles' own entries (LAZY_BUNDLES).
 */
const ACTIVATION_FORBIDDEN = [
  /^src\/core\/(?:run|sweep|agent|deps)\//,
  /node_modules\/(?:execa|shell-quote|markdown-it|entities|linkify-it|mdurl|uc\.micro|punycode\.js|smol-toml|zod)\//,
  ...Object.values(LAZY_BUNDLES).map(({ entry }) => new RegExp(`^${entry.replace(/[.]/g, '\\.')}$`)),
];
/** What the engine bundle must not hold either: the dependencies' and the agent's bundles (issue 26). */
const ENGINE_FORBIDDEN = [
  /^src\/core\/(?:agent|deps)\//,
  /node_modules\/smol-toml\//,
  /^src\/vscode\/agent(?:Tool|SessionTool)\.ts$/,
];

/**
 * esbuild plugin: markdown-it imports `decodeHTML` from the `entities` package's index, which also
 * pulls in its HTML encoder tables (~23 KB minified) that no bundle calls and esbuild cannot drop
 * (top-level table code). The import resolves to the package's own decoder module instead, which
 * defines the same `decodeHTML` (`entities/lib/decode.js`, a subpath the package exports); the version is pinned by
 * package-lock.json, and a missing file fails the build.
 */
const entitiesDecoderOnly = {
  name: 'entities-decoder-only',
  setup(b) {
    b.onResolve({ filter: /^entities$/ }, (args) => b.resolve('entities/lib/decode.js', { kind: args.kind, resolveDir: args.resolveDir }));
  },
};

/**
 * esbuild plugin: every `import * as vscode from 'vscode'` of a bundle shares one namespace object.
 * esbuild turns each such import of an external CommonJS module into its own
 * `__toESM(require('vscode'))`, which defines a getter for every property of VS Code's API object
 * (a few hundred) once per importing file: 24 files at activation, about 64 ms with 450 properties
 * measured on a 2-core machine under load (issue 26). Resolved to one virtual
 * `export * from 'vscode'` module instead, a bundle copies the API's property list once.
 */
const vscodeOnce = {
  name: 'vscode-once',
  setup(b) {
    b.onResolve({ filter: /^vscode$/ }, (args) => (args.namespace === 'vscode-once' ? { path: 'vscode', external: true } : { path: 'vscode', namespace: 'vscode-once' }));
    b.onLoad({ filter: /.*/, namespace: 'vscode-once' }, () => ({ contents: "export * from 'vscode';", loader: 'js' }));
  },
};

/**
 * esbuild plugin for the extension's bundles: every import of src/core/zod.ts (zod mini) becomes
 * `require('./zod.js')`, a lazy bundle of its own (LAZY_BUNDLES). At activation only
 * src/core/zodLoader.ts refers to it, inside a function, so zod loads on the first validation; the
 * activation bundle carries none of zod's 27 KB, and every bundle shares one zod instance. The CLI
 * and the tests bundle zod as usual.
 */
const ZOD_MODULE = join(process.cwd(), 'src', 'core', 'zod.ts');
const zodApart = {
  name: 'zod-apart',
  setup(b) {
    b.onResolve({ filter: /(?:^|\/)zod$/ }, (args) =>
      args.kind !== 'entry-point' && args.path.startsWith('.') && join(args.resolveDir, `${args.path}.ts`) === ZOD_MODULE ? { path: './zod.js', external: true } : undefined,
    );
  },
};

const common = {
  plugins: [vscodeOnce, entitiesDecoderOnly],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  external: ['vscode'],
  logLevel: 'warning',
  // Prefer ESM entry points: jsonc-parser's UMD build uses dynamic requires esbuild cannot follow.
  mainFields: ['module', 'main'],
  // Non-ASCII text (…, →, ·) as UTF-8 instead of \uXXXX escapes: Node and VS Code read the bundles
  // as UTF-8, and the escapes cost bytes of the bench's JavaScript budget.
  charset: 'utf8',
};

/** Test files (and mocha root hook plugins, `*.hooks.ts`) are bundled one by one so mocha can load them as plain CommonJS. */
function testEntries(dir) {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.test.ts') || f.endsWith('.hooks.ts')).map((f) => join(dir, f));
  } catch {
    return [];
  }
}

/**
 * Removes bundles in out/test/<dir> whose test file is gone (renamed or deleted), so that mocha's
 * `out/test/engine/*.test.js` never runs a stale copy of a removed suite (e.g. zz-leftovers).
 */
function removeStaleTestBundles(dir) {
  let built;
  try {
    built = readdirSync(join('out', dir));
  } catch {
    return;
  }
  for (const f of built) {
    const m = /^(.+\.(?:test|hooks))\.js(?:\.map)?$/.exec(f);
    if (m && !testEntries(dir).includes(join(dir, `${m[1]}.ts`))) rmSync(join('out', dir, f), { force: true });
  }
}
removeStaleTestBundles('test/unit');
removeStaleTestBundles('test/engine');

/**
 * What a provider bundle serves (PROVIDERS): repository paths of our modules (`src/…`) and
 * package names (`@vscode/l10n`: one instance, so the translations `activate` configures reach
 * the lazy bundles' text too), read from the keys of the provider's `SHARED` map.
 */
function sharedKeys(file) {
  return new Set([...readFileSync(file, 'utf8').matchAll(/^  (?:get )?'(src\/[^']+\.ts|@?[a-z][\w./-]*)'(?::|\(\))/gm)].map((m) => m[1]));
}

/**
 * esbuild plugin for a lazy bundle: an import that resolves to a module one of `providers` serves
 * becomes `require('./<provider>').__shared[path]` (lazy.ts loads the providers before this bundle,
 * and Node's module cache returns their instances) instead of a second copy of the module.
 */
function fromProviders(providers) {
  const served = providers.map((file) => ({ file, keys: sharedKeys(PROVIDERS[file]) }));
  const owner = (key) => served.find((p) => p.keys.has(key))?.file;
  return {
    name: 'from-providers',
    setup(b) {
      b.onResolve({ filter: /^[^.]/ }, (args) => (!args.path.startsWith('src/') && owner(args.path) ? { path: args.path, namespace: 'shared' } : undefined));
      b.onResolve({ filter: /^\./ }, async (args) => {
        if (args.pluginData === 'shared-check' || args.namespace !== 'file') return undefined;
        const r = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'shared-check' });
        const rel = r.path ? relative(process.cwd(), r.path).split('\\').join('/') : '';
        return owner(rel) ? { path: rel, namespace: 'shared' } : undefined;
      });
      // One module per provider holds its map; each shared module is an entry of it (shorter than a require per module).
      b.onResolve({ filter: /^provider:/ }, (args) => ({ path: args.path.slice('provider:'.length), namespace: 'provider' }));
      b.onLoad({ filter: /.*/, namespace: 'provider' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(`./${args.path}`)}).__shared;`, loader: 'js' }));
      b.onLoad({ filter: /.*/, namespace: 'shared' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(`provider:${owner(args.path)}`)})[${JSON.stringify(args.path)}];`,
        loader: 'js',
      }));
    },
  };
}

const lazyExternal = ['vscode', ...Object.keys(PROVIDERS).map((f) => `./${f}`), ...Object.keys(LAZY_BUNDLES).map((f) => `./${f}`)];
// dist/extensionLoader.js (package.json `main`) loads dist/extension.js through V8's code cache (src/extensionLoader.ts).
const activationBundle = { ...common, entryPoints: { extension: 'src/extension.ts', extensionLoader: 'src/extensionLoader.ts' }, outdir: 'dist', external: [...lazyExternal, './extension.js'], metafile: true, plugins: [...common.plugins, zodApart] };
/** One build per provider list (a plugin cannot tell which entry point imports a module). */
const lazyGroups = [...new Set(Object.values(LAZY_BUNDLES).map(({ from }) => from.join(',')))].map((key) => {
  const group = Object.entries(LAZY_BUNDLES).filter(([, { from }]) => from.join(',') === key);
  return {
    ...common,
    entryPoints: Object.fromEntries(group.map(([out, { entry }]) => [out.replace(/\.js$/, ''), entry])),
    outdir: 'dist',
    external: lazyExternal,
    metafile: true,
    plugins: [vscodeOnce, entitiesDecoderOnly, zodApart, fromProviders(key.split(',').filter(Boolean))],
  };
});

const [act, ...built] = await Promise.all([
  build(activationBundle),
  ...lazyGroups.map((g) => build(g)),
  // The CLI: dist/cli.js, a small entry that turns on V8's code cache (entry.ts) and loads
  // dist/cli-main.js, and the MCP server (the SDK is most of the CLI's code) as dist/cli-mcp.js,
  // which main.ts requires only for --mcp, so a plain `sandbox-run FILE` never parses it.
  build({
    ...common,
    entryPoints: ['src/cli/entry.ts'],
    outfile: 'dist/cli.js',
    external: [...common.external, './cli-main.js'],
    banner: { js: '#!/usr/bin/env node' },
  }),
  build({
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli-main.js',
    external: [...common.external, './cli-mcp.js'],
  }),
  build({
    ...common,
    entryPoints: ['src/cli/mcp.ts'],
    outfile: 'dist/cli-mcp.js',
  }),
  build({
    ...common,
    minify: false,
    sourcemap: true,
    // esbuild's API finds its binary relative to its own package: a test that bundles a fixture
    // must load it from node_modules.
    external: [...common.external, 'esbuild'],
    entryPoints: [...testEntries('test/unit'), ...testEntries('test/engine')],
    outdir: 'out/test',
    outbase: 'test',
  }),
]);

/** The extension's bundles as one metafile (the activation bundle's and the lazy bundles' builds). */
const lazy = built.slice(0, lazyGroups.length);
const ext = {
  metafile: {
    inputs: Object.assign({}, ...lazy.map((l) => l.metafile.inputs), act.metafile.inputs),
    outputs: Object.assign({}, act.metafile.outputs, ...lazy.map((l) => l.metafile.outputs)),
  },
};
/** Each provider's listed modules must be in its own bundle (else the lazy bundles would get `undefined`). */
const missing = Object.entries(PROVIDERS).flatMap(([file, list]) => {
  const inputs = Object.keys(ext.metafile.outputs[`dist/${file}`]?.inputs ?? {});
  return [...sharedKeys(list)].filter((p) => (p.startsWith('src/') ? !inputs.includes(p) : !inputs.some((i) => i.startsWith(`node_modules/${p}/`)))).map((p) => `${list}: ${p} (not in dist/${file})`);
});
if (missing.length > 0) {
  console.error(`esbuild.config.mjs: shared-module lists name modules their bundle does not hold:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}

if (metafileOut) {
  mkdirSync(dirname(metafileOut), { recursive: true });
  writeFileSync(metafileOut, JSON.stringify(ext.metafile));
}
// A module the barrel (src/core/index.ts) imports is listed even when tree shaking dropped its
// code; one top-level constant esbuild cannot prove pure may stay (sweep/reaper.ts keeps an
// 80-byte label list): only more than 1 KiB per forbidden pattern (summed over its files) counts.
const leaks = (file, forbidden) =>
  forbidden.flatMap((re) => {
    const bytes = Object.entries(ext.metafile.outputs[`dist/${file}`]?.inputs ?? {}).filter(([i]) => re.test(i)).reduce((n, [, v]) => n + v.bytesInOutput, 0);
    return bytes > 1024 ? [`${re.source.replace(/\\/g, '')} (${bytes} bytes)`] : [];
  });
const leaked = leaks('extension.js', ACTIVATION_FORBIDDEN);
if (leaked.length > 0) {
  console.error(
    `esbuild.config.mjs: dist/extension.js (loaded at activation) contains modules that must load lazily:\n  ${leaked.join('\n  ')}\n` +
      'Reach engine code through engine() in src/vscode/lazy.ts (type imports from ./core are fine).',
  );
  process.exit(1);
}
const engineLeaked = leaks('engine.js', ENGINE_FORBIDDEN);
if (engineLeaked.length > 0) {
  console.error(
    `esbuild.config.mjs: dist/engine.js (loaded by every run) contains the dependencies' or the agent's code:\n  ${engineLeaked.join('\n  ')}\n` +
      'Reach it through deps() or agent() in src/vscode/lazy.ts.',
  );
  process.exit(1);
}
const sizes = Object.entries(ext.metafile.outputs).filter(([f]) => f.endsWith('.js')).map(([f, o]) => `${f} ${o.bytes} bytes`);
if (production) console.log(`extension bundles: ${sizes.join(', ')}`);
