/**
 * Entry point of the (trust) suite, loaded by the extension host (`--extensionTestsPath`) that
 * runHostTests.ts `--suite trust` starts: Workspace Trust on, a copy of test/host/fixtures/hostile
 * open and NOT trusted (Restricted Mode), user setting sandboxRunner.warmStart "all".
 * Runs every compiled `*.test.js` next to this file with mocha (bdd, no colours), in name order.
 * Resolves when all pass; rejects otherwise. SANDBOX_RUNNER_HOST_GREP selects tests by title.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';
import { IMAGES } from '../suite/helpers';
import { writeReport } from './helpers';

function dockerOk(args: string[]): Promise<string | undefined> {
  return new Promise((resolve) =>
    execFile('docker', args, { timeout: 15_000 }, (err, _stdout, stderr) => resolve(err ? String(stderr).trim() || err.message : undefined)),
  );
}

/** Fails the whole run, with the fix, when the engine or a test image is missing (never skips). */
async function preflight(): Promise<void> {
  const engine = await dockerOk(['info', '--format', '{{.ServerVersion}}']);
  if (engine !== undefined) throw new Error(`the Docker engine is not reachable from the extension host (${engine}); run "bash scripts/engine-up.sh"`);
  for (const image of Object.values(IMAGES)) {
    if ((await dockerOk(['image', 'inspect', image])) !== undefined) throw new Error(`test image ${image} is missing; run "bash scripts/build-test-images.sh"`);
  }
  if (!process.env.SANDBOX_RUNNER_HOST_REPORT) throw new Error('SANDBOX_RUNNER_HOST_REPORT is not set: run this suite with "node out/test/host/runHostTests.js --suite trust"');
}

export async function run(): Promise<void> {
  await preflight();
  writeReport({ finished: false });
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    reporter: 'spec',
    timeout: 60_000,
    slow: 5_000,
    ...(process.env.SANDBOX_RUNNER_HOST_GREP ? { grep: process.env.SANDBOX_RUNNER_HOST_GREP } : {}),
  });
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  if (files.length === 0) return Promise.reject(new Error(`no *.test.js files in ${__dirname}; run "node test/host/build.mjs"`));
  for (const f of files) mocha.addFile(join(__dirname, f));
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        const { passes = 0, failures: failed = 0, pending = 0 } = runner.stats ?? {};
        console.log(`host (trust): ${passes} passed, ${failed} failed${pending ? `, ${pending} skipped` : ''}`);
        if (failures > 0) reject(new Error(`${failures} host test(s) failed`));
        else if (passes === 0) reject(new Error('no host test ran'));
        else resolve();
      });
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
