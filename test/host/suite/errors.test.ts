/** A run whose image is missing fails with the clear error and leaves nothing behind. */
import * as assert from 'node:assert/strict';
import type { RunResult } from '../../../src/core/run/result';
import type { FinishedRun } from '../../../src/vscode/api';
import { assertRunResult, cleanUp, clearNotifications, containerExists, getApi, openFixture, ownContainers, settlesWithin, startCommand } from './helpers';

const ABSENT = 'sandbox-runner-test/absent:1';

/** Runs snippet.noimage (profile no-image); dismisses the error notification the command may wait on. */
async function runMissingImage(): Promise<RunResult> {
  await openFixture('snippet.noimage');
  const pending = startCommand<RunResult>('sandboxRunner.run');
  const result = await settlesWithin(
    Promise.race([
      pending,
      // The command may wait for the error notification's answer: dismiss it once the run ended.
      (async () => {
        for (;;) {
          await new Promise((r) => setTimeout(r, 1_000));
          await clearNotifications();
        }
      })() as Promise<never>,
    ]),
    30_000,
    'sandboxRunner.run with a missing image',
  );
  assertRunResult(result, 'sandboxRunner.run');
  return result;
}

describe('errors (host)', function () {
  this.timeout(60_000);
  afterEach(cleanUp);

  it('a missing image fails to start with the image-missing error and its fix', async function () {
    const result = await runMissingImage();
    assert.equal(result.outcome, 'failed-to-start', result.message);
    assert.equal(result.error?.code, 'image-missing', JSON.stringify(result.error));
    assert.ok(result.message.includes(ABSENT) || result.error.message.includes(ABSENT), `the error does not name the image: ${result.message}`);
    assert.match(result.error.fix, /docker (pull|build)/, `the fix does not say how to get the image: ${result.error.fix}`);
    assert.equal(result.exitCode, null);
  });

  it('a missing image leaves no container, no active run and no status-bar item', async function () {
    const api = await getApi();
    const finished: FinishedRun[] = [];
    const sub = api.onDidFinishRun((r) => finished.push(r));
    try {
      const result = await runMissingImage();
      assert.equal(result.outcome, 'failed-to-start', result.message);
      assert.equal(await containerExists(result.containerName), false, `container ${result.containerName} exists`);
      assert.deepEqual(await ownContainers(), []);
      assert.deepEqual(api.activeRuns(), []);
      assert.equal(api.statusBarText(), undefined, `status-bar item still visible: ${api.statusBarText()}`);
      assert.equal(finished.length, 1, 'onDidFinishRun did not fire for the failed run');
      assert.equal(finished[0]!.result.outcome, 'failed-to-start');
    } finally {
      sub.dispose();
    }
  });

  it('a missing image writes the error and its fix to the output channel', async function () {
    const api = await getApi();
    const before = api.outputText();
    const result = await runMissingImage();
    const text = api.outputText().slice(before.length);
    assert.ok(text.includes(result.message), `the output channel does not show "${result.message}":\n${text}`);
    assert.ok(result.error && text.includes(result.error.fix), `the output channel does not show the fix "${result.error?.fix}":\n${text}`);
    assert.doesNotMatch(text, /HOST-NOIMAGE-NOT-REACHED/);
  });
});
