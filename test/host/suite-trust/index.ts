/**
 * Entry point of the (trust) suite, loaded by the extension host (`--extensionTestsPath`) that
 * runHostTests.ts `--suite trust` starts: Workspace Trust on, a copy of test/host/fixtures/hostile
 * open and NOT trusted (Restricted Mode), user setting sandboxRunner.warmStart "all".
 * Runs every compiled `*.test.js` next to this file with mocha, in name order (see
 * ../lib/mochaSuite.ts), then the end-of-suite checks (./final.ts, a root after-all hook), which
 * write the finished report. SANDBOX_RUNNER_HOST_GREP selects tests by title.
 */
import { runMochaSuite } from '../lib/mochaSuite';
import { IMAGES } from '../suite/helpers';
import { endOfTrustSuite } from './final';
import { writeReport } from './helpers';

export function run(): Promise<void> {
  return runMochaSuite({
    dir: __dirname,
    name: 'host (trust)',
    images: Object.values(IMAGES),
    prepare: () => {
      if (!process.env.SANDBOX_RUNNER_HOST_REPORT) throw new Error('SANDBOX_RUNNER_HOST_REPORT is not set: run this suite with "node out/test/host/runHostTests.js --suite trust"');
      writeReport({ finished: false });
    },
    afterAll: [endOfTrustSuite],
  });
}
