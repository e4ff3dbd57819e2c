/**
 * Dependencies on Podman (issue 22): a stated, tested refusal. An installed set is an engine volume
 * mounted into the run, and runs on Podman take no mounts (container/argv.ts `refusePodmanMounts`),
 * so a run that declares dependencies is refused before any container or volume exists, in one
 * sentence naming what to do. Tagged "(podman)", not "(engine)": `npm run test:engine:podman` runs it; anywhere else it
 * fails loudly rather than pass without checking anything. Also: `requires-python` without
 * dependencies (a probe container, no mount) works on Podman.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dependencySetKey, dependencyVolumeName } from '../../src/core/deps/cacheKey';
import { installEnvironment } from '../../src/core/deps/declared';
import { requireEngine as requireTestEngine, TEST_ENGINE } from '../support/engine';
import { cliEnv, ENGINE_KIND, engineCli, IMAGES, noLeftoversAfterEach, runCli } from './helpers';

describe('dependencies on Podman: refused (podman)', function () {
  this.timeout(120_000);
  let ws = '';

  before(async () => {
    if (ENGINE_KIND !== 'podman') throw new Error(`this suite checks Podman's refusal, but the engine under test is ${ENGINE_KIND}: run it with SANDBOX_RUNNER_TEST_DOCKER_PATH=podman (npm run test:engine:podman)`);
    await requireTestEngine(TEST_ENGINE, [IMAGES.python]);
    ws = await mkdtemp(join(tmpdir(), 'sr-deps-podman-'));
  });
  after(async () => {
    if (ws) await rm(ws, { recursive: true, force: true });
  });
  noLeftoversAfterEach();

  it('sandbox-run --dependencies with a PEP 723 script is refused before any container or volume, in one sentence naming Docker', async () => {
    const profileJson = JSON.stringify({ image: IMAGES.python, command: ['python3', '${file}'], languages: ['python'] });
    const indexUrl = `http://registry:8000/podman-${process.pid}/simple/`;
    const r = await runCli(ws, ['--dependencies', '--profile-json', profileJson, '-'], {
      input: '# /// script\n# dependencies = ["tinyhello"]\n# ///\nprint("RAN")\n',
      env: { ...process.env, ...cliEnv(), PIP_INDEX_URL: indexUrl },
    });
    assert.equal(r.exitCode, 125, String(r.stderr));
    assert.match(String(r.stderr), /This run declares dependencies, and this runner does not install them on Podman yet \(an installed set is a volume mounted into the run, and runs on Podman take no mounts\), so nothing ran\./);
    assert.match(String(r.stderr), /Run it with Docker \(sandboxRunner\.dockerPath, CLI --docker-path\)/);
    assert.equal(String(r.stdout), '');
    const imageId = String((await engineCli(['image', 'inspect', '--format', '{{.Id}}', IMAGES.python], { stdin: 'ignore' })).stdout).trim();
    const name = dependencyVolumeName(dependencySetKey({ imageId, manager: 'pip', specs: ['tinyhello'], installEnv: installEnvironment({ pipIndexUrl: '', npmRegistry: '' }, { ...process.env, PIP_INDEX_URL: indexUrl }) }));
    assert.equal(String((await engineCli(['volume', 'ls', '-q', '--filter', `name=${name}`], { stdin: 'ignore' })).stdout).trim(), '', 'a volume was created');
  });

  it('a requires-python without dependencies is checked on Podman too (the probe takes Podman\'s flavour of the floor): a mismatch is refused, a match runs', async () => {
    const profileJson = JSON.stringify({ image: IMAGES.python, command: ['python3', '${file}'], languages: ['python'] });
    const block = (spec: string) => `# /// script\n# requires-python = "${spec}"\n# ///\nprint("RAN")\n`;
    const env = { ...process.env, ...cliEnv() };
    const bad = await runCli(ws, ['--profile-json', profileJson, '-'], { input: block('>=3.99'), env });
    assert.equal(bad.exitCode, 125, String(bad.stderr));
    assert.match(String(bad.stderr), /The script requires Python >=3\.99, but profile "inline" has Python 3\.\d+\.\d+/);
    const good = await runCli(ws, ['--profile-json', profileJson, '-'], { input: block('>=3.8'), env });
    assert.equal(good.exitCode, 0, String(good.stderr));
    assert.equal(String(good.stdout), 'RAN');
  });
});
