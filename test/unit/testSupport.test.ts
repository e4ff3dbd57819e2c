import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pollFor, settlesWithin, waitFor, within } from '../support/deadlines';
import { describeEngine, engineFromEnv, engineIsLocal, ENGINE2_HOST, LOCAL_DOCKER_HOST } from '../support/engine';
import { ALL_TEST_IMAGES, LANGUAGE_IMAGES, LANGUAGE_SUITE_IMAGES, TEST_IMAGES } from '../support/images';
import { profileOf, pythonProfile, shellProfile } from '../support/profiles';

const script = (name: string) => readFileSync(join(__dirname, '../../../scripts', name), 'utf8');

describe('test support (unit)', () => {
  it('names exactly the images scripts/build-test-images.sh builds and engine2-up.sh / podman-up.sh copy', () => {
    const built = [...script('build-test-images.sh').matchAll(/^[A-Z]+_IMAGE=(\S+)$/gm)].map((m) => m[1]);
    assert.deepEqual([...built].sort(), [...ALL_TEST_IMAGES, ...Object.values(LANGUAGE_IMAGES)].sort());
    const copied = (copier: string, list: string) => new RegExp(`^${list}=\\(([^)]*)\\)$`, 'm').exec(script(copier))?.[1]?.split(/\s+/).filter(Boolean).sort();
    assert.deepEqual(copied('engine2-up.sh', 'IMAGES'), [...ALL_TEST_IMAGES].sort());
    // Engine 2 also gets the pip image (the pip dependency suite runs there) and the languages
    // suite's images (its lean subset runs there and on Podman: npm run test:engine:remote, :podman).
    assert.deepEqual(copied('engine2-up.sh', 'LANGUAGE_IMAGES'), [LANGUAGE_IMAGES.pythonPip, ...LANGUAGE_SUITE_IMAGES].sort());
    assert.deepEqual(copied('podman-up.sh', 'IMAGES'), [...ALL_TEST_IMAGES, ...LANGUAGE_SUITE_IMAGES].sort());
  });

  it('profile factories build valid profiles on the test images, overrides on top', () => {
    assert.equal(pythonProfile().image, TEST_IMAGES.python);
    assert.deepEqual(pythonProfile().command, ['python3', '${file}']);
    assert.equal(pythonProfile({ network: 'bridge' }).network, 'bridge');
    assert.equal(shellProfile().image, TEST_IMAGES.busybox);
    assert.deepEqual(shellProfile({ image: TEST_IMAGES.volume }).command, ['sh', '${file}']);
    assert.equal(profileOf().image, 'img');
    assert.equal(profileOf().network, 'none');
    assert.throws(() => shellProfile({ network: 'host' }));
  });

  it('the engine under test comes from the environment only', () => {
    assert.deepEqual(engineFromEnv({}), { dockerPath: 'docker', host: undefined });
    const e2 = engineFromEnv({ DOCKER_HOST: ENGINE2_HOST, SANDBOX_RUNNER_TEST_DOCKER_PATH: 'podman' });
    assert.deepEqual(e2, { dockerPath: 'podman', host: ENGINE2_HOST });
    assert.equal(describeEngine(e2), `podman at DOCKER_HOST=${ENGINE2_HOST}`);
    assert.equal(engineIsLocal(e2), false);
    assert.equal(engineIsLocal(engineFromEnv({ DOCKER_HOST: LOCAL_DOCKER_HOST })), true);
  });

  it('deadline helpers fail naming what they waited for, and return values in time', async () => {
    await assert.rejects(waitFor(() => false, 30, 'never'), /^Error: timed out after 30 ms waiting for never$/);
    let calls = 0;
    await waitFor(() => ++calls === 3, 1_000, 'third call', 1);
    assert.equal(calls, 3);
    let late = 0;
    // Asked once more after the deadline: a probe that only holds then still counts.
    assert.equal(await pollFor(() => (++late > 1 ? 'ok' : undefined), 0, 'late'), 'ok');
    await assert.rejects(settlesWithin(new Promise(() => {}), 20, 'hang'), /hang did not settle within 20 ms/);
    assert.equal(await settlesWithin(Promise.resolve(7), 20, 'now'), 7);
    await assert.rejects(within(20, 'slow', () => new Promise(() => {})), /slow did not finish within 20 ms/);
  });
});
