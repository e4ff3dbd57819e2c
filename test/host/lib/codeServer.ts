/**
 * Starts and stops a real VS Code server (code-server's server and web workbench) for one hermetic
 * run (folders: ./runDirs.ts, environment: ./hermeticEnv.ts): on 127.0.0.1 with a port chosen by
 * the kernel, in its own process group, every wait with a timeout. Stopping ends the whole group
 * and removes the containers its extension hosts left (./leftovers.ts, ./ownedContainers.ts).
 * Used by the Electron-style shim (extension tests) and by the UI checks, through ./session.ts.
 * Tools come from scripts/host-tools.sh (./tools.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { deadline } from '../../support/deadlines';
import { GroupSampler } from './leftovers';
import { removeContainersOwnedBy } from './ownedContainers';
import type { RunDirs } from './runDirs';
import { captureServerLog, type ServerLog } from './serverLog';
import { codeServerPath } from './tools';

/** A running code-server. */
export interface CodeServer {
  readonly port: number;
  /** e.g. http://127.0.0.1:41234 */
  readonly origin: string;
  readonly pid: number;
  /** The last `lines` lines of the server's log (noise filtered out unless `all`). */
  logTail(lines?: number, all?: boolean): string;
  /** Stops the server's whole process group (TERM, then KILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** What {@link startCodeServer} needs. */
export interface CodeServerOptions {
  dirs: RunDirs;
  env: NodeJS.ProcessEnv;
  trust: boolean;
  /** Extra options passed straight to VS Code (`--vscode-option`). */
  vscodeOptions?: readonly string[];
  startTimeoutMs?: number;
  /**
   * When set (default: SANDBOX_RUNNER_HOST_LEFTOVERS), `stop()` first waits up to
   * `extensionHostExitMs` (default 10 s) for the extension hosts to end by themselves, then writes
   * a LeftoversRecord (./leftovers.ts, JSON) here before it kills the group and removes leftovers,
   * so a runner can tell what `deactivate` left behind from what the harness swept up.
   */
  leftoversFile?: string;
  extensionHostExitMs?: number;
}

/** code-server's command line: loopback, no auth, the run's folders, offline, smoke-test driver on. */
function serverArgs(opts: CodeServerOptions): string[] {
  const { dirs } = opts;
  return [
    '--bind-addr', '127.0.0.1:0',
    '--auth', 'none',
    '--config', dirs.config,
    '--user-data-dir', dirs.userData,
    '--extensions-dir', dirs.extensions,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--disable-proxy',
    '--ignore-last-opened',
    '--vscode-option', 'enable-smoke-test-driver',
    ...(opts.trust ? [] : ['--disable-workspace-trust']),
    ...(opts.vscodeOptions ?? []).flatMap((o) => ['--vscode-option', o]),
  ];
}

/** Waits for a child to exit, or for `ms`; true if it exited. */
function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Sends `signal` to the process group led by `pid` (kill(2) with -pid); nothing when it is gone. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * The server's `stop(graceMs = 5000)`, effective once: records leftovers when asked, TERMs the
 * group, KILLs what is left after `graceMs`, removes the containers of the group's processes and
 * closes the log.
 */
function stopper(child: ChildProcess, pid: number, sampler: GroupSampler, log: ServerLog, opts: CodeServerOptions): (graceMs?: number) => Promise<void> {
  const leftoversFile = opts.leftoversFile ?? (process.env.SANDBOX_RUNNER_HOST_LEFTOVERS || undefined);
  let stopped = false;
  return async (graceMs = 5000) => {
    if (stopped) return;
    stopped = true;
    sampler.stop();
    if (leftoversFile) {
      await sampler
        .recordLeftovers(leftoversFile, opts.extensionHostExitMs ?? 10_000)
        .catch((err: unknown) => process.stderr.write(`host: could not record leftovers in ${leftoversFile}: ${String(err)}\n`));
    }
    killGroup(pid, 'SIGTERM');
    if (!(await exited(child, graceMs))) process.stderr.write(`host: code-server (pid ${pid}) ignored SIGTERM for ${graceMs} ms; killing its process group\n`);
    // Whatever is left of the group (extension host, pty host, file watcher) goes too.
    killGroup(pid, 'SIGKILL');
    const removed = await removeContainersOwnedBy(sampler.seen);
    if (removed.length) process.stderr.write(`host: removed ${removed.length} container(s) the extension host left behind: ${removed.join(', ')}\n`);
    await log.end();
  };
}

/** The port of the "listening" line; rejects when the server exits first or after `ms`. */
async function listeningPort(child: ChildProcess, log: ServerLog, ms: number): Promise<number> {
  const earlyExit = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`code-server exited before listening (${signal ?? `exit ${code}`})`))),
  );
  earlyExit.catch(() => {});
  const timeout = deadline(ms, () => `code-server did not print "HTTP server listening on" within ${ms} ms`);
  try {
    return await Promise.race([log.port, earlyExit, timeout.promise]);
  } finally {
    timeout.clear();
  }
}

/**
 * Starts code-server on 127.0.0.1 with a port chosen by the kernel and waits (up to
 * `startTimeoutMs`, default 60 s) for its "HTTP server listening on" line. Its output goes to
 * `dirs.serverLog` (and a ring buffer). Throws, after stopping the server, with the log's last
 * lines when it exits or times out first.
 */
export async function startCodeServer(opts: CodeServerOptions): Promise<CodeServer> {
  const child = spawn(codeServerPath(), serverArgs(opts), { env: opts.env, cwd: opts.dirs.home, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${codeServerPath()}`);
  const log = captureServerLog(child, opts.dirs.serverLog);
  const stop = stopper(child, pid, new GroupSampler(pid), log, opts);
  try {
    const port = await listeningPort(child, log, opts.startTimeoutMs ?? 60_000);
    return { port, origin: `http://127.0.0.1:${port}`, pid, logTail: log.tail, stop };
  } catch (err) {
    await stop(1000);
    throw new Error(`${(err as Error).message}; last lines of ${opts.dirs.serverLog}:\n${log.tail(40, true)}`);
  }
}
