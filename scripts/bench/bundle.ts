/**
 * `bundle_bytes` and `bundle_total_bytes`, in bytes:
 * - bundle_bytes: the JavaScript loaded at activation, measured, not assumed: a fresh node process
 *   requires the activation bundle with a fake `vscode` and calls activate() (scripts/bench/activation.ts),
 *   then lists the .js files of the bundle's folder in `require.cache`; the figure is the sum of
 *   their sizes. A lazy bundle that activation loads after all is counted here.
 * - bundle_total_bytes: all JavaScript the extension may load: every .js output of the extension
 *   build (esbuild metafile written by `node esbuild.config.mjs --production --metafile=…`, as
 *   `npm run bench` does), every `!dist/*.js` line of .vscodeignore (what a package ships), and
 *   what activation loaded, in the bundle's folder. An extension bundle .vscodeignore does not
 *   ship is a MISS: the packaged extension would fail on first use.
 * Each file must be a minified `--production` build (flagged otherwise). The composition lines
 * come from the same metafile: per bundle, its largest packages and modules.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { measureActivation } from './activation';
import type { Row } from './stats';
import { targetText, verdictFor } from './targets';

/** Where `npm run bench` asks esbuild.config.mjs to write the extension build's metafile. */
export const METAFILE = 'out/bench/extension-meta.json';

interface Metafile {
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}

function readMeta(): Metafile | undefined {
  try {
    return JSON.parse(readFileSync(METAFILE, 'utf8')) as Metafile;
  } catch {
    return undefined;
  }
}

/** Names (e.g. "engine.js") of the dist/*.js files .vscodeignore ships. */
function shippedNames(): string[] {
  try {
    return readFileSync('.vscodeignore', 'utf8').split('\n').map((l) => l.trim()).flatMap((l) => {
      const m = /^!dist\/([^/*]+\.js)$/.exec(l);
      // dist/cli.js ships for the MCP server definition (issue 14): VS Code starts it as a process
      // of its own (`node dist/cli.js --mcp`); the extension host never loads it.
      return m && m[1] !== 'cli.js' ? [m[1]!] : [];
    });
  } catch {
    return [];
  }
}

/**
 * The extension's other bundles beside `bundle` (absolute paths of existing files): the build's
 * .js outputs and what .vscodeignore ships, minus `bundle` itself.
 */
export function lazyBundles(bundle: string): string[] {
  const dir = dirname(resolve(bundle));
  const meta = readMeta();
  const names = new Set([...(meta ? Object.keys(meta.outputs).filter((f) => f.endsWith('.js')).map((f) => basename(f)) : []), ...shippedNames()]);
  names.delete(basename(bundle));
  return [...names].sort().map((n) => join(dir, n)).filter((f) => existsSync(f));
}

/** Minified output averages thousands of characters per line; a source map comment means a development build. */
function isProduction(file: string): boolean {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length;
  return !text.includes('//# sourceMappingURL=') && text.length / lines > 400;
}

/** Package (node_modules/x, zod split by folder) or src/<dir> of a metafile input path. */
function groupOf(file: string): string {
  const parts = file.split('/');
  const nm = parts.lastIndexOf('node_modules');
  if (nm < 0) return parts.slice(0, 3).join('/');
  const pkg = parts[nm + 1]!.startsWith('@') ? parts.slice(nm + 1, nm + 3).join('/') : parts[nm + 1]!;
  return pkg === 'zod' ? `zod/${parts.slice(nm + 2, nm + 4).join('/')}` : pkg;
}

function composition(meta: Metafile): string[] {
  const out: string[] = ['bundle composition (esbuild metafile of the --production build, bytes in output):'];
  for (const [file, o] of Object.entries(meta.outputs)) {
    if (!file.endsWith('.js')) continue;
    const by = new Map<string, number>();
    for (const [input, v] of Object.entries(o.inputs)) by.set(groupOf(input), (by.get(groupOf(input)) ?? 0) + v.bytesInOutput);
    const top = [...by.entries()].filter(([, v]) => v > 0).sort((x, y) => y[1] - x[1]).slice(0, 8);
    out.push(`  ${file}: ${o.bytes.toLocaleString('en-US')} bytes`, ...top.map(([k, v]) => `    ${String(v).padStart(7)}  ${k}`));
  }
  return out;
}

/**
 * The bundle rows. `bundle` is the activation bundle (default dist/extension.js).
 * @returns the two figures (NaN when not measurable)
 */
export async function benchBundle(bundle: string, rows: Row[], extra: string[]): Promise<{ bytes: number; totalBytes: number }> {
  if (!existsSync(bundle)) {
    rows.push({ metric: 'bundle at activation', ours: '-', raw: '-', figure: 'missing', target: targetText('bundle_bytes'), verdict: 'ERROR', note: `(${bundle} missing: run node esbuild.config.mjs --production)` });
    return { bytes: NaN, totalBytes: NaN };
  }
  const dir = dirname(resolve(bundle));
  let loaded: string[] = [resolve(bundle)];
  let loadNote = '';
  try {
    const [sample] = await measureActivation(resolve(bundle), process.cwd(), 1, 0);
    if (sample) loaded = [...sample.loaded];
  } catch (e) {
    loadNote = `; activation failed (${String(e).split('\n')[0]}), counted the bundle file only`;
  }
  const meta = readMeta();
  const built = meta ? Object.keys(meta.outputs).filter((f) => f.endsWith('.js')).map((f) => basename(f)) : [];
  const shipped = shippedNames();
  const all = [...new Set([...loaded.map((f) => basename(f)), ...built, ...shipped])].sort();
  const size = (name: string) => (existsSync(join(dir, name)) ? statSync(join(dir, name)).size : NaN);
  const bytes = loaded.reduce((s, f) => s + statSync(f).size, 0);
  const totalBytes = all.reduce((s, n) => s + size(n), 0);
  const notProduction = all.filter((n) => existsSync(join(dir, n)) && !isProduction(join(dir, n)));
  const missing = all.filter((n) => !existsSync(join(dir, n)));
  const unshipped = built.filter((n) => !shipped.includes(n));
  const prodNote = notProduction.length ? ` NOT a --production build: ${notProduction.join(', ')}; run node esbuild.config.mjs --production first.` : '';
  rows.push({
    metric: 'bundle: JS loaded at activation (bytes)', ours: bytes.toLocaleString('en-US'), raw: '-', figure: `${bytes} bytes`, target: targetText('bundle_bytes'),
    verdict: notProduction.length ? 'MISS' : verdictFor('bundle_bytes', bytes),
    note: `(${loaded.map((f) => `${basename(f)} ${size(basename(f))}`).join(' + ')}, as loaded by require + activate()${loadNote})${prodNote}`,
  });
  rows.push({
    metric: 'bundle: all JS the extension may load (bytes)', ours: totalBytes.toLocaleString('en-US'), raw: '-', figure: `${totalBytes} bytes`, target: targetText('bundle_total_bytes'),
    verdict: notProduction.length || missing.length || unshipped.length ? 'MISS' : verdictFor('bundle_total_bytes', totalBytes),
    note: `(${all.map((n) => `${n} ${size(n)}`).join(' + ')}${missing.length ? `; MISSING: ${missing.join(', ')}` : ''}${unshipped.length ? `; built but not shipped by .vscodeignore: ${unshipped.join(', ')}` : ''}${meta ? '' : `; no ${METAFILE}: lazy bundles counted from .vscodeignore only`})`,
  });
  extra.push(...(meta ? composition(meta) : [`(no ${METAFILE}: run npm run bench, or node esbuild.config.mjs --production --metafile=${METAFILE}, for the composition)`]));
  return { bytes, totalBytes };
}

