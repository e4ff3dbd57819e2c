/**
 * npm dependency installs (issue 22) against a real engine, offline, from the suite's own registry
 * (test/support/npmRegistry.ts: packages packed on the host, served on an `--internal` network the
 * suite creates and removes). Installs point at it the way a user points npm at a mirror:
 * `--install-network` and `npm_config_registry`. The install and the runs use the node-npm test
 * image (the langs image's Node with npm added).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ensureDependencySet, type InstallRequest } from '../../src/core/deps/install';
import { dependencySetKey, dependencyVolumeName } from '../../src/core/deps/cacheKey';
import { isSandboxError } from '../../src/core/errors';
import { readNpmLockfile } from '../../src/core/deps/lockfile';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { LANGUAGE_IMAGES } from '../support/images';
import { startNpmRegistry, type NpmRegistry } from '../support/npmRegistry';
import { requireEngine as requireTestEngine, TEST_ENGINE } from '../support/engine';
import { engineCli, engineDocker, IMAGES, noLeftoversAfterEach, productContainers, registryEngine, runCli, waitFor } from './helpers';

const suffix = `${process.pid}-${Date.now().toString(36)}`;
let registry: NpmRegistry;
/** The registry's network, container name and URL (a path of this run's own, so no set cached by an earlier run has this key). */
let NET = '';
let REGISTRY_NAME = '';
let REGISTRY_URL = '';
/** What the registry published: name → its version's `dist` (tarball URL, integrity). */
let DIST: NpmRegistry['dist'] = {};
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
  let imageId = '';
  const lockSpecs: string[][] = [];
  const keys = () => [SPECS, ['tinyleft'], ...lockSpecs].map((specs) => dependencySetKey({ imageId, manager: 'npm', specs, installEnv: { npm_config_registry: REGISTRY_URL } }));

  before(async () => {
    await requireTestEngine(TEST_ENGINE, [LANGUAGE_IMAGES.nodeNpm, IMAGES.python]);
    imageId = String((await engineCli(['image', 'inspect', '--format', '{{.Id}}', LANGUAGE_IMAGES.nodeNpm], { stdin: 'ignore' })).stdout).trim();
    registry = await startNpmRegistry(registryEngine, suffix, IMAGES.python);
    [NET, REGISTRY_NAME, REGISTRY_URL, DIST] = [registry.network, registry.container, registry.url, registry.dist];
  });

  after(async () => {
    await registry?.stop();
    if (imageId) for (const key of keys()) for (const v of await setVolumes(key)) await engineCli(['volume', 'rm', '-f', v], { stdin: 'ignore', reject: false });
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
    const key = dependencySetKey({ imageId, manager: 'npm', specs: ['tinyleft'], installEnv: { npm_config_registry: REGISTRY_URL } });
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

  it('a profile env with NODE_OPTIONS importing code into npm and npm_config_* naming a hostile registry does not steer the install: the clean set, no marker, no request, no poisoned cache (issue 34)', async () => {
    // Code npm itself would run (--import of a data: URL; percent-encoded, NODE_OPTIONS splits at spaces): a marker in the install's volume, then a request home.
    const payload = 'import fs from "node:fs"; import http from "node:http";'
      + ' try { fs.writeFileSync("/var/tmp/MARKER-node", "1"); } catch {}'
      + ' await new Promise((r) => http.get("http://registry:8000/hit-node-options", (res) => { res.resume(); res.on("end", r); }).on("error", r));';
    const env = {
      NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(payload)}`,
      npm_config_registry: 'http://registry:8000/evil/', npm_config_ignore_scripts: 'false', npm_config_script_shell: '/bin/sh', npm_config_userconfig: '/dev/null',
    };
    const specs = ['tinymark@1'];
    const key = dependencySetKey({ imageId, manager: 'npm', specs, installEnv: { npm_config_registry: REGISTRY_URL } });
    lockSpecs.push(specs);
    assert.deepEqual(await setVolumes(key), []);
    const hostile = ProfileSchema.parse({ ...profileJson, env });
    const outcome = await ensureDependencySet(request(specs, { profile: hostile })).then((set) => ({ set }), (e: unknown) => ({ error: e }));
    const logs = await engineCli(['logs', REGISTRY_NAME], { stdin: 'ignore' });
    const hostileRequests = `${String(logs.stdout)}\n${String(logs.stderr)}`.split('\n').filter((l) => /\/hit-node-options|\/evil\//.test(l)).map((l) => l.replace(/^.*"(GET [^"]*)".*$/, '$1'));
    assert.deepEqual(hostileRequests, [], 'nothing of the profile ran inside npm, and npm asked only the user\'s registry');
    assert.ok('set' in outcome, `the install from the user's registry succeeds: ${'error' in outcome ? String(outcome.error) : ''}`);
    const look = await engineCli(['run', '--rm', '--network', 'none', '--pull', 'never', '--mount', `type=volume,src=${outcome.set.dataVolume},dst=/v,readonly`, LANGUAGE_IMAGES.nodeNpm, 'ls', '-A', '/v', '/v/tinymark'], { stdin: 'ignore' });
    assert.equal(String(look.stdout).replace(/\n+/g, ' ').trim(), '/v: .complete .package-lock.json tinymark /v/tinymark: index.js package.json', 'no marker, no package script ran');
    const clean = await ensureDependencySet(request(specs));
    assert.deepEqual([clean.installed, clean.dataVolume], [false, outcome.set.dataVolume], 'a clean request gets the same set from the cache');
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
