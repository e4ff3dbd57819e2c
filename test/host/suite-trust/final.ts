/**
 * The end of the (trust) suite, run as a mocha root after-all hook (../lib/mochaSuite.ts
 * `afterAll`), so after every test whatever its file's name: nothing but warm containers is left,
 * a warm container is waiting (so the runner's after-exit check — deactivate removes it — proves
 * something), and the hostile fake docker never ran. Then it writes the finished report
 * runHostTests.ts reads after the host exits.
 */
import * as assert from 'node:assert/strict';
import { assertFakeDockerNeverRan, nonWarmContainers, waitForWarm, writeReport } from './helpers';

/** Only warm containers are left, at least one of them waiting, for deactivate to remove. */
async function onlyWarmLeft(): Promise<void> {
  const left = await nonWarmContainers();
  assert.deepEqual(left, [], `containers other than warm ones left behind: ${left.join(', ')}`);
  const warm = await waitForWarm('python');
  console.log(`      warm container waiting at the end of the suite: ${warm} (owner pid ${process.pid})`);
}

/** The hostile workspace's dockerPath never ran; then the report is written as finished. */
function fakeDockerNeverRan(): void {
  assertFakeDockerNeverRan('at the end of the suite');
  writeReport({ finished: true });
}

/**
 * Runs both checks (the second also when the first failed, as the two tests did before) and
 * fails with the first's error, or with both messages when both failed.
 */
export async function endOfTrustSuite(): Promise<void> {
  const errors: unknown[] = [];
  await onlyWarmLeft().catch((err: unknown) => errors.push(err));
  try {
    fakeDockerNeverRan();
  } catch (err) {
    errors.push(err);
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new Error(errors.map((e) => (e instanceof Error ? e.message : String(e))).join('\n\n'));
}
