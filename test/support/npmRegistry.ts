/**
 * A tiny npm registry for the dependency suites and the benchmark (issue 22): the caller's engine,
 * offline. It writes its own packages, makes their tarballs with `npm pack` on the host (no
 * network), writes one packument JSON per package as the npm registry serves it, and serves the
 * lot with `python3 -m http.server` from the python test image, on an `--internal` network it
 * creates; `stop()` removes the container and the network. Installs point at it the way a user
 * points npm at a mirror: `--install-network NETWORK` and `npm_config_registry=URL`.
 *
 * Packages: `tinyleft@1.0.0` (a pad-start function), `tinyuse@2.0.0` (depends on tinyleft ^1; CJS
 * and ESM exports), `tinymark@1.0.0` (every lifecycle script would leave a `MARK-*` file next to it).
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

/** The packages published: name@version → files. */
const PACKAGES: Record<string, Record<string, string>> = {
  'tinyleft@1.0.0': {
    'package.json': JSON.stringify({ name: 'tinyleft', version: '1.0.0', main: 'index.js' }),
    'index.js': "module.exports = (s, n, c = ' ') => String(s).padStart(n, c);\n",
  },
  'tinyuse@2.0.0': {
    'package.json': JSON.stringify({ name: 'tinyuse', version: '2.0.0', dependencies: { tinyleft: '^1.0.0' }, exports: { import: './index.mjs', require: './index.cjs' } }),
    'index.cjs': "const left = require('tinyleft');\nexports.kind = 'cjs';\nexports.shout = (s) => left(s.toUpperCase() + '!', 8, '.');\n",
    'index.mjs': "import left from 'tinyleft';\nexport const kind = 'esm';\nexport const shout = (s) => left(s.toUpperCase() + '!', 8, '.');\n",
  },
  // Each lifecycle script would leave a mark next to the package (its working directory).
  'tinymark@1.0.0': {
    'package.json': JSON.stringify({
      name: 'tinymark', version: '1.0.0', main: 'index.js',
      scripts: Object.fromEntries(['preinstall', 'install', 'postinstall'].map((s) => [s, `node -e "require('fs').writeFileSync('MARK-${s}', '1')"`])),
    }),
    'index.js': "module.exports = 'mark';\n",
  },
};

/** A published version's `dist`, for lockfiles. */
export interface PublishedDist { readonly version: string; readonly tarball: string; readonly integrity: string }

/** A running registry. */
export interface NpmRegistry {
  /** The `--internal` network it serves on (network alias `registry`). */
  readonly network: string;
  /** Its container's name (to pause, stop or remove it). */
  readonly container: string;
  /** The registry URL inside `network`: a path of this registry's own, so no set cached by an earlier run has its key. */
  readonly url: string;
  /** name → its published version's `dist`. */
  readonly dist: Readonly<Record<string, PublishedDist>>;
  /** Removes the container and the network (never throws). */
  stop(): Promise<void>;
}

/**
 * Runs one engine command (`docker ARGS` on the caller's engine) and returns its stdout.
 * Rejects when it exits non-zero, unless `lenient`.
 */
export type EngineCommand = (args: string[], lenient?: boolean) => Promise<string>;

/** Writes the packages' tarballs and packuments under `www` (registry path `r-${id}`). */
async function buildRegistry(www: string, id: string): Promise<Record<string, PublishedDist>> {
  const src = join(www, '..', 'src');
  const tarballs = join(www, 'tarballs');
  await mkdir(tarballs, { recursive: true });
  await mkdir(join(www, `r-${id}`), { recursive: true });
  // npm as a plain command, not configured by the `npm run` that may have started the caller.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const dist: Record<string, PublishedDist> = {};
  for (const [pkg, files] of Object.entries(PACKAGES)) {
    const dir = join(src, pkg);
    await mkdir(dir, { recursive: true });
    for (const [f, text] of Object.entries(files)) await writeFile(join(dir, f), text);
    const r = await execa('npm', ['pack', '--json', '--ignore-scripts', '--no-update-notifier', '--pack-destination', tarballs, dir], { env, extendEnv: false, stdin: 'ignore' });
    const filename = (JSON.parse(r.stdout) as Array<{ filename: string }>)[0]!.filename;
    const tgz = await readFile(join(tarballs, filename));
    const manifest = JSON.parse(files['package.json']!) as { name: string; version: string };
    const version = {
      ...manifest,
      dist: {
        tarball: `http://registry:8000/tarballs/${filename}`,
        shasum: createHash('sha1').update(tgz).digest('hex'),
        integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
      },
    };
    dist[manifest.name] = { version: manifest.version, tarball: version.dist.tarball, integrity: version.dist.integrity };
    const packument = { name: manifest.name, 'dist-tags': { latest: manifest.version }, versions: { [manifest.version]: version } };
    await writeFile(join(www, `r-${id}`, manifest.name), JSON.stringify(packument));
  }
  return dist;
}

/**
 * Builds the registry and starts it on a new `--internal` network.
 * @param id names the network, the container and the URL path (unique per caller and run)
 * @param image an image with `python3` (the python test image), never pulled
 * @throws Error when `npm pack` or an engine command fails, or the server does not start in 20 s
 *   (what was created is removed first)
 */
export async function startNpmRegistry(engine: EngineCommand, id: string, image: string): Promise<NpmRegistry> {
  const network = `sandbox-runner-test-npm-${id}`;
  const container = `sandbox-runner-test-npm-registry-${id}`;
  const work = await mkdtemp(join(tmpdir(), 'sr-npmreg-'));
  const stop = async () => {
    await engine(['rm', '-f', container], true).catch(() => undefined);
    await engine(['network', 'rm', network], true).catch(() => undefined);
  };
  try {
    const dist = await buildRegistry(join(work, 'www'), id);
    await engine(['network', 'create', '--internal', network]);
    await engine(['create', '--name', container, '--network', network, '--network-alias', 'registry', '--pull', 'never', image, 'python3', '-u', '-m', 'http.server', '8000', '--directory', '/www']);
    await engine(['cp', `${join(work, 'www')}/.`, `${container}:/www`]);
    await engine(['start', container]);
    for (let i = 0; !(await engine(['logs', container], true)).includes('Serving HTTP'); i++) {
      if (i >= 100) throw new Error(`the test npm registry ${container} did not start within 20 s`);
      await new Promise((r) => setTimeout(r, 200));
    }
    return { network, container, url: `http://registry:8000/r-${id}/`, dist, stop };
  } catch (e) {
    await stop();
    throw e;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
