/**
 * Runs the (host) suites in a real VS Code extension host through @vscode/test-electron's runTests.
 *
 * Here (default): VS Code is the code-server shim (out/test/host/codeServerShim.js), which needs
 * the tools from scripts/host-tools.sh. On a desktop with internet, SANDBOX_RUNNER_HOST=desktop
 * lets test-electron download desktop VS Code instead; nothing else changes.
 *
 * Uses the extension's own bundle (dist/extension.js, from `npm run build`) and the compiled
 * suites (out/test/host, from `node test/host/build.mjs`). Exits non-zero when the host cannot
 * start or any test fails; it never skips.
 */
import { runTests } from '@vscode/test-electron';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root (this file runs as out/test/host/runHostTests.js). */
const repo = resolve(__dirname, '..', '..', '..');

async function main(): Promise<number> {
  const desktop = process.env.SANDBOX_RUNNER_HOST === 'desktop';
  const extensionTestsPath = join(repo, 'out', 'test', 'host', 'suite', 'index.js');
  const shim = join(repo, 'out', 'test', 'host', 'codeServerShim.js');
  const workspace = join(repo, 'test', 'host', 'fixtures', 'workspace');
  for (const [path, fix] of [
    [join(repo, 'dist', 'extension.js'), 'npm run build'],
    [extensionTestsPath, 'node test/host/build.mjs'],
    [shim, 'node test/host/build.mjs'],
    [workspace, 'git checkout test/host/fixtures'],
  ] as const) {
    if (!existsSync(path)) {
      console.error(`host tests: ${path} is missing; run "${fix}" first.`);
      return 1;
    }
  }
  // Desktop VS Code keeps its profile in a fresh temp folder too (test-electron's default is
  // .vscode-test/ in the current folder); code-server ignores these and makes its own.
  const profile = mkdtempSync(join(tmpdir(), 'sandbox-runner-host-desktop-'));
  const t0 = Date.now();
  try {
    await runTests({
      ...(desktop ? {} : { vscodeExecutablePath: shim }),
      extensionDevelopmentPath: repo,
      extensionTestsPath,
      launchArgs: [
        workspace,
        '--disable-extensions',
        `--user-data-dir=${join(profile, 'user-data')}`,
        `--extensions-dir=${join(profile, 'extensions')}`,
      ],
    });
    console.log(`host tests: passed in ${((Date.now() - t0) / 1000).toFixed(1)} s (${desktop ? 'desktop VS Code' : 'code-server'})`);
    return 0;
  } catch (err) {
    console.error(`host tests: FAILED after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${(err as Error).message}`);
    return 1;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code));
