// Bundles the extension, the CLI and the mocha suites with esbuild.
// Everything is emitted as CommonJS for Node 20 (execa 9 is ESM-only; bundling removes the
// ESM/CJS seam). `vscode` stays external: the extension host provides it at run time.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const production = process.argv.includes('--production');
const common = {
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
};

/** Test files are bundled one by one so mocha can load them as plain CommonJS. */
function testEntries(dir) {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.test.ts')).map((f) => join(dir, f));
  } catch {
    return [];
  }
}

await Promise.all([
  build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' }),
  build({
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    banner: { js: '#!/usr/bin/env node' },
  }),
  build({
    ...common,
    minify: false,
    sourcemap: true,
    entryPoints: [...testEntries('test/unit'), ...testEntries('test/engine')],
    outdir: 'out/test',
    outbase: 'test',
  }),
]);
