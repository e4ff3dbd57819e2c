/**
 * Runs the (host) suites in a real VS Code extension host through @vscode/test-electron's runTests.
 *
 * Here (default): VS Code is the code-server shim (out/test/host/codeServerShim.js), which needs
 * the tools from scripts/host-tools.sh. On a desktop with internet, SANDBOX_RUNNER_HOST=desktop
 * lets test-electron download desktop VS Code instead; nothing else changes.
 *
 * Suites (`--suite NAME`, default `default`):
 *   default  out/test/host/suite in test/host/fixtures/workspace, Workspace Trust off (trusted).
 *   trust    out/test/host/suite-trust in a fresh copy of test/host/fixtures/hostile, Workspace
 *            Trust ON and the folder not trusted (Restricted Mode), user setting
 *            sandboxRunner.warmStart "all". After VS Code exits, this runner checks from outside
 *            that the extension host ended by itself (deactivate ran) leaving no container it owned
 *            (warm ones included), and that the hostile workspace's fake docker never ran.
 *            Code-server only: test-electron always passes --disable-workspace-trust to desktop VS Code.
 *   multiroot out/test/host/suite-multiroot in a fresh copy of test/host/fixtures/multiroot opened
 *            as a two-folder workspace (multi.code-workspace), Workspace Trust off (trusted).
 *
 * Uses the extension's own bundle (dist/extension.js, from `npm run build`) and the compiled
 * suites (out/test/host, from `node test/host/build.mjs`). Exits non-zero when the host cannot
 * start or any test fails; it never skips. It also fails unless the suite itself reported, through
 * SANDBOX_RUNNER_HOST_RESULT (see lib/mochaSuite.ts), that tests ran and passed: a host that exits
 * 0 without running the suite (or with no test selected) is a failure, not a pass.
 */
import { runTests } from '@vscode/test-electron';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { LeftoversRecord } from './lib/leftovers';
import type { SuiteResult } from './lib/mochaSuite';

/** The repository root (this file runs as out/test/host/runHostTests.js). */
const repo = resolve(__dirname, '..', '..', '..');

/** What the (trust) suite reports about itself (see suite-trust/helpers.ts `writeReport`). */
interface TrustReport {
  readonly extensionHostPid: number;
  readonly warmContainersSeen: readonly string[];
  readonly finished: boolean;
}

/** One suite: its compiled index, the folder it opens, and what it needs around the run. */
interface Suite {
  readonly index: string;
  readonly workspace: string;
  readonly env: Record<string, string>;
  /** User settings for desktop VS Code (code-server gets them through SANDBOX_RUNNER_HOST_USER_SETTINGS). */
  readonly userSettings: Record<string, unknown>;
  /** Checks from outside after VS Code exited; returns problems. */
  readonly after?: () => Promise<string[]>;
  readonly dispose: () => void;
}

function parseSuite(argv: readonly string[]): string {
  const i = argv.indexOf('--suite');
  const inline = argv.find((a) => a.startsWith('--suite='));
  return (inline ? inline.slice('--suite='.length) : i >= 0 ? argv[i + 1] : undefined) ?? 'default';
}

/** Lists containers (any state) whose owner pid label is `pid`. */
function containersOfPid(pid: number): string[] {
  try {
    return execFileSync('docker', ['ps', '-a', '--filter', `label=sandbox-runner.owner-pid=${pid}`, '--format', '{{.Names}}'], { encoding: 'utf8', timeout: 15_000 })
      .split('\n')
      .filter(Boolean);
  } catch (err) {
    return [`(docker ps failed: ${(err as Error).message})`];
  }
}

/** A fresh copy of the hostile fixture with its placeholders filled in, plus the trust suite's files. */
function trustSuite(): Suite {
  const root = mkdtempSync(join(tmpdir(), 'sandbox-runner-trust-'));
  const workspace = join(root, 'hostile-workspace');
  cpSync(join(repo, 'test', 'host', 'fixtures', 'hostile'), workspace, { recursive: true });
  chmodSync(join(workspace, 'bin', 'docker'), 0o755);
  const settingsPath = join(workspace, '.vscode', 'settings.json');
  const realHome = process.env.HOME || homedir();
  writeFileSync(settingsPath, readFileSync(settingsPath, 'utf8').replaceAll('@@HOSTILE_DIR@@', workspace).replaceAll('@@REAL_HOME@@', realHome));
  const marker = join(workspace, 'DOCKER-PATH-WAS-RUN');
  const reportFile = join(root, 'report.json');
  const leftoversFile = join(root, 'leftovers.json');
  const userSettings = { 'sandboxRunner.warmStart': 'all' };
  return {
    index: join(repo, 'out', 'test', 'host', 'suite-trust', 'index.js'),
    workspace,
    userSettings,
    env: {
      SANDBOX_RUNNER_HOST_TRUST: '1',
      SANDBOX_RUNNER_HOST_USER_SETTINGS: JSON.stringify(userSettings),
      SANDBOX_RUNNER_HOST_REPORT: reportFile,
      SANDBOX_RUNNER_HOST_LEFTOVERS: leftoversFile,
    },
    after: async () => {
      const problems: string[] = [];
      if (existsSync(marker)) problems.push(`the hostile workspace's fake docker (its sandboxRunner.dockerPath) ran:\n${readFileSync(marker, 'utf8')}`);
      if (!existsSync(reportFile)) return [...problems, `the suite wrote no report to ${reportFile}`];
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as TrustReport;
      if (!report.finished) problems.push('the suite did not reach its last test (report not finished)');
      if (report.warmContainersSeen.length === 0) problems.push('the suite saw no warm container, so "removed on deactivate" proves nothing');
      const pid = report.extensionHostPid;
      if (existsSync(leftoversFile)) {
        // code-server: what was left when the extension host had ended by itself, before the harness swept up.
        const record = JSON.parse(readFileSync(leftoversFile, 'utf8')) as LeftoversRecord;
        if (!record.extensionHostPids.includes(pid)) problems.push(`the harness never saw the extension host (pid ${pid}); seen: ${record.extensionHostPids.join(', ')}`);
        if (record.stillRunning.includes(pid)) {
          problems.push(`the extension host (pid ${pid}) was still running ${record.waitedMs} ms after the tests ended: VS Code did not terminate it, so deactivate was not exercised`);
        }
        const left = record.containers.filter((c) => c.ownerPid === pid);
        if (left.length) {
          problems.push(
            `the extension host (pid ${pid}) ended leaving ${left.length} container(s) it owned (deactivate must remove warm containers): ` +
              left.map((c) => `${c.name} (profile ${c.profile}${c.warm ? ', warm' : ''}, ${c.status})`).join('; '),
          );
        }
        console.log(
          `host tests: extension host ${pid} ended by itself within ${record.waitedMs} ms; containers it owned at that point: ${left.length}` +
            ` (warm containers seen during the suite: ${report.warmContainersSeen.length})`,
        );
      }
      const now = containersOfPid(pid);
      if (now.length) problems.push(`containers owned by the extension host (pid ${pid}) still exist: ${now.join(', ')}`);
      return problems;
    },
    dispose: () => {
      if (process.env.SANDBOX_RUNNER_HOST_KEEP === '1') console.error(`host tests: kept ${root} (SANDBOX_RUNNER_HOST_KEEP=1)`);
      else rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** A fresh copy of the multi-root fixture (two folders with their own settings), opened by its .code-workspace file. */
function multirootSuite(): Suite {
  const root = mkdtempSync(join(tmpdir(), 'sandbox-runner-multiroot-'));
  cpSync(join(repo, 'test', 'host', 'fixtures', 'multiroot'), root, { recursive: true });
  return {
    index: join(repo, 'out', 'test', 'host', 'suite-multiroot', 'index.js'),
    workspace: join(root, 'multi.code-workspace'),
    env: {},
    userSettings: {},
    dispose: () => rmSync(root, { recursive: true, force: true, maxRetries: 3 }),
  };
}

function defaultSuite(): Suite {
  return {
    index: join(repo, 'out', 'test', 'host', 'suite', 'index.js'),
    workspace: join(repo, 'test', 'host', 'fixtures', 'workspace'),
    env: {},
    userSettings: {},
    dispose: () => {},
  };
}

/** Why the suite's own report (written by lib/mochaSuite.ts) does not show a passing run with tests; undefined when it does. */
function ranProblem(resultFile: string): string | undefined {
  if (!existsSync(resultFile)) return `VS Code exited without the suite reporting a result (${resultFile}): its tests never ran`;
  const r = JSON.parse(readFileSync(resultFile, 'utf8')) as SuiteResult;
  if (r.passes === 0) return `the suite "${r.name}" ran no test`;
  if (r.failures > 0 || r.pending > 0) return `the suite "${r.name}" reported ${r.failures} failed and ${r.pending} skipped test(s)`;
  return undefined;
}

async function main(): Promise<number> {
  const desktop = process.env.SANDBOX_RUNNER_HOST === 'desktop';
  const name = parseSuite(process.argv.slice(2));
  if (name !== 'default' && name !== 'trust' && name !== 'multiroot') {
    console.error(`host tests: unknown suite "${name}" (use --suite default, trust or multiroot)`);
    return 2;
  }
  if (name === 'trust' && desktop) {
    console.error('host tests: the trust suite needs Workspace Trust on, but @vscode/test-electron always passes --disable-workspace-trust to desktop VS Code; run it on code-server (unset SANDBOX_RUNNER_HOST).');
    return 2;
  }
  const label = name === 'default' ? '' : ` (${name})`;
  const shim = join(repo, 'out', 'test', 'host', 'codeServerShim.js');
  const suite = name === 'trust' ? trustSuite() : name === 'multiroot' ? multirootSuite() : defaultSuite();
  const extensionTestsPath = suite.index;
  for (const [path, fix] of [
    [join(repo, 'dist', 'extension.js'), 'npm run build'],
    [extensionTestsPath, 'node test/host/build.mjs'],
    [shim, 'node test/host/build.mjs'],
    [suite.workspace, 'git checkout test/host/fixtures'],
  ] as const) {
    if (!existsSync(path)) {
      console.error(`host tests: ${path} is missing; run "${fix}" first.`);
      suite.dispose();
      return 1;
    }
  }
  // Desktop VS Code keeps its profile in a fresh temp folder too (test-electron's default is
  // .vscode-test/ in the current folder); code-server ignores these and makes its own.
  const profile = mkdtempSync(join(tmpdir(), 'sandbox-runner-host-desktop-'));
  if (desktop && Object.keys(suite.userSettings).length) {
    mkdirSync(join(profile, 'user-data', 'User'), { recursive: true });
    writeFileSync(join(profile, 'user-data', 'User', 'settings.json'), JSON.stringify(suite.userSettings, null, 2));
  }
  const resultFile = join(profile, 'suite-result.json');
  const t0 = Date.now();
  try {
    let failure: string | undefined;
    try {
      await runTests({
        ...(desktop ? {} : { vscodeExecutablePath: shim }),
        extensionDevelopmentPath: repo,
        extensionTestsPath,
        extensionTestsEnv: { ...suite.env, SANDBOX_RUNNER_HOST_RESULT: resultFile },
        launchArgs: [
          suite.workspace,
          '--disable-extensions',
          `--user-data-dir=${join(profile, 'user-data')}`,
          `--extensions-dir=${join(profile, 'extensions')}`,
        ],
      });
    } catch (err) {
      failure = (err as Error).message;
    }
    failure ??= ranProblem(resultFile);
    // Checks from outside run whatever the tests' outcome: they are about how the host ended.
    const problems = (await suite.after?.()) ?? [];
    for (const p of problems) console.error(`host tests${label}: FAILED after the host exited: ${p}`);
    const took = `${((Date.now() - t0) / 1000).toFixed(1)} s`;
    if (failure !== undefined || problems.length) {
      console.error(`host tests${label}: FAILED after ${took}: ${failure ?? `${problems.length} problem(s) found after the host exited`}`);
      return 1;
    }
    console.log(`host tests${label}: passed in ${took} (${desktop ? 'desktop VS Code' : 'code-server'})`);
    return 0;
  } finally {
    rmSync(profile, { recursive: true, force: true });
    suite.dispose();
  }
}

main().then((code) => process.exit(code));
