/** The status-bar item shows while a run is in progress and goes away after. */
import * as assert from 'node:assert/strict';
import type { RunResult } from '../../../src/core/run/result';
import { assertRunResult, cleanUp, getApi, openFixture, settlesWithin, startCommand, waitFor } from './helpers';

describe('status bar (host)', function () {
  this.timeout(60_000);
  afterEach(cleanUp);

  it('shows an item while a run is in progress and hides it when the run ends', async function () {
    const api = await getApi();
    assert.equal(api.statusBarText(), undefined, `a status-bar item is visible before any run: ${api.statusBarText()}`);
    await openFixture('sleepy.py'); // prints, sleeps 4 s, prints
    const pending = startCommand<RunResult>('sandboxRunner.run');
    await waitFor(() => api.statusBarText() !== undefined, 10_000, 'the status-bar item to appear');
    const text = api.statusBarText()!;
    assert.ok(text.trim().length > 0, 'the status-bar item is empty');
    assert.ok(text.length <= 60, `the status-bar text is long (${text.length} chars): ${text}`);
    assert.equal(api.activeRuns().length, 1);
    const result = await settlesWithin(pending, 30_000, 'sandboxRunner.run');
    assertRunResult(result, 'sandboxRunner.run');
    assert.equal(result.outcome, 'exited', result.message);
    assert.ok(result.durationMs >= 3_500, `the run took ${result.durationMs} ms; sleepy.py sleeps 4 s`);
    await waitFor(() => api.statusBarText() === undefined, 2_000, `the status-bar item "${api.statusBarText()}" to go away`);
    assert.match(api.outputText(), /HOST-SLEEPY-DONE 42/);
  });
});
