/**
 * `bundle_bytes`: the .js files beside the activation bundle that require + activate() really
 * loaded (scripts/bench/vscodeStub.js, one fresh process). `bundle_total_bytes`: every .js the
 * extension may load: the extension build's outputs (esbuild metafile that `npm run bench`
 * writes), the `!dist/*.js` lines of .vscodeignore, and what activation loaded. A build that is
 * not minified (`--production`), or an extension bundle .vscodeignore does not ship, is a MISS.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { probeActivation } from './activation';
import type { Ctx, Figures } from './harness';
import { targetText, verdictFor } from './targets';

const METAFILE = 'out/bench/extension-meta.json';
type Metafile = { outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }> };

function readMeta(): Metafile | undefined {
  return existsSync(METAFILE) ? (JSON.parse(readFileSync(METAFILE, 'utf8')) as Metafile) : undefined;
}

/** Names of the extension's .js bundles: the build's outputs and what .vscodeignore ships (not cli.js, `sandbox-run`, a program of its own). */
function bundleNames(meta = readMeta()): { built: string[]; shipped: string[] } {
  const built = Object.keys(meta?.outputs ?? {}).filter((f) => f.endsWith('.js')).map((f) => basename(f));
  const lines = existsSync('.vscodeignore') ? readFileSync('.vscodeignore', 'utf8').split('\n') : [];
  const shipped = lines.flatMap((l) => /^!dist\/([^/*]+\.js)$/.exec(l.trim())?.[1] ?? []).filter((n) => n !== 'cli.js');
  return { built, shipped };
}

/** Absolute paths of the existing bundles beside `bundle`, other than itself. */
export function lazyBundles(bundle: string): string[] {
  const { built, shipped } = bundleNames();
  const names = [...new Set([...built, ...shipped])].filter((n) => n !== basename(bundle)).sort();
  return names.map((n) => join(dirname(bundle), n)).filter((f) => existsSync(f));
}

/** Minified output averages thousands of characters per line; a source map comment means a development build. */
function isProduction(file: string): boolean {
  const text = readFileSync(file, 'utf8');
  return !text.includes('//# sourceMappingURL=') && text.length / text.split('\n').length > 400;
}

/** A metafile input's group: its package (node_modules/x, zod by folder) or its src folder. */
function groupOf(file: string): string {
  const p = file.split('/');
  const nm = p.lastIndexOf('node_modules');
  if (nm < 0) return p.slice(0, 3).join('/');
  const pkg = p[nm + 1]!.startsWith('@') ? p.slice(nm + 1, nm + 3).join('/') : p[nm + 1]!;
  return pkg === 'zod' ? `zod/${p.slice(nm + 2, nm + 4).join('/')}` : pkg;
}

/** Per .js output of the metafile: its size and its 8 largest groups. */
function composition(meta: Metafile): string[] {
  const out = ['bundle composition (esbuild metafile of the --production build, bytes in output):'];
  for (const [file, o] of Object.entries(meta.outputs).filter(([f]) => f.endsWith('.js'))) {
    const by = new Map<string, number>();
    for (const [input, v] of Object.entries(o.inputs)) by.set(groupOf(input), (by.get(groupOf(input)) ?? 0) + v.bytesInOutput);
    const top = [...by.entries()].filter(([, v]) => v > 0).sort((x, y) => y[1] - x[1]).slice(0, 8);
    out.push(`  ${file}: ${o.bytes.toLocaleString('en-US')} bytes`, ...top.map(([k, v]) => `    ${String(v).padStart(7)}  ${k}`));
  }
  return out;
}

export async function bundle(ctx: Ctx): Promise<Figures> {
  const dir = dirname(ctx.bundle);
  if (!existsSync(ctx.bundle)) {
    ctx.rows.push({ metric: 'bundle at activation', ours: '-', raw: '-', figure: 'missing', target: targetText('bundle_bytes'), verdict: 'ERROR', note: `(${ctx.bundle} missing: run node esbuild.config.mjs --production)` });
    return {};
  }
  const loaded: { files: readonly string[]; note: string } = await probeActivation(ctx.bundle, 1, 0).then(([s]) => ({ files: s!.loaded, note: '' }), (e: unknown) => ({ files: [ctx.bundle], note: `; activation failed (${String(e).split('\n')[0]}), counted the bundle file only` }));
  const meta = readMeta();
  const { built, shipped } = bundleNames(meta);
  const all = [...new Set([...loaded.files.map((f) => basename(f)), ...built, ...shipped])].sort();
  const size = (n: string) => (existsSync(join(dir, n)) ? statSync(join(dir, n)).size : NaN);
  const bytes = loaded.files.reduce((s, f) => s + size(basename(f)), 0);
  const totalBytes = all.reduce((s, n) => s + size(n), 0);
  const notProduction = all.filter((n) => existsSync(join(dir, n)) && !isProduction(join(dir, n)));
  const missing = all.filter((n) => !existsSync(join(dir, n)));
  const unshipped = built.filter((n) => !shipped.includes(n));
  const prodNote = notProduction.length ? ` NOT a --production build: ${notProduction.join(', ')}; run node esbuild.config.mjs --production first.` : '';
  ctx.rows.push({
    metric: 'bundle: JS loaded at activation (bytes)', ours: bytes.toLocaleString('en-US'), raw: '-', figure: `${bytes} bytes`, target: targetText('bundle_bytes'),
    verdict: notProduction.length ? 'MISS' : verdictFor('bundle_bytes', bytes),
    note: `(${loaded.files.map((f) => `${basename(f)} ${size(basename(f))}`).join(' + ')}, as loaded by require + activate()${loaded.note})${prodNote}`,
  });
  const notes = [missing.length ? `; MISSING: ${missing.join(', ')}` : '', unshipped.length ? `; built but not shipped by .vscodeignore: ${unshipped.join(', ')}` : '', meta ? '' : `; no ${METAFILE}: lazy bundles counted from .vscodeignore only`];
  ctx.rows.push({
    metric: 'bundle: all JS the extension may load (bytes)', ours: totalBytes.toLocaleString('en-US'), raw: '-', figure: `${totalBytes} bytes`, target: targetText('bundle_total_bytes'),
    verdict: notProduction.length || missing.length || unshipped.length ? 'MISS' : verdictFor('bundle_total_bytes', totalBytes),
    note: `(${all.map((n) => `${n} ${size(n)}`).join(' + ')}${notes.join('')})`,
  });
  ctx.extra.push(...(meta ? composition(meta) : [`(no ${METAFILE}: run npm run bench, or node esbuild.config.mjs --production --metafile=${METAFILE}, for the composition)`]));
  return { bundle_bytes: bytes, bundle_total_bytes: totalBytes };
}
