/**
 * An "Electron-style VS Code executable" for @vscode/test-electron's runTests on machines without
 * desktop VS Code. It takes the arguments runTests passes to VS Code:
 *   --extensionDevelopmentPath=DIR (repeatable) --extensionTestsPath=INDEX [WORKSPACE_FOLDER | FILE.code-workspace] [ignored…]
 * and runs the tests in a real extension host instead: code-server (VS Code server + web workbench,
 * with the smoke-test driver enabled) on 127.0.0.1, opened by headless Chromium with the test
 * payload. The workbench calls `codeAutomationExit(code)` when the test runner finishes; that code
 * becomes this process's exit status. Extension-host console output arrives via
 * `codeAutomationLog` and is printed (offline noise filtered).
 *
 * Environment:
 *   SANDBOX_RUNNER_HOST_TRUST=1      keep Workspace Trust on (default: --disable-workspace-trust)
 *   SANDBOX_RUNNER_HOST_TIMEOUT=S    hard limit for the whole run in seconds (default 600)
 *   SANDBOX_RUNNER_HOST_VERBOSE=1    print server and browser logs as they come
 *   SANDBOX_RUNNER_HOST_KEEP=1       keep the run's temp folder (logs, user data)
 *   SANDBOX_RUNNER_HOST_DEBUGLOG=1   print every codeAutomationLog call raw (type and arguments)
 *   SANDBOX_RUNNER_TOOLS, SANDBOX_RUNNER_CODE_SERVER, SANDBOX_RUNNER_CHROMIUM  tool locations
 * Exit status: the test runner's code; 1 when the host could not start, crashed or timed out.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { deadline, envSeconds } from '../support/deadlines';
import { formatLogArgs, isNoise } from './lib/logFilter';
import { remoteUri, workbenchUrl } from './lib/workbench';
import { HostSession } from './lib/session';

interface ShimArgs {
  readonly developmentPaths: string[];
  readonly testsPath: string | undefined;
  readonly folder: string | undefined;
}

/** Parses the Electron-style command line; options it does not know are ignored (with their `=value`). */
export function parseArgs(argv: readonly string[]): ShimArgs {
  const developmentPaths: string[] = [];
  let testsPath: string | undefined;
  let folder: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^--(extensionDevelopmentPath|extensionTestsPath)(?:=(.*))?$/.exec(arg);
    if (m) {
      const value = m[2] ?? argv[++i];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      if (m[1] === 'extensionDevelopmentPath') developmentPaths.push(resolve(value));
      else testsPath = resolve(value);
    } else if (!arg.startsWith('-') && folder === undefined) {
      folder = resolve(arg);
    }
  }
  return { developmentPaths, testsPath, folder };
}

function log(text: string): void {
  process.stderr.write(`shim: ${text}\n`);
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (!args.testsPath || args.developmentPaths.length === 0) {
    log('usage: codeServerShim --extensionDevelopmentPath=DIR --extensionTestsPath=PATH [WORKSPACE_FOLDER]');
    return 2;
  }
  for (const p of [...args.developmentPaths, args.folder].filter((x): x is string => !!x)) {
    // A multi-root workspace is a .code-workspace file (the multiroot host suite).
    const workspaceFile = p === args.folder && p.endsWith('.code-workspace') && existsSync(p) && statSync(p).isFile();
    if (!workspaceFile && (!existsSync(p) || !statSync(p).isDirectory())) {
      log(`not a folder: ${p}`);
      return 2;
    }
  }
  const testsEntry = /\.[cm]?js$/.test(args.testsPath) ? args.testsPath : `${args.testsPath}.js`;
  if (!existsSync(testsEntry) && !existsSync(resolve(args.testsPath, 'index.js'))) {
    log(`extension tests not found: ${args.testsPath} (build them first)`);
    return 2;
  }

  const trust = process.env.SANDBOX_RUNNER_HOST_TRUST === '1';
  const timeoutS = envSeconds('SANDBOX_RUNNER_HOST_TIMEOUT', 600);
  const t0 = Date.now();
  const session = new HostSession('sandbox-runner-host', trust);
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping`);
    void session.close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const hard = deadline(timeoutS * 1000, () => {
    const tail = session.server ? session.server.logTail(60) : '(server not started)';
    return `no result from the extension tests after ${timeoutS} s (SANDBOX_RUNNER_HOST_TIMEOUT); ` +
      `a hang often means the workbench ignored the test payload. Last lines of the server log:\n${tail}`;
  });
  try {
    const server = await session.startServer(hard.promise);
    log(`code-server listening on ${server.origin} (pid ${server.pid}) after ${Date.now() - t0} ms`);
    const { browser, page } = await session.openPage(hard.promise, { width: 1280, height: 800 });

    let exitWith: (code: number) => void = () => {};
    const exitCode = new Promise<number>((resolve) => (exitWith = resolve));
    await page.exposeFunction('codeAutomationExit', (code: unknown) => exitWith(typeof code === 'number' ? code : Number(code) || 1));
    await page.exposeFunction('codeAutomationLog', (type: unknown, args: unknown) => {
      const text = formatLogArgs(args);
      if (process.env.SANDBOX_RUNNER_HOST_DEBUGLOG === '1') process.stdout.write(`<${String(type)}|${JSON.stringify(args).slice(0, 200)}>\n`);
      if (isNoise(text)) return;
      if (type === 'error' || type === 'warn') process.stderr.write(`${text}\n`);
      else process.stdout.write(`${text}\n`);
    });
    const crashed = new Promise<never>((_, reject) => {
      page.once('crash', () => reject(new Error('the browser page crashed')));
      browser.once('disconnected', () => reject(new Error('the browser went away')));
    });
    crashed.catch(() => {});

    const payload: [string, string][] = [
      ...args.developmentPaths.map((p): [string, string] => ['extensionDevelopmentPath', remoteUri(server, p)]),
      ['extensionTestsPath', remoteUri(server, args.testsPath)],
    ];
    await Promise.race([page.goto(workbenchUrl(server, args.folder, payload), { waitUntil: 'domcontentloaded', timeout: 60_000 }), hard.promise]);
    const code = await Promise.race([exitCode, crashed, hard.promise]);
    log(`extension tests exited with ${code} after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return code;
  } catch (err) {
    log(`FAILED: ${(err as Error).message}`);
    return 1;
  } finally {
    hard.clear();
    await session.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`FAILED: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
