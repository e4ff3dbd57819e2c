/**
 * The body of a suite's entry point (suite/index.ts, suite-trust/index.ts), which the extension
 * host loads (`--extensionTestsPath`): checks the engine and the test images, then runs every
 * compiled `*.test.js` in the suite's folder with mocha (bdd, no colours: output is forwarded as
 * text), in name order, then the suite's root after-all hooks (`afterAll`: checks of how the whole
 * suite ended, e.g. no container left over). Resolves when all pass; rejects otherwise, which makes
 * the test runner exit non-zero. SANDBOX_RUNNER_HOST_GREP selects tests by title (mocha --grep).
 * A run where no test passed, a test was skipped (pending) or `.only` was left in fails too.
 * With SANDBOX_RUNNER_HOST_RESULT set (runHostTests.ts sets it), the counts are written there as
 * {@link SuiteResult} JSON, so the runner outside VS Code can check that tests really ran.
 */
import { execFile } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
// mocha is not bundled (it loads its reporters dynamically): it resolves from the repo's node_modules.
import Mocha from 'mocha';

function dockerOk(args: string[]): Promise<string | undefined> {
  return new Promise((resolve) =>
    execFile('docker', args, { timeout: 15_000 }, (err, _stdout, stderr) => resolve(err ? String(stderr).trim() || err.message : undefined)),
  );
}

/** Fails the whole run, with the fix, when the engine or a test image is missing (never skips). */
async function preflight(images: readonly string[]): Promise<void> {
  const engine = await dockerOk(['info', '--format', '{{.ServerVersion}}']);
  if (engine !== undefined) throw new Error(`the Docker engine is not reachable from the extension host (${engine}); run "bash scripts/engine-up.sh"`);
  for (const image of images) {
    if ((await dockerOk(['image', 'inspect', image])) !== undefined) throw new Error(`test image ${image} is missing; run "bash scripts/build-test-images.sh"`);
  }
}

/** What a suite run reports to SANDBOX_RUNNER_HOST_RESULT: mocha's counts of tests. */
export interface SuiteResult {
  readonly name: string;
  readonly passes: number;
  readonly failures: number;
  readonly pending: number;
}

export async function runMochaSuite(opts: {
  /** The suite's folder (its index's `__dirname`). */
  dir: string;
  /** Opens the closing line CI reads ("NAME: N passed, N failed"). */
  name: string;
  /** Test images the suite's profiles use (built by scripts/build-test-images.sh). */
  images: readonly string[];
  /** Runs after the preflight, before any test; may throw to fail the run. */
  prepare?: () => void;
  /**
   * Mocha root hooks (`rootHooks.afterAll`): run once after every test of the suite, whichever
   * file or describe they are in (also when SANDBOX_RUNNER_HOST_GREP selected some). A throw fails
   * the run as `"after all" hook: NAME in "{root}"`, and hooks after it in this list do not run.
   */
  afterAll?: readonly (() => Promise<void> | void)[];
}): Promise<void> {
  const { dir } = opts;
  await preflight(opts.images);
  opts.prepare?.();
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    reporter: 'spec',
    timeout: 60_000,
    slow: 5_000,
    forbidOnly: true,
    forbidPending: true,
    failZero: true,
    rootHooks: { afterAll: [...(opts.afterAll ?? [])] },
    ...(process.env.SANDBOX_RUNNER_HOST_GREP ? { grep: process.env.SANDBOX_RUNNER_HOST_GREP } : {}),
  });
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  if (files.length === 0) return Promise.reject(new Error(`no *.test.js files in ${dir}; run "node test/host/build.mjs"`));
  for (const f of files) mocha.addFile(join(dir, f));
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        const { passes = 0, failures: failed = 0, pending = 0 } = runner.stats ?? {};
        console.log(`${opts.name}: ${passes} passed, ${failed} failed${pending ? `, ${pending} skipped` : ''}`);
        const resultFile = process.env.SANDBOX_RUNNER_HOST_RESULT;
        if (resultFile) writeFileSync(resultFile, JSON.stringify({ name: opts.name, passes, failures: failed, pending } satisfies SuiteResult));
        // failZero counts a run without tests as one failure: say which it was.
        if (passes === 0 && failed === 0) reject(new Error('no host test ran'));
        else if (failures > 0) reject(new Error(`${failures} host test(s) failed`));
        else if (pending > 0) reject(new Error(`${pending} host test(s) skipped`));
        else resolve();
      });
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
