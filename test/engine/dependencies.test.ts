/**
 * Dependency installs (issue 22) against a real engine, offline: the suite starts its own package
 * index (a PEP 503 simple index of packages it builds itself, served by `python3 -m http.server`
 * from the python test image) on an `--internal` network it creates and removes, and installs
 * from it the way a user would point the install at a mirror (install network + PIP_INDEX_URL).
 * The same server has a hostile part (`/evil/`: an index, a requirements file, an sdist whose build
 * backend calls `/hit-backend`) that a profile's `env`, an image's `ENV` or a cloned folder's
 * settings name (issue 34); its request log (`docker logs`) shows whether the install obeyed them.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDependencySet, RUN_MOUNT, type InstallRequest } from '../../src/core/deps/install';
import { dependencySetKey, dependencyVolumeName } from '../../src/core/deps/cacheKey';
import { isSandboxError } from '../../src/core/errors';
import { installEnvironment } from '../../src/core/deps/declared';
import { LANGUAGE_IMAGES } from '../support/images';
import { requireEngine as requireTestEngine, TEST_ENGINE } from '../support/engine';
import { engineCli, engineDocker, IMAGES, noLeftoversAfterEach, productContainers, pythonProfile, runCli } from './helpers';

/**
 * Builds the packages and the index under /tmp/www, then serves it. Wheels are zip files written
 * with zipfile (a wheel is METADATA, WHEEL and RECORD in a .dist-info folder beside the code).
 */
const REGISTRY = String.raw`
import os, zipfile, http.server, functools
www = '/tmp/www'
def wheel(name, version, files, requires=()):
    dist = f'{name}-{version}.dist-info'
    meta = f'Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n' + ''.join(f'Requires-Dist: {r}\n' for r in requires)
    files = dict(files)
    files[f'{dist}/METADATA'] = meta
    files[f'{dist}/WHEEL'] = 'Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n'
    files[f'{dist}/RECORD'] = ''.join(f'{p},,\n' for p in files) + f'{dist}/RECORD,,\n'
    fn = f'{name}-{version}-py3-none-any.whl'
    with zipfile.ZipFile(f'{www}/files/{fn}', 'w') as z:
        for p, text in files.items(): z.writestr(p, text)
    return fn
os.makedirs(f'{www}/files')
pkgs = {
  'tinyfmt': [wheel('tinyfmt', '1.0', {'tinyfmt/__init__.py': 'def shout(s):\n    return s.upper() + "!"\n'})],
  'tinyapp': [wheel('tinyapp', '2.0', {'tinyapp/__init__.py': 'from tinyfmt import shout\ndef hello():\n    return shout("hello")\n'}, ['tinyfmt>=1'])],
  'sneaky': [wheel('sneaky', '1.0', {'sneaky/__init__.py': '''
import os, socket
here = os.path.dirname(__file__)
try:
    open(os.path.join(here, "planted.py"), "w").write("x = 1\\n"); wrote = "wrote"
except OSError as e:
    wrote = type(e).__name__ + ":" + str(e.errno)
try:
    socket.create_connection(("registry", 8000), timeout=3).close(); net = "reached"
except OSError as e:
    net = type(e).__name__
result = wrote + " " + net
'''})],
}
# The hostile index (issue 34): /evil/simple/ serves evilpkg, an sdist whose in-tree build backend
# writes a marker into the install's volume and fetches /hit-backend, and a tinyfmt 9.0 wheel that
# would shadow the user's; /evil/req.txt is a requirements file that turns wheels-only off for it.
BACKEND = '''
import os, urllib.request, zipfile
try:
    open("/var/tmp/MARKER-backend", "w").write("1")
except OSError:
    pass
try:
    urllib.request.urlopen("http://registry:8000/hit-backend", timeout=5).read()
except Exception:
    pass
def get_requires_for_build_wheel(config_settings=None):
    return []
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    d = "evilpkg-1.0.dist-info"
    files = {"evilpkg.py": "EVIL = True\\n", d + "/METADATA": "Metadata-Version: 2.1\\nName: evilpkg\\nVersion: 1.0\\n", d + "/WHEEL": "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
    files[d + "/RECORD"] = "".join(p + ",,\\n" for p in files) + d + "/RECORD,,\\n"
    with zipfile.ZipFile(os.path.join(wheel_directory, "evilpkg-1.0-py3-none-any.whl"), "w") as z:
        for p, t in files.items(): z.writestr(p, t)
    return "evilpkg-1.0-py3-none-any.whl"
'''
import tarfile, io
os.makedirs(f'{www}/evil/files')
with tarfile.open(f'{www}/evil/files/evilpkg-1.0.tar.gz', 'w:gz') as t:
    for p, text in {'pyproject.toml': '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n', 'backend.py': BACKEND, 'PKG-INFO': 'Metadata-Version: 2.1\nName: evilpkg\nVersion: 1.0\n'}.items():
        data = text.encode(); info = tarfile.TarInfo(f'evilpkg-1.0/{p}'); info.size = len(data); t.addfile(info, io.BytesIO(data))
evil = {'evilpkg': ['evilpkg-1.0.tar.gz'], 'tinyfmt': [wheel('tinyfmt', '9.0', {'tinyfmt/__init__.py': 'def shout(s):\n    return "EVIL"\n'})]}
os.replace(f'{www}/files/tinyfmt-9.0-py3-none-any.whl', f'{www}/evil/files/tinyfmt-9.0-py3-none-any.whl')
for name, files in evil.items():
    os.makedirs(f'{www}/evil/simple/{name}')
    open(f'{www}/evil/simple/{name}/index.html', 'w').write(''.join(f'<a href="../../files/{f}">{f}</a>\n' for f in files))
open(f'{www}/evil/req.txt', 'w').write('--extra-index-url http://registry:8000/evil/simple/\n--trusted-host registry\n--no-binary evilpkg\nevilpkg\n')
open(f'{www}/files/sdistonly-1.0.tar.gz', 'wb').write(b'not really a tarball')
pkgs['sdistonly'] = ['sdistonly-1.0.tar.gz']
for name, files in pkgs.items():
    os.makedirs(f'{www}/simple/{name}')
    links = ''.join(f'<a href="../../files/{f}">{f}</a>\n' for f in files)
    open(f'{www}/simple/{name}/index.html', 'w').write(f'<!DOCTYPE html><html><body>{links}</body></html>')
open(f'{www}/simple/index.html', 'w').write(''.join(f'<a href="{n}/">{n}</a>\n' for n in pkgs))
print('ready', flush=True)
http.server.ThreadingHTTPServer(('', 8000), functools.partial(http.server.SimpleHTTPRequestHandler, directory=www)).serve_forever()
`;

const suffix = `${process.pid}-${Date.now().toString(36)}`;
const NET = `sandbox-runner-test-deps-${suffix}`;
const REGISTRY_NAME = `sandbox-runner-test-registry-${suffix}`;
/**
 * The index's host name on the suite's networks: its own, so the sets this run makes have keys of
 * their own (the key hashes the index URL) and another client running the same suite on the same
 * engine never finds, prunes or counts them.
 */
const HOST = `registry-${suffix}`;
const INDEX = `http://${HOST}:8000/simple/`;
/** The CLI suite's index: the same server, another URL, so its set has a key of its own. */
const INDEX_CLI = `http://${HOST}:8000/simple`;
/** What the CLI suite's install sees (its key covers the proxies of this environment too). */
const cliInstallEnv = () => installEnvironment({ pipIndexUrl: '', npmRegistry: '' }, { ...process.env, PIP_INDEX_URL: INDEX_CLI, PIP_TRUSTED_HOST: HOST });

/** The run's profile: the pip image, the floor's defaults. */
const profile = () => pythonProfile({ image: LANGUAGE_IMAGES.pythonPip, limits: { memoryMiB: 512 } });

function request(specs: readonly string[], extra: Partial<InstallRequest> = {}): InstallRequest {
  return {
    docker: engineDocker() ?? {}, profile: profile(), profileName: 'python', manager: 'pip', specs, where: 'the test', network: NET,
    registryEnv: { PIP_INDEX_URL: INDEX, PIP_TRUSTED_HOST: HOST }, timeoutMs: 120_000, maxSetMiB: 64, ...extra,
  };
}

/** Every volume of a set key (name and data volumes), any owner. */
async function setVolumes(key: string): Promise<string[]> {
  const r = await engineCli(['volume', 'ls', '-q', '--filter', `name=${dependencyVolumeName(key)}`], { stdin: 'ignore' });
  return String(r.stdout).split('\n').filter(Boolean).sort();
}

/**
 * The volumes of the set `specs` would make from the suite's index (to compare before and after a
 * refused or cancelled install): only this set's, since another client of the engine may publish
 * sets of its own meanwhile.
 */
async function ownSetVolumes(specs: readonly string[], image: string = LANGUAGE_IMAGES.pythonPip): Promise<string[]> {
  const imageId = String((await engineCli(['image', 'inspect', '--format', '{{.Id}}', image], { stdin: 'ignore' })).stdout).trim();
  return setVolumes(dependencySetKey({ imageId, manager: 'pip', specs, installEnv: { PIP_INDEX_URL: INDEX, PIP_TRUSTED_HOST: HOST } }));
}

/** Runs python in a floor-like container (no network unless given) with the set mounted read-only the way a run mounts it. */
async function runWithSet(dataVolume: string, code: string, network = 'none') {
  return engineCli([
    'run', '--rm', '--network', network, '--read-only', '--user', '65534:65534', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--pull', 'never',
    '--mount', `type=volume,src=${dataVolume},dst=${RUN_MOUNT},volume-nocopy,readonly`, '--env', `PYTHONPATH=${RUN_MOUNT}/set`, '--env', 'PYTHONDONTWRITEBYTECODE=1',
    LANGUAGE_IMAGES.pythonPip, 'python3', '-c', code,
  ], { stdin: 'ignore', reject: false });
}

describe('dependency installs (engine)', function () {
  this.timeout(300_000);
  const keys: string[] = [];

  before(async () => {
    await requireTestEngine(TEST_ENGINE, [LANGUAGE_IMAGES.pythonPip]);
    await engineCli(['network', 'create', '--internal', NET], { stdin: 'ignore' });
    await engineCli(['run', '-d', '--rm', '--name', REGISTRY_NAME, '--network', NET, '--network-alias', HOST, '--network-alias', 'registry', '--pull', 'never', IMAGES.python, 'python3', '-c', REGISTRY], { stdin: 'ignore' });
    for (let i = 0; i < 100; i++) {
      const logs = await engineCli(['logs', REGISTRY_NAME], { stdin: 'ignore', reject: false });
      if (String(logs.stdout).includes('ready')) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('the test registry did not start');
  });

  after(async () => {
    await engineCli(['rm', '-f', REGISTRY_NAME], { stdin: 'ignore', reject: false });
    for (const key of keys) for (const v of await setVolumes(key)) await engineCli(['volume', 'rm', '-f', v], { stdin: 'ignore', reject: false });
    await engineCli(['network', 'rm', NET], { stdin: 'ignore', reject: false });
  });
  noLeftoversAfterEach();

  it('installs a set with its dependency from the index, once for 4 concurrent requests, and publishes it', async () => {
    const sets = await Promise.all([1, 2, 3, 4].map(() => ensureDependencySet(request(['tinyapp']))));
    keys.push(sets[0]!.key);
    assert.equal(sets.filter((s) => s.installed).length, 1, 'one install');
    assert.equal(new Set(sets.map((s) => s.dataVolume)).size, 1, 'one data volume');
    assert.deepEqual(await setVolumes(sets[0]!.key), [dependencyVolumeName(sets[0]!.key), sets[0]!.dataVolume].sort());
    assert.deepEqual(await ownSetVolumes(['tinyapp']), await setVolumes(sets[0]!.key), 'the suite computes a set\'s key as the installer does (the refusal cases below rely on it)');
    const r = await runWithSet(sets[0]!.dataVolume, 'import tinyapp, os; print(tinyapp.hello(), sorted(os.listdir("/opt/sandbox-deps")))');
    assert.equal(String(r.stdout), "HELLO! ['.complete', 'set']", String(r.stderr));
  });

  it('the second request uses the cache without the registry; a run can neither reach the registry nor write the set', async () => {
    const first = await ensureDependencySet(request(['sneaky']));
    keys.push(first.key);
    await engineCli(['pause', REGISTRY_NAME], { stdin: 'ignore' });
    try {
      const again = await ensureDependencySet(request(['sneaky'], { timeoutMs: 1 }));
      assert.deepEqual([again.installed, again.dataVolume], [false, first.dataVolume]);
    } finally {
      await engineCli(['unpause', REGISTRY_NAME], { stdin: 'ignore' });
    }
    // Even on the registry's own network the read-only set cannot be written.
    // On the run's network (none), the registry's name does not even resolve; errno 30 is EROFS.
    const onNone = await runWithSet(first.dataVolume, 'import sneaky; print(sneaky.result)');
    assert.match(String(onNone.stdout), /^OSError:30 (?:gaierror|OSError|TimeoutError)$/, String(onNone.stderr));
    const onNet = await runWithSet(first.dataVolume, 'import sneaky; print(sneaky.result.split()[0])', NET);
    assert.equal(String(onNet.stdout), 'OSError:30', String(onNet.stderr));
  });

  it('refuses an sdist-only package with a sentence that says why, and publishes nothing', async () => {
    const before = await productContainers();
    const volumesBefore = await ownSetVolumes(['sdistonly']);
    assert.deepEqual(volumesBefore, []);
    await assert.rejects(ensureDependencySet(request(['sdistonly'])), (e: unknown) => {
      assert.ok(isSandboxError(e) && e.code === 'start-failed', String(e));
      assert.match(e.message, /only wheels are installed \(building a source distribution runs the package's code\)/);
      return true;
    });
    assert.deepEqual(await productContainers(), before);
    assert.deepEqual(await ownSetVolumes(['sdistonly']), [], 'no volume left behind');
  });

  it('refuses URL, path, option and VCS specs before any engine call', async () => {
    for (const spec of ['x @ https://registry:8000/files/tinyfmt-1.0-py3-none-any.whl', './tinyfmt', '--index-url=http://registry:8000/simple/', 'git+https://registry/x.git']) {
      // A docker binary that does not exist: any engine call would fail as docker-missing instead.
      await assert.rejects(ensureDependencySet({ ...request([spec]), docker: { dockerPath: '/nonexistent/docker' } }), (e: unknown) => {
        assert.ok(isSandboxError(e) && e.code === 'invalid-profile', `${spec}: ${String(e)}`);
        assert.match(e.message, /^Dependency ".*" in the test /);
        return true;
      });
    }
  });

  /** The suite's index server's request log (http.server logs each request to stderr). */
  const serverLog = async () => String((await engineCli(['logs', REGISTRY_NAME], { stdin: 'ignore' })).stderr);
  /** What a run of the set sees: tinyfmt's answer, the volume's root and whether evilpkg imports. */
  const setContents = async (dataVolume: string) => {
    const r = await runWithSet(dataVolume, 'import os, importlib.util, tinyfmt; print(tinyfmt.shout("a"), sorted(os.listdir("/opt/sandbox-deps")), sorted(os.listdir("/opt/sandbox-deps/set")), importlib.util.find_spec("evilpkg") is not None)');
    assert.equal(r.exitCode, 0, String(r.stderr));
    return String(r.stdout);
  };
  const CLEAN_SET = "A! ['.complete', 'set'] ['tinyfmt', 'tinyfmt-1.0.dist-info'] False";

  /**
   * Issue 34, a hostile index: the workspace's `env` (a profile's env is workspace-writable and asks
   * no consent) names an evil index and a requirements file whose `--extra-index-url` and
   * `--no-binary evilpkg` would build an sdist whose backend writes a marker and calls home; or the
   * image's ENV does. The install must take the user's index only: the clean set, no request to
   * /evil/ or /hit-backend in the server's log, and the same clean set for a clean request after it.
   */
  const HOSTILE_ENV = { PIP_INDEX_URL: 'http://registry:8000/evil/simple/', PIP_REQUIREMENT: 'http://registry:8000/evil/req.txt', PIP_NO_BINARY: 'evilpkg', PIP_ONLY_BINARY: ':none:' };
  const refusedOrClean = async (req: InstallRequest) => {
    const seen = (await serverLog()).length;
    const outcome = await ensureDependencySet(req).then((set) => ({ set }), (e: unknown) => ({ error: e }));
    const log = (await serverLog()).slice(seen);
    assert.deepEqual(log.split('\n').filter((l) => /\/hit-backend|\/evil\//.test(l)).map((l) => l.replace(/^.*"(GET [^"]*)".*$/, '$1')), [], 'the installer never reached the hostile index nor ran its build backend');
    if ('error' in outcome) {
      assert.ok(isSandboxError(outcome.error), String(outcome.error));
      assert.deepEqual(await ownSetVolumes(req.specs, req.profile.image), [], 'a refused install publishes nothing');
      return undefined;
    }
    keys.push(outcome.set.key);
    assert.equal(await setContents(outcome.set.dataVolume), CLEAN_SET, 'the clean set: no marker, no evilpkg, the user\'s tinyfmt');
    return outcome.set;
  };

  it('a profile env naming a hostile index and requirements file does not steer the install: the clean set, no request to the hostile index, no poisoned cache (issue 34)', async () => {
    const specs = ['tinyfmt>=1'];
    assert.deepEqual(await ownSetVolumes(specs), []);
    const hostile = pythonProfile({ image: LANGUAGE_IMAGES.pythonPip, limits: { memoryMiB: 512 }, env: HOSTILE_ENV });
    const first = await refusedOrClean(request(specs, { profile: hostile }));
    assert.ok(first, 'the install from the user\'s index succeeds');
    const clean = await ensureDependencySet(request(specs));
    assert.deepEqual([clean.installed, clean.dataVolume], [false, first.dataVolume], 'the clean request gets the same set from the cache');
    assert.equal(await setContents(clean.dataVolume), CLEAN_SET);
  });

  it('an image whose ENV names a hostile index and requirements file does not steer the install either (issue 34)', async () => {
    // The pip image with ENV added by `docker commit --change` (no build, no pull): its own image ID, so a set of its own.
    const image = `sandbox-runner-test-hostile-env:${suffix}`;
    const base = `sandbox-runner-test-hostile-base-${suffix}`;
    await engineCli(['create', '--name', base, '--pull', 'never', LANGUAGE_IMAGES.pythonPip, 'true'], { stdin: 'ignore' });
    try {
      await engineCli(['commit', ...Object.entries(HOSTILE_ENV).flatMap(([k, v]) => ['--change', `ENV ${k}=${v}`]), base, image], { stdin: 'ignore' });
    } finally {
      await engineCli(['rm', '-f', base], { stdin: 'ignore', reject: false });
    }
    try {
      const env = await engineCli(['image', 'inspect', '--format', '{{json .Config.Env}}', image], { stdin: 'ignore' });
      assert.match(String(env.stdout), /PIP_REQUIREMENT=http:\/\/registry:8000\/evil\/req\.txt/);
      const set = await refusedOrClean(request(['tinyfmt>=1'], { profile: pythonProfile({ image, limits: { memoryMiB: 512 } }) }));
      assert.ok(set, 'the install from the user\'s index succeeds');
    } finally {
      await engineCli(['rmi', '-f', image], { stdin: 'ignore', reject: false });
    }
  });

  it('a cancelled install leaves no container and no volume', async () => {
    assert.deepEqual(await ownSetVolumes(['tinyfmt']), []);
    const ac = new AbortController();
    const outputs: string[] = [];
    const p = ensureDependencySet(request(['tinyfmt'], { signal: ac.signal, onOutput: (t) => { outputs.push(t); ac.abort(); } }));
    await assert.rejects(p, /cancelled; nothing was published/);
    assert.deepEqual(await productContainers(), []);
    assert.deepEqual(await ownSetVolumes(['tinyfmt']), [], 'no volume left behind');
  });
});


describe('sandbox-run --dependencies (engine)', function () {
  this.timeout(300_000);
  const NET2 = `sandbox-runner-test-deps-cli-${suffix}`;
  const REG2 = `sandbox-runner-test-registry-cli-${suffix}`;
  let ws = '';
  const script = '# /// script\n# dependencies = ["tinyapp"]\n# ///\nimport tinyapp, os\nprint(tinyapp.hello(), os.environ.get("PIP_INDEX_URL"))\n';
  const profileJson = JSON.stringify({ image: LANGUAGE_IMAGES.pythonPip, command: ['python3', '${file}'], languages: ['python'] });

  before(async () => {
    await requireTestEngine(TEST_ENGINE, [LANGUAGE_IMAGES.pythonPip]);
    ws = await mkdtemp(join(tmpdir(), 'sr-deps-ws-'));
    await engineCli(['network', 'create', '--internal', NET2], { stdin: 'ignore' });
    await engineCli(['run', '-d', '--rm', '--name', REG2, '--network', NET2, '--network-alias', HOST, '--network-alias', 'registry', '--pull', 'never', IMAGES.python, 'python3', '-c', REGISTRY], { stdin: 'ignore' });
    for (let i = 0; i < 100 && !String((await engineCli(['logs', REG2], { stdin: 'ignore', reject: false })).stdout).includes('ready'); i++) await new Promise((r) => setTimeout(r, 200));
  });

  after(async () => {
    await engineCli(['rm', '-f', REG2], { stdin: 'ignore', reject: false });
    // Only the set this suite made: its key hashes the pip image and an index URL only this suite uses.
    const imageId = String((await engineCli(['image', 'inspect', '--format', '{{.Id}}', LANGUAGE_IMAGES.pythonPip], { stdin: 'ignore' })).stdout).trim();
    for (const v of [...await setVolumes(dependencySetKey({ imageId, manager: 'pip', specs: ['tinyapp'], installEnv: cliInstallEnv() })), ...await setVolumes(dependencySetKey({ imageId, manager: 'pip', specs: ['tinyfmt>=1'], installEnv: cliInstallEnv() }))]) {
      await engineCli(['volume', 'rm', '-f', v], { stdin: 'ignore', reject: false });
    }
    await engineCli(['network', 'rm', NET2], { stdin: 'ignore', reject: false });
    if (ws) await rm(ws, { recursive: true, force: true });
  });
  noLeftoversAfterEach();

  it('without --dependencies a PEP 723 script is refused before anything starts, naming the flag and the packages', async () => {
    const r = await runCli(ws, ['--profile-json', profileJson, '-'], { input: script });
    assert.equal(r.exitCode, 125);
    assert.match(String(r.stderr), /This run declares dependencies \("tinyapp"\), which sandbox-run installs only with --dependencies, so nothing ran\./);
    assert.equal(String(r.stdout), '');
  });

  it('a cloned folder\'s .vscode/settings.json giving a profile a hostile index and requirements file in its env does not steer sandbox-run --dependencies (issue 34)', async () => {
    const hostileWs = await mkdtemp(join(tmpdir(), 'sr-deps-hostile-'));
    try {
      await mkdir(join(hostileWs, '.vscode'));
      await writeFile(join(hostileWs, '.vscode', 'settings.json'), JSON.stringify({
        'sandboxRunner.profiles': { cloned: { image: LANGUAGE_IMAGES.pythonPip, command: ['python3', '${file}'], languages: ['python'], env: { PIP_INDEX_URL: 'http://registry:8000/evil/simple/', PIP_REQUIREMENT: 'http://registry:8000/evil/req.txt' } } },
      }));
      const code = '# /// script\n# dependencies = ["tinyfmt>=1"]\n# ///\nimport os, importlib.util, tinyfmt\nprint(tinyfmt.shout("a"), importlib.util.find_spec("evilpkg") is not None, sorted(os.listdir("/opt/sandbox-deps")))\n';
      const seen = String((await engineCli(['logs', REG2], { stdin: 'ignore' })).stderr).length;
      const r = await runCli(hostileWs, ['--dependencies', '--install-network', NET2, '--profile', 'cloned', '-'], { input: code, env: { ...process.env, PIP_INDEX_URL: INDEX_CLI, PIP_TRUSTED_HOST: HOST } });
      const log = String((await engineCli(['logs', REG2], { stdin: 'ignore' })).stderr).slice(seen);
      assert.deepEqual(log.split('\n').filter((l) => /\/hit-backend|\/evil\//.test(l)).map((l) => l.replace(/^.*"(GET [^"]*)".*$/, '$1')), [], 'the install never reached the hostile index nor ran its build backend');
      assert.equal(r.exitCode, 0, String(r.stderr));
      assert.equal(String(r.stdout), "A! False ['.complete', 'set']");
      assert.match(String(r.stderr), /Successfully installed tinyfmt-1\.0\n/);
    } finally {
      await rm(hostileWs, { recursive: true, force: true });
    }
  });

  it('with --dependencies it installs from the index on the install network, and the program runs without network or registry variables', async () => {
    const env = { ...process.env, PIP_INDEX_URL: INDEX_CLI, PIP_TRUSTED_HOST: HOST };
    const r = await runCli(ws, ['--dependencies', '--install-network', NET2, '--profile-json', profileJson, '-'], { input: script, env });
    assert.equal(r.exitCode, 0, String(r.stderr));
    assert.equal(String(r.stdout), 'HELLO! None');
    assert.match(String(r.stderr), /Successfully installed tinyapp-2\.0 tinyfmt-1\.0/);
    assert.match(String(r.stderr), /dependencies installed on network .*: "tinyapp"; the program runs with them read-only/);
    assert.match(String(r.stderr), /network off/);
    // Again, with the registry gone: from the cache.
    await engineCli(['rm', '-f', REG2], { stdin: 'ignore' });
    const again = await runCli(ws, ['--dependencies', '--install-network', NET2, '--profile-json', profileJson, '-'], { input: script, env });
    assert.equal(again.exitCode, 0, String(again.stderr));
    assert.equal(String(again.stdout), 'HELLO! None');
    assert.match(String(again.stderr), /dependencies from the cache: "tinyapp"/);
  });

  it('a requires-python without dependencies is checked against the image\'s Python (no --dependencies needed): a mismatch is refused naming both, a match runs', async () => {
    const plain = JSON.stringify({ image: IMAGES.python, command: ['python3', '${file}'], languages: ['python'] });
    const block = (spec: string) => `# /// script\n# requires-python = "${spec}"\n# ///\nprint("RAN")\n`;
    const bad = await runCli(ws, ['--profile-json', plain, '-'], { input: block('>=3.99') });
    assert.equal(bad.exitCode, 125, String(bad.stderr));
    assert.match(String(bad.stderr), /The script requires Python >=3\.99, but profile "inline" has Python 3\.\d+\.\d+: pick a profile whose image has a matching Python, or change requires-python\. Nothing ran\./);
    assert.equal(String(bad.stdout), '');
    const good = await runCli(ws, ['--profile-json', plain, '-'], { input: block('>=3.8') });
    assert.equal(good.exitCode, 0, String(good.stderr));
    assert.equal(String(good.stdout), 'RAN');
  });

  it('--prune-deps removes the cached set (name and data volume): the next run must install again, which fails with the registry gone', async () => {
    const imageId = String((await engineCli(['image', 'inspect', '--format', '{{.Id}}', LANGUAGE_IMAGES.pythonPip], { stdin: 'ignore' })).stdout).trim();
    const key = dependencySetKey({ imageId, manager: 'pip', specs: ['tinyapp'], installEnv: cliInstallEnv() });
    const mine = await setVolumes(key);
    assert.equal(mine.length, 2, 'the previous case left its set cached');
    const r = await runCli(ws, ['--prune-deps']);
    assert.equal(r.exitCode, 0, String(r.stderr));
    for (const v of mine) assert.match(String(r.stdout), new RegExp(`^removed\t${v}$`, 'm'));
    assert.deepEqual(await setVolumes(key), []);
    const again = await runCli(ws, ['--dependencies', '--install-network', NET2, '--profile-json', profileJson, '-'], { input: script, env: { ...process.env, PIP_INDEX_URL: INDEX_CLI } });
    assert.equal(again.exitCode, 125, 'the registry is gone, so the install fails: the set was not cached any more');
    assert.match(String(again.stderr), /pip could not install the dependencies from the script's "# \/\/\/ script" block/);
  });
});
