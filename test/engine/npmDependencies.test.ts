/**
 * npm dependency installs (issue 22) against a real engine, offline. The suite writes its own
 * packages, makes their tarballs with `npm pack` (on the host, no network), writes the registry's
 * metadata (one packument JSON per package, as the npm registry serves it) and serves the lot with
 * `python3 -m http.server` from the python test image, on an `--internal` network it creates and
 * removes. Installs point at it the way a user points npm at a mirror: `--install-network` and
 * `npm_config_registry`. The install and the runs use the node-npm test image (the langs image's
 * Node with npm added).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ensureDependencySet, type InstallRequest } from '../../src/core/deps/install';
import { dependencySetKey, dependencyVolumeName } from '../../src/core/deps/cacheKey';
import { isSandboxError } from '../../src/core/errors';
import { readNpmLockfile } from '../../src/core/deps/lockfile';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { LANGUAGE_IMAGES } from '../support/images';
import { requireEngine as requireTestEngine, TEST_ENGINE } from '../support/engine';
import { engineCli, engineDocker, IMAGES, noLeftoversAfterEach, productContainers, runCli, waitFor } from './helpers';

const suffix = `${process.pid}-${Date.now().toString(36)}`;
const NET = `sandbox-runner-test-npm-${suffix}`;
const REGISTRY_NAME = `sandbox-runner-test-npm-registry-${suffix}`;
/** This run's registry URL: a path of its own, so no set cached by an earlier run has this key. */
const REGISTRY_URL = `http://registry:8000/r-${suffix}/`;

/** The packages the suite publishes: name@version → files. */
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

/** What buildRegistry published: name → its version's `dist` (tarball URL, integrity). */
const DIST: Record<string, { version: string; tarball: string; integrity: string }> = {};

/** Builds the registry tree under `www`: tarballs by `npm pack`, a packument per package. */
async function buildRegistry(www: string): Promise<void> {
  const src = join(www, '..', 'src');
  const tarballs = join(www, 'tarballs');
  await mkdir(tarballs, { recursive: true });
  await mkdir(join(www, `r-${suffix}`), { recursive: true });
  // npm as a plain command, not configured by the `npm run` that may have started the suite.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  for (const [id, files] of Object.entries(PACKAGES)) {
    const dir = join(src, id);
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
    DIST[manifest.name] = { version: manifest.version, tarball: version.dist.tarball, integrity: version.dist.integrity };
    const packument = { name: manifest.name, 'dist-tags': { latest: manifest.version }, versions: { [manifest.version]: version } };
    await writeFile(join(www, `r-${suffix}`, manifest.name), JSON.stringify(packument));
  }
}

/** Every volume of a set key (name and data volumes), any owner. */
async function setVolumes(key: string): Promise<string[]> {
  const r = await engineCli(['volume', 'ls', '-q', '--filter', `name=${dependencyVolumeName(key)}`], { stdin: 'ignore' });
  return String(r.stdout).split('\n').filter(Boolean).sort();
}


const SPECS = ['tinyuse@^2', 'tinymark'];
const profileJson = { image: LANGUAGE_IMAGES.nodeNpm, command: ['node', '${file}'], languages: ['javascript'], extensions: ['.js', '.mjs', '.cjs'], limits: { memoryMiB: 512 }, dependencies: SPECS };
const profile = () => ProfileSchema.parse(profileJson);

function request(specs: readonly string[], extra: Partial<InstallRequest> = {}): InstallRequest {
  return {
    docker: engineDocker() ?? {}, profile: profile(), profileName: 'node', manager: 'npm', specs, where: 'the test', network: NET,
    registryEnv: { npm_config_registry: REGISTRY_URL }, timeoutMs: 120_000, maxSetMiB: 64, ...extra,
  };
}

describe('npm dependency installs (engine)', function () {
  this.timeout(300_000);
  let work = '';
  let imageId = '';
  const lockSpecs: string[][] = [];
  const keys = () => [SPECS, ['tinyleft'], ...lockSpecs].map((specs) => dependencySetKey({ imageId, manager: 'npm', specs, indexUrl: REGISTRY_URL }));

  before(async () => {
    await requireTestEngine(TEST_ENGINE, [LANGUAGE_IMAGES.nodeNpm, IMAGES.python]);
    imageId = String((await engineCli(['image', 'inspect', '--format', '{{.Id}}', LANGUAGE_IMAGES.nodeNpm], { stdin: 'ignore' })).stdout).trim();
    work = await mkdtemp(join(tmpdir(), 'sr-npm-'));
    await buildRegistry(join(work, 'www'));
    await engineCli(['network', 'create', '--internal', NET], { stdin: 'ignore' });
    await engineCli(['create', '--name', REGISTRY_NAME, '--network', NET, '--network-alias', 'registry', '--pull', 'never', IMAGES.python, 'python3', '-u', '-m', 'http.server', '8000', '--directory', '/www'], { stdin: 'ignore' });
    await engineCli(['cp', `${join(work, 'www')}/.`, `${REGISTRY_NAME}:/www`], { stdin: 'ignore' });
    await engineCli(['start', REGISTRY_NAME], { stdin: 'ignore' });
    await waitFor(async () => String((await engineCli(['logs', REGISTRY_NAME], { stdin: 'ignore', reject: false })).stdout).includes('Serving HTTP'), 20_000, 'the test registry did not start');
  });

  after(async () => {
    await engineCli(['rm', '-f', REGISTRY_NAME], { stdin: 'ignore', reject: false });
    if (imageId) for (const key of keys()) for (const v of await setVolumes(key)) await engineCli(['volume', 'rm', '-f', v], { stdin: 'ignore', reject: false });
    await engineCli(['network', 'rm', NET], { stdin: 'ignore', reject: false });
    if (work) await rm(work, { recursive: true, force: true });
  });
  noLeftoversAfterEach();

  it('refuses URL, path, Git, file:, archive and option specs before any engine call', async () => {
    for (const spec of ['http://registry:8000/tarballs/tinyleft-1.0.0.tgz', './tinyleft', 'git+https://registry/x.git', 'github:someone/tinyleft', 'file:../tinyleft', 'tinyleft-1.0.0.tgz', '--registry=http://evil.test/']) {
      // A docker binary that does not exist: any engine call would fail as docker-missing instead.
      await assert.rejects(ensureDependencySet({ ...request([spec]), docker: { dockerPath: '/nonexistent/docker' } }), (e: unknown) => {
        assert.ok(isSandboxError(e) && e.code === 'invalid-profile', `${spec}: ${String(e)}`);
        assert.match(e.message, /^Dependency ".*" in the test .*: write a registry name/);
        return true;
      });
    }
  });

  it('a cancelled install (the registry paused, npm waiting on it) leaves no container and no volume', async () => {
    // This set's own volumes (its key hashes this run's registry URL): another client of the engine may install its own meanwhile.
    const key = dependencySetKey({ imageId, manager: 'npm', specs: ['tinyleft'], indexUrl: REGISTRY_URL });
    const ac = new AbortController();
    await engineCli(['pause', REGISTRY_NAME], { stdin: 'ignore' });
    try {
      const p = ensureDependencySet(request(['tinyleft'], { signal: ac.signal }));
      await waitFor(async () => (await productContainers()).length > 0, 60_000, 'the install container did not start', 250);
      assert.equal((await setVolumes(key)).length, 1, 'the install has its data volume');
      ac.abort();
      await assert.rejects(p, /cancelled; nothing was published/);
    } finally {
      await engineCli(['unpause', REGISTRY_NAME], { stdin: 'ignore' });
    }
    assert.deepEqual(await productContainers(), []);
    assert.deepEqual(await setVolumes(key), [], 'no volume left behind');
  });

  describe('sandbox-run --dependencies with a node profile', () => {
    let ws = '';
    const cli = (file: string, code: string) =>
      writeFile(join(ws, file), code).then(() =>
        runCli(ws, ['--dependencies', '--install-network', NET, '--profile-json', JSON.stringify(profileJson), file], { env: { ...process.env, npm_config_registry: REGISTRY_URL } }));

    before(async () => {
      ws = await mkdtemp(join(tmpdir(), 'sr-npm-ws-'));
    });
    after(async () => {
      if (ws) await rm(ws, { recursive: true, force: true });
    });

    it('without --dependencies a node profile with dependencies is refused before anything starts, naming the flag and the packages', async () => {
      await writeFile(join(ws, 'plain.js'), "console.log('ran');\n");
      const r = await runCli(ws, ['--profile-json', JSON.stringify(profileJson), 'plain.js'], { env: { ...process.env, npm_config_registry: REGISTRY_URL } });
      assert.equal(r.exitCode, 125);
      assert.match(String(r.stderr), /This run declares dependencies \("tinyuse@\^2", "tinymark"\), which sandbox-run installs only with --dependencies, so nothing ran\./);
      assert.equal(String(r.stdout), '');
    });

    it('installs from the registry (no lifecycle script runs), then require() resolves the set; the run has no registry variable', async () => {
      const r = await cli('prog.js', [
        "const t = require('tinyuse'), fs = require('fs');",
        "console.log(t.kind, t.shout('hi'), require('tinymark'), JSON.stringify(fs.readdirSync('/node_modules/tinymark').sort()), String(process.env.npm_config_registry));",
      ].join('\n'));
      assert.equal(r.exitCode, 0, String(r.stderr));
      assert.equal(String(r.stdout), 'cjs .....HI! mark ["index.js","package.json"] undefined');
      assert.match(String(r.stderr), /added 3 packages/);
      assert.match(String(r.stderr), /dependencies installed on network .*: "tinyuse@\^2", "tinymark"; the program runs with them read-only/);
    });

    it('ESM import resolves the same set, from the cache', async () => {
      const r = await cli('prog.mjs', "import { kind, shout } from 'tinyuse';\nimport left from 'tinyleft';\nconsole.log(kind, shout('hi'), left('x', 3));\n");
      assert.equal(r.exitCode, 0, String(r.stderr));
      assert.equal(String(r.stdout), 'esm .....HI!   x');
      assert.match(String(r.stderr), /dependencies from the cache: "tinyuse@\^2", "tinymark"/);
    });

    it('a workspace run under a folder with package.json + package-lock.json installs the lockfile (npm ci), and resolves from it', async () => {
      const app = join(ws, 'app');
      await mkdir(join(app, 'src'), { recursive: true });
      const entry = (name: string, deps?: Record<string, string>) => ({ version: DIST[name]!.version, resolved: DIST[name]!.tarball, integrity: DIST[name]!.integrity, ...(deps ? { dependencies: deps } : {}) });
      await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { tinyuse: '^2.0.0' } }));
      await writeFile(join(app, 'package-lock.json'), JSON.stringify({
        name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true,
        packages: { '': { name: 'app', version: '1.0.0', dependencies: { tinyuse: '^2.0.0' } }, 'node_modules/tinyuse': entry('tinyuse', { tinyleft: '^1.0.0' }), 'node_modules/tinyleft': entry('tinyleft') },
      }));
      lockSpecs.push([(await readNpmLockfile(app)).keySpec]);
      await writeFile(join(app, 'src', 'main.mjs'), "import { shout } from 'tinyuse';\nimport { existsSync } from 'node:fs';\nconsole.log(shout('ws'), existsSync('/node_modules/tinymark'));\n");
      // mkdtemp leaves the folder 0700: the run's user must be able to enter it.
      await execa('chmod', ['-R', 'a+rX', ws]);
      const wsProfile = JSON.stringify({ ...profileJson, dependencies: [], workspace: 'ro' });
      const r = await runCli(ws, ['--dependencies', '--install-network', NET, '--profile-json', wsProfile, 'app/src/main.mjs'], { env: { ...process.env, npm_config_registry: REGISTRY_URL } });
      assert.equal(r.exitCode, 0, String(r.stderr));
      assert.equal(String(r.stdout), '.....WS! false');
      assert.match(String(r.stderr), /added 2 packages/);
      assert.match(String(r.stderr), /dependencies installed on network .*: 2 packages from ".*app\/package-lock\.json"/);
      // A lockfile entry from Git is refused before anything starts.
      await writeFile(join(app, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': {}, 'node_modules/tinyuse': { version: '2.0.0', resolved: 'git+https://registry/tinyuse.git#abc', integrity: 'sha512-AAAA' } } }));
      const bad = await runCli(ws, ['--dependencies', '--install-network', NET, '--profile-json', wsProfile, 'app/src/main.mjs'], { env: { ...process.env, npm_config_registry: REGISTRY_URL } });
      assert.equal(bad.exitCode, 125);
      assert.match(String(bad.stderr), /package-lock\.json lists "node_modules\/tinyuse" from "git\+https:\/\/registry\/tinyuse\.git#abc", not a registry tarball, so nothing was installed and nothing ran\./);
      await rm(app, { recursive: true, force: true });
    });

    it('a package Node cannot load gets a hint naming the profile key and the flag (require and import), and the run ends as it did', async () => {
      const plain = JSON.stringify({ ...profileJson, dependencies: [] });
      await writeFile(join(ws, 'need.js'), "require('tinynope');\n");
      await writeFile(join(ws, 'need.mjs'), "import x from '@tiny/nope/deep.js';\n");
      for (const [file, name] of [['need.js', 'tinynope'], ['need.mjs', '@tiny/nope']] as const) {
        const r = await runCli(ws, ['--profile-json', plain, file]);
        assert.equal(r.exitCode, 1, String(r.stderr));
        assert.match(String(r.stderr), new RegExp(`^sandbox-run: hint: the program could not load the package "${name}"; to install it, add "${name}" to sandboxRunner\\.profiles\\.inline\\.dependencies and run with --dependencies\\.$`, 'm'));
      }
    });

    it('with the registry gone the cached set still runs; the run can neither write the set nor reach the registry', async () => {
      await engineCli(['rm', '-f', REGISTRY_NAME], { stdin: 'ignore' });
      const r = await cli('sneaky.js', [
        "const fs = require('fs'), net = require('net');",
        "let wrote; try { fs.writeFileSync('/node_modules/tinyleft/index.js', 'x'); wrote = 'wrote'; } catch (e) { wrote = e.code; }",
        "let made; try { fs.mkdirSync('/node_modules/planted'); made = 'made'; } catch (e) { made = e.code; }",
        "const s = net.connect(8000, 'registry'); s.on('connect', () => { console.log(wrote, made, 'reached'); s.destroy(); }); s.on('error', (e) => console.log(wrote, made, e.code));",
      ].join('\n'));
      assert.equal(r.exitCode, 0, String(r.stderr));
      assert.match(String(r.stdout), /^EROFS EROFS (?:ENOTFOUND|EAI_AGAIN)$/);
      assert.match(String(r.stderr), /dependencies from the cache/);
    });
  });
});
