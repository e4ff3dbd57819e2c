/**
 * OCI runtimes (issue 25): a profile's runtime is the one the run uses and reports, and a runtime
 * the engine does not offer is refused before anything starts (the engine refuses the create), and
 * the error names the runtime and the engine's list (asked after the failure, runner.ts). Under
 * `npm run test:engine:gvisor` (SANDBOX_RUNNER_TEST_RUNTIME=runsc) every suite profile asks for
 * gVisor, and this file proves the programs really ran under it.
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { engineRuntimes } from '../../src/core/engine/engine';
import { TEST_RUNTIME } from '../support/profiles';
import { RUNSC_MIN_PIDS } from '../../src/core/profiles/limits';
import { containerExists, engineDocker, noLeftoversAfterEach, pythonProfile, requireEngine, run, runCli } from './helpers';
import { makeWorkspace } from '../support/workspace';

describe('OCI runtimes (engine)', function () {
  this.timeout(120_000);
  before(requireEngine);
  noLeftoversAfterEach();

  const runtime = TEST_RUNTIME;
  if (runtime) {
    it(`the suites' runtime (${runtime}) is offered by the engine, is the one the program ran under, and is the one reported`, async () => {
      const offered = await engineRuntimes(engineDocker() ?? {});
      assert.ok(offered?.includes(runtime), `the engine offers ${JSON.stringify(offered)}; scripts/gvisor-up.sh registers runsc`);
      const r = await run(pythonProfile(), 'import platform, os\nprint(platform.release(), os.getuid())\n');
      assert.equal(r.result.outcome, 'exited', r.result.message);
      assert.equal(r.result.runtime, runtime);
      // gVisor's Sentry reports a fixed kernel release (4.4.0), never the host's.
      if (runtime === 'runsc') assert.equal(r.stdout, '4.4.0 65534\n');
    });

    if (runtime === 'runsc') {
      it('under gVisor a pids limit below RUNSC_MIN_PIDS is refused before anything starts (gVisor\'s own threads count against it)', async () => {
        let created = false;
        const r = await run(pythonProfile({ limits: { pids: 32 } }), 'print("ran")\n', { onArgv: () => (created = true) });
        assert.equal(r.result.outcome, 'failed-to-start');
        assert.equal(r.result.error?.code, 'invalid-profile');
        assert.match(r.result.message, new RegExp(`limits\\.pids is 32, but under gVisor .* at least ${RUNSC_MIN_PIDS}; nothing ran\\.`));
        assert.equal(r.stdout, '');
        assert.equal(created, false, 'no container may be created');
      });
    }

    it('the CLI summary names the runtime the run used, not the engine\'s default', async () => {
      const ws = await makeWorkspace('sr-runtime-ws-', {});
      try {
        const profile = JSON.stringify({ image: pythonProfile().image, command: ['python3', '${file}'], runtime });
        const r = await runCli(ws, ['--profile-json', profile, '-'], { input: 'print(1)\n', reject: false });
        assert.equal(r.exitCode, 0, String(r.stderr));
        assert.match(String(r.stderr), new RegExp(`· runtime ${runtime}\\]$`, 'm'));
      } finally {
        await rm(ws, { recursive: true, force: true });
      }
    });
    return;
  }

  it('a profile asking for runsc runs under it where the engine offers it, and is refused before anything starts, with the engine\'s list, where it does not', async () => {
    const offered = await engineRuntimes(engineDocker() ?? {});
    const r = await run(pythonProfile({ runtime: 'runsc' }), 'print("ran")\n');
    if (offered?.includes('runsc')) {
      assert.equal(r.result.outcome, 'exited', r.result.message);
      assert.equal(r.result.runtime, 'runsc');
      return;
    }
    assert.ok(offered, 'the engine lists its runtimes (GET /info Runtimes)');
    assert.equal(r.result.outcome, 'failed-to-start');
    assert.equal(r.result.error?.code, 'invalid-profile');
    assert.equal(r.result.message.startsWith(`The profile asks for the OCI runtime "runsc", which this engine does not offer (it offers: ${offered.join(', ')}), so nothing ran.`), true, r.result.message);
    assert.equal(r.stdout, '');
    assert.equal(r.result.runtime, undefined);
    assert.equal(await containerExists(r.result.containerName), false);
  });
});
