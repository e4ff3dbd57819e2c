/** `bundle_bytes`: .js beside the bundle loaded by require + activate(). `bundle_total_bytes`: those, the build's .js outputs (esbuild
 * metafile) and .vscodeignore's `!dist/*.js`. Not minified, or built but not shipped: MISS. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { probeActivation } from './activation';
import { judged, noFigure, targetText, type Ctx, type Figures } from './harness';

const METAFILE = 'out/bench/extension-meta.json';
const meta = (): { outputs: Record<string, unknown> } | undefined => (existsSync(METAFILE) ? JSON.parse(readFileSync(METAFILE, 'utf8')) : undefined);

/** cli.js and its lazy parts (cli-mcp.js): `sandbox-run`, a program of its own that the extension spawns, never loads. */
const isCliBundle = (n: string): boolean => n === 'cli.js' || n.startsWith('cli-');

/**
 * The feature whose first use loads each lazy bundle (issue 26: every one named in the output). Features the issues name
 * that have no bundle on this branch are listed as such, so a missing split shows.
 */
export const LAZY_FEATURES: Readonly<Record<string, string>> = {
  'engine.js': 'first run, orphan sweep, engine check',
  'markdown.js': 'Markdown code-block lenses',
  'rerun.js': 're-run and Copy as CLI',
  'notebook.js': 'notebooks',
  'deps.js': 'dependencies (a run that may declare some, the Quick Fix, Clear Dependency Cache)',
  'agent.js': 'the agent tool (the language model tools\' first call)',
  'zod.js': 'validation of profiles (right after activate(): the menus\' context keys; so counted at activation)',
};

/** Names of the extension's .js bundles: the build's outputs, and what .vscodeignore ships (not the CLI's, {@link isCliBundle}). */
function bundleNames(m = meta()): { built: string[]; shipped: string[] } {
  const lines = existsSync('.vscodeignore') ? readFileSync('.vscodeignore', 'utf8').split('\n') : [];
  return {
    built: Object.keys(m?.outputs ?? {}).filter((f) => f.endsWith('.js')).map((f) => basename(f)),
    shipped: lines.flatMap((l) => /^!dist\/([^/*]+\.js)$/.exec(l.trim())?.[1] ?? []).filter((n) => !isCliBundle(n)),
  };
}

/** Absolute paths of the existing bundles beside `bundle`, other than itself. */
export function lazyBundles(bundle: string): string[] {
  const { built, shipped } = bundleNames();
  return [...new Set([...built, ...shipped])].filter((n) => n !== basename(bundle)).sort().map((n) => join(dirname(bundle), n)).filter((f) => existsSync(f));
}

/** Minified output: thousands of characters per line, no source map comment. */
function isProduction(file: string): boolean {
  const text = readFileSync(file, 'utf8');
  return !text.includes('//# sourceMappingURL=') && text.length / text.split('\n').length > 400;
}

export async function bundle(ctx: Ctx): Promise<Figures> {
  const [dir, m] = [dirname(ctx.bundle), meta()];
  if (!existsSync(ctx.bundle)) {
    ctx.rows.push(noFigure('bundle at activation', targetText('bundle_bytes'), 'ERROR', `(${ctx.bundle} missing: run node esbuild.config.mjs --production)`, 'missing'));
    return {};
  }
  const [loaded, loadNote]: [readonly string[], string] = await probeActivation(ctx.bundle, 1, 0)
    .then(([s]) => [s!.loaded, ''], (e: unknown) => [[ctx.bundle], `; activation failed (${String(e).split('\n')[0]}), counted the bundle file only`]);
  const { built, shipped } = bundleNames(m);
  const all = [...new Set([...loaded.map((f) => basename(f)), ...built, ...shipped])].sort();
  const size = (n: string) => (existsSync(join(dir, n)) ? statSync(join(dir, n)).size : NaN);
  const [bytes, totalBytes] = [loaded.reduce((s, f) => s + size(basename(f)), 0), all.reduce((s, n) => s + size(n), 0)];
  const notProduction = all.filter((n) => existsSync(join(dir, n)) && !isProduction(join(dir, n)));
  const [missing, unshipped] = [all.filter((n) => !existsSync(join(dir, n))), built.filter((n) => !shipped.includes(n))];
  ctx.rows.push(judged('bundle: JS loaded at activation (bytes)', 'bundle_bytes', bytes, {
    ours: bytes.toLocaleString('en-US'), figure: `${bytes} bytes`, miss: notProduction.length > 0,
    note: `(${loaded.map((f) => `${basename(f)} ${size(basename(f))}`).join(' + ')}, as loaded by require + activate()${loadNote})` +
      (notProduction.length ? ` NOT a --production build: ${notProduction.join(', ')}; run node esbuild.config.mjs --production first.` : ''),
  }));
  const lazyNote = Object.entries(LAZY_FEATURES).map(([n, what]) => `${n}: ${what}${all.includes(n) ? '' : ' (no such bundle on this build)'}`).join('; ');
  ctx.rows.push(judged('bundle: all JS the extension may load (bytes)', 'bundle_total_bytes', totalBytes, {
    ours: totalBytes.toLocaleString('en-US'), figure: `${totalBytes} bytes`, miss: notProduction.length + missing.length + unshipped.length > 0,
    note: `(${all.map((n) => `${n} ${size(n)}`).join(' + ')}${missing.length ? `; MISSING: ${missing.join(', ')}` : ''}` +
      `${unshipped.length ? `; built but not shipped by .vscodeignore: ${unshipped.join(', ')}` : ''}${m ? '' : `; no ${METAFILE}: lazy bundles counted from .vscodeignore only`})` +
      ` lazy bundles, loaded on first use of: ${lazyNote}`,
  }));
  return { bundle_bytes: bytes, bundle_total_bytes: totalBytes };
}
