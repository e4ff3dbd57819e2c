/** Cancelling runs through the commands removes their containers. */
import * as assert from 'node:assert/strict';
import type { RunResult } from '../../../src/core/run/result';
import {
  assertRunResult,
  cleanUp,
  containerExists,
  getApi,
  openFixture,
  ownContainers,
  requireCommand,
  runningOwnContainers,
  settlesWithin,
  startCommand,
  waitFor,
} from './helpers';

/**
 * Starts long.sh (sleeps 120 s) and waits until `expectedRunning` containers of this extension
 * host run. Returns the command's promise wrapped (an async function would flatten it).
 */
async function startLongRun(expectedRunning: number): Promise<{ pending: Promise<RunResult> }> {
  await openFixture('long.sh');
  const pending = startCommand<RunResult>('sandboxRunner.run');
  await waitFor(async () => (await runningOwnContainers()).length >= expectedRunning, 20_000, `${expectedRunning} running container(s) of this extension host`);
  return { pending };
}

async function assertCancelled(pending: Promise<RunResult>, what: string): Promise<RunResult> {
  const result = await settlesWithin(pending, 15_000, `${what}: the cancelled run`);
  assertRunResult(result, 'sandboxRunner.run');
  assert.equal(result.outcome, 'cancelled', `${what}: ${result.message}`);
  assert.equal(await containerExists(result.containerName), false, `${what}: container ${result.containerName} still exists`);
  return result;
}

describe('cancelling runs (host)', function () {
  this.timeout(60_000);
  afterEach(cleanUp);

  it('sandboxRunner.cancel with a run id cancels that run and removes its container', async function () {
    await requireCommand('sandboxRunner.cancel');
    const api = await getApi();
    const { pending } = await startLongRun(1);
    const runs = api.activeRuns();
    assert.equal(runs.length, 1, `activeRuns() lists ${runs.length} runs, expected 1`);
    assert.equal(runs[0]!.profileName, 'shell');
    await settlesWithin(Promise.resolve(startCommand('sandboxRunner.cancel', runs[0]!.id)), 15_000, 'sandboxRunner.cancel');
    await assertCancelled(pending, 'cancel(id)');
    assert.deepEqual(await ownContainers(), []);
    assert.deepEqual(api.activeRuns(), [], 'the cancelled run is still listed as active');
  });

  it('sandboxRunner.cancel without an argument cancels the only run', async function () {
    await requireCommand('sandboxRunner.cancel');
    const { pending } = await startLongRun(1);
    await settlesWithin(Promise.resolve(startCommand('sandboxRunner.cancel')), 15_000, 'sandboxRunner.cancel');
    await assertCancelled(pending, 'cancel()');
    assert.deepEqual(await ownContainers(), []);
  });

  it('sandboxRunner.cancelAll cancels every run and removes every container', async function () {
    await requireCommand('sandboxRunner.cancelAll');
    const { pending: first } = await startLongRun(1);
    const { pending: second } = await startLongRun(2);
    assert.equal((await ownContainers()).length, 2);
    await settlesWithin(Promise.resolve(startCommand('sandboxRunner.cancelAll')), 20_000, 'sandboxRunner.cancelAll');
    const a = await assertCancelled(first, 'cancelAll, first run');
    const b = await assertCancelled(second, 'cancelAll, second run');
    assert.notEqual(a.containerName, b.containerName);
    assert.deepEqual(await ownContainers(), []);
  });
});
