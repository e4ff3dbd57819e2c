/** Running code through the real commands, against the real Docker engine and the local test images. */
import * as assert from 'node:assert/strict';
import type { FinishedRun, ActiveRunInfo } from '../../../src/vscode/api';
import {
  IMAGES,
  assertRunResult,
  cleanUp,
  fixture,
  getApi,
  openFixture,
  outputOf,
  ownContainers,
  requireCommand,
  settlesWithin,
  startCommand,
} from './helpers';

const RUN_MS = 30_000;

describe('running code (host)', function () {
  this.timeout(60_000);
  afterEach(cleanUp);

  it('runs a Python selection with the workspace python profile and returns its result', async function () {
    await openFixture('hello.py', [2, 3]);
    const result = await settlesWithin(startCommand('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run');
    assertRunResult(result, 'sandboxRunner.run');
    assert.equal(result.outcome, 'exited', result.message);
    assert.equal(result.exitCode, 0, result.message);
    assert.ok(result.stdout.bytesKept > 0, 'no stdout bytes kept');
    assert.deepEqual(await ownContainers(), [], 'containers left behind');
  });

  it('shows only the selection\'s output in the output channel', async function () {
    const api = await getApi();
    await openFixture('hello.py', [2, 3]);
    const { text } = await outputOf(api, () => settlesWithin(startCommand('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run'));
    assert.match(text, /HOST-PY-SELECTED-A/);
    assert.match(text, /HOST-PY-SELECTED-B 42/);
    assert.doesNotMatch(text, /is not selected/, 'lines outside the selection ran');
    assert.match(text, /profile python/);
    assert.ok(text.includes(IMAGES.python), `the header does not name the image ${IMAGES.python}:\n${text}`);
  });

  it('runs a whole shell file with the workspace shell profile (busybox, non-root)', async function () {
    await openFixture('hello.sh');
    const result = await settlesWithin(startCommand('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run');
    assertRunResult(result, 'sandboxRunner.run');
    assert.equal(result.outcome, 'exited', result.message);
    assert.equal(result.exitCode, 0, result.message);
    assert.ok(result.stderr.bytesKept > 0, 'stderr was not collected');
  });

  it('shows the shell file\'s stdout and stderr in the output channel', async function () {
    const api = await getApi();
    await openFixture('hello.sh');
    const { text } = await outputOf(api, () => settlesWithin(startCommand('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run'));
    assert.match(text, /HOST-SH-OK 42/);
    assert.match(text, /HOST-SH-UID 65534/);
    assert.match(text, /HOST-SH-STDERR/);
    assert.match(text, /HOST-SH-ENV 1 dumb/, 'an output-channel run gets NO_COLOR=1 and TERM=dumb');
    assert.ok(text.includes(IMAGES.busybox), `the header does not name the image ${IMAGES.busybox}:\n${text}`);
  });

  it('sandboxRunner.runFile runs a file given by uri', async function () {
    await requireCommand('sandboxRunner.runFile');
    const api = await getApi();
    await openFixture('hello.py'); // a different active editor: the argument must win
    const { value: result, text } = await outputOf(api, () =>
      settlesWithin(startCommand('sandboxRunner.runFile', fixture('hello.sh')), RUN_MS, 'sandboxRunner.runFile'),
    );
    assertRunResult(result, 'sandboxRunner.runFile');
    assert.equal(result.outcome, 'exited', result.message);
    assert.match(text, /HOST-SH-OK 42/);
    assert.doesNotMatch(text, /HOST-PY/, 'it ran the active editor instead of the given file');
  });

  it('sandboxRunner.runWithProfile runs the active editor with the named profile', async function () {
    await requireCommand('sandboxRunner.runWithProfile');
    const api = await getApi();
    await openFixture('hello.sh');
    const { value: result, text } = await outputOf(api, () =>
      settlesWithin(startCommand('sandboxRunner.runWithProfile', 'shell'), RUN_MS, 'sandboxRunner.runWithProfile'),
    );
    assertRunResult(result, 'sandboxRunner.runWithProfile');
    assert.equal(result.outcome, 'exited', result.message);
    assert.match(text, /profile shell/);
    assert.match(text, /HOST-SH-OK 42/);
  });

  it('fires onDidStartRun and onDidFinishRun with the run\'s result', async function () {
    const api = await getApi();
    const started: ActiveRunInfo[] = [];
    const finished: FinishedRun[] = [];
    const subs = [api.onDidStartRun((r) => started.push(r)), api.onDidFinishRun((r) => finished.push(r))];
    try {
      await openFixture('hello.sh');
      const result = await settlesWithin(startCommand('sandboxRunner.run'), RUN_MS, 'sandboxRunner.run');
      assertRunResult(result, 'sandboxRunner.run');
      assert.equal(started.length, 1, 'onDidStartRun did not fire once');
      assert.equal(finished.length, 1, 'onDidFinishRun did not fire once');
      assert.equal(finished[0]!.id, started[0]!.id);
      assert.equal(finished[0]!.profileName, 'shell');
      assert.equal(finished[0]!.result.containerName, result.containerName);
      assert.deepEqual(api.activeRuns(), [], 'the finished run is still listed as active');
    } finally {
      for (const s of subs) s.dispose();
    }
  });
});
