/**
 * Runs a real VS Code (code-server's server and web workbench) and a headless Chromium client,
 * hermetically: every run gets fresh user-data, extensions, config, HOME, XDG and TMPDIR folders
 * in one temp folder, the server runs in its own process group, and every wait has a timeout.
 * Used by the Electron-style shim (extension tests) and by the UI check.
 * Tools come from scripts/host-tools.sh (cached outside the repo).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';
import type { Browser, Page } from 'playwright-core';

/** The tools cache of scripts/host-tools.sh. */
export function toolsDir(): string {
  return process.env.SANDBOX_RUNNER_TOOLS || '/var/cache/sandbox-runner-host';
}

/** The code-server launcher (a wrapper that runs it on Node 24). Throws with the fix when missing. */
export function codeServerPath(): string {
  const path = process.env.SANDBOX_RUNNER_CODE_SERVER || join(toolsDir(), 'bin', 'code-server');
  if (!existsSync(path)) {
    throw new Error(`code-server is not installed at ${path}; run "bash scripts/host-tools.sh" first (or set SANDBOX_RUNNER_CODE_SERVER).`);
  }
  return path;
}

/** The Chromium binary. Throws with the fix when missing. */
export function chromiumPath(): string {
  const path = process.env.SANDBOX_RUNNER_CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(path)) throw new Error(`Chromium is not installed at ${path}; run "bash scripts/host-tools.sh" first (or set SANDBOX_RUNNER_CHROMIUM).`);
  return path;
}

/** True when SANDBOX_RUNNER_HOST_VERBOSE=1: server and browser logs are printed as they come. */
export const verbose = process.env.SANDBOX_RUNNER_HOST_VERBOSE === '1';

/** Fresh folders for one run, all inside `root`. */
export interface RunDirs {
  readonly root: string;
  readonly userData: string;
  readonly extensions: string;
  readonly config: string;
  readonly home: string;
  readonly tmp: string;
  readonly serverLog: string;
}

/** Creates the folders of one run under the current TMPDIR. */
export function makeRunDirs(prefix: string): RunDirs {
  const root = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const d = {
    root,
    userData: join(root, 'user-data'),
    extensions: join(root, 'extensions'),
    config: join(root, 'config.yaml'),
    home: join(root, 'home'),
    tmp: join(root, 'tmp'),
    serverLog: join(root, 'code-server.log'),
  };
  for (const dir of [d.userData, join(d.userData, 'User'), d.extensions, d.home, d.tmp]) mkdirSync(dir, { recursive: true });
  for (const x of ['config', 'cache', 'data', 'state']) mkdirSync(join(root, 'xdg', x), { recursive: true });
  mkdirSync(join(root, 'xdg', 'runtime'), { recursive: true, mode: 0o700 });
  // code-server reads bind address and auth from here; the command line repeats them anyway.
  writeFileSync(d.config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  return d;
}

/** Removes a run's folders unless SANDBOX_RUNNER_HOST_KEEP=1 (then says where they are). */
export function removeRunDirs(dirs: RunDirs): void {
  if (process.env.SANDBOX_RUNNER_HOST_KEEP === '1') {
    process.stderr.write(`host: kept ${dirs.root} (SANDBOX_RUNNER_HOST_KEEP=1)\n`);
    return;
  }
  rmSync(dirs.root, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * The environment of the server and the browser: the caller's, with HOME, XDG and TMPDIR moved into
 * the run's folder (code-server, VS Code and Chromium write there), the tools' Node 24 first on
 * PATH, no extension gallery, and none of a surrounding VS Code's variables. The Docker engine's
 * settings (DOCKER_HOST, DOCKER_CONTEXT, the CLI config folder) still reach the extension host.
 */
export function hermeticEnv(dirs: RunDirs): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('VSCODE_') || key.startsWith('ELECTRON_') || key === 'CODE_SERVER_PARENT_PID') delete env[key];
  }
  const realDockerConfig = process.env.DOCKER_CONFIG || join(process.env.HOME || homedir(), '.docker');
  if (existsSync(realDockerConfig)) env.DOCKER_CONFIG = realDockerConfig;
  Object.assign(env, {
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    XDG_CONFIG_HOME: join(dirs.root, 'xdg', 'config'),
    XDG_CACHE_HOME: join(dirs.root, 'xdg', 'cache'),
    XDG_DATA_HOME: join(dirs.root, 'xdg', 'data'),
    XDG_STATE_HOME: join(dirs.root, 'xdg', 'state'),
    XDG_RUNTIME_DIR: join(dirs.root, 'xdg', 'runtime'),
    PATH: `${join(toolsDir(), 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    // No gallery: nothing looks extensions up (the machine is offline anyway).
    EXTENSIONS_GALLERY: '{}',
  });
  return env;
}

/**
 * Extra user settings for one run from SANDBOX_RUNNER_HOST_USER_SETTINGS (a JSON object), so a
 * runner can seed settings through @vscode/test-electron's Electron-style shim (which only passes
 * the environment on). Throws with the variable's name when it is not a JSON object.
 */
export function envUserSettings(): Record<string, unknown> {
  const raw = process.env.SANDBOX_RUNNER_HOST_USER_SETTINGS;
  if (!raw) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new Error(`SANDBOX_RUNNER_HOST_USER_SETTINGS is not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('SANDBOX_RUNNER_HOST_USER_SETTINGS must be a JSON object of settings');
  return value as Record<string, unknown>;
}

/**
 * User settings that keep the workbench quiet and offline: no updates, welcome, telemetry, git, AI;
 * then `opts.extra`, then those of SANDBOX_RUNNER_HOST_USER_SETTINGS ({@link envUserSettings}).
 */
export function seedUserSettings(dirs: RunDirs, opts: { trust: boolean; extra?: Record<string, unknown> }): void {
  const settings: Record<string, unknown> = {
    'update.mode': 'none',
    'update.showReleaseNotes': false,
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'extensions.ignoreRecommendations': true,
    'workbench.startupEditor': 'none',
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.settings.enableNaturalLanguageSearch': false,
    'telemetry.telemetryLevel': 'off',
    'telemetry.feedback.enabled': false,
    'git.enabled': false,
    'git.autoRepositoryDetection': false,
    'git.openRepositoryInParentFolders': 'never',
    'github.gitAuthentication': false,
    'chat.disableAIFeatures': true,
    'chat.commandCenter.enabled': false,
    'chat.agent.enabled': false,
    'chat.setupFromDialog': false,
    'github.copilot.enable': { '*': false },
    'remote.autoForwardPorts': false,
    'npm.autoDetect': 'off',
    'typescript.disableAutomaticTypeAcquisition': true,
    'security.workspace.trust.enabled': opts.trust,
    'window.confirmBeforeClose': 'never',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'files.hotExit': 'off',
    ...opts.extra,
    ...envUserSettings(),
  };
  writeFileSync(join(dirs.userData, 'User', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
}

/**
 * Log lines that an offline run always produces and that mean nothing here: failed look-ups of
 * the gallery, update and telemetry hosts, the missing `vsda` module, cancellations at shutdown.
 */
const NOISE: readonly RegExp[] = [
  /getaddrinfo (ENOTFOUND|EAI_AGAIN)/,
  /\b(ENETUNREACH|ECONNREFUSED|ETIMEDOUT)\b.*(:443|https?:\/\/)/,
  /open-vsx\.org|marketplace\.visualstudio\.com|vscode-unpkg|update\.code\.visualstudio\.com|mobile\.events\.data|default\.exp-tas\.com|az764295\.vo\.msecnd|vscode-sync|api\.github\.com|copilot/i,
  /vsda/,
  /\bCanceled\b/,
  /Failed to fetch|net::ERR_(NAME_NOT_RESOLVED|INTERNET_DISCONNECTED|CONNECTION_REFUSED|ADDRESS_UNREACHABLE)/,
  /404 \(Not Found\)/,
  /Extension host \(.*\) is unresponsive|An unknown error occurred\. Please consult the log for more details\./,
  /\[(File Watcher|Terminal|ptyHost)/,
  /Unable to resolve resource|Error: ENOENT: no such file or directory, open '.*\/(product|package)\.nls/,
];

/** The workbench's own start-up chatter, forwarded along with the extension host's console. */
const CHATTER: readonly RegExp[] = [
  /^Resolv(ing|ed) connection token/,
  /^Creating a socket \(/,
  /^\[reconnection-grace-time\]/,
  /^Ignoring fetching additional builtin extensions from gallery/,
  /^Updating additional builtin extensions cache/,
  /^\[Service Worker\]/,
  /^\[AgentHost/,
  /^\[AccountPolicyGate\]/,
  /^No search provider registered for scheme/,
];

/** True for known offline noise and workbench chatter (see {@link NOISE}); never for test output. */
export function isNoise(line: string): boolean {
  return NOISE.some((re) => re.test(line)) || CHATTER.some((re) => re.test(line));
}

/** Formats `codeAutomationLog` arguments (console-style, printf format first) as text. */
export function formatLogArgs(args: unknown): string {
  if (Array.isArray(args)) return format(...(args as unknown[]));
  return typeof args === 'string' ? args : format(args);
}

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

/** Pids of the processes in process group `pgid` (from /proc; empty where there is none). */
export function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after "(comm)": state, ppid, pgrp, ...
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** One of the extension's containers, as `docker ps` lists it. */
export interface OwnedContainer {
  readonly name: string;
  readonly ownerPid: number;
  /** `sandbox-runner.profile` */
  readonly profile: string;
  /** True for a warm container not yet taken by a run (label `sandbox-runner.warm=1`). */
  readonly warm: boolean;
  /** e.g. "Up 3 seconds", "Created" */
  readonly status: string;
}

function dockerCli(args: string[]): Promise<string> {
  return new Promise<string>((resolve) => execFile('docker', args, { timeout: 15_000 }, (err, stdout) => resolve(err ? '' : String(stdout))));
}

/**
 * The extension's containers (label `sandbox-runner=1`, any state) whose owner is one of `pids`
 * in this pid namespace.
 */
export async function containersOwnedBy(pids: ReadonlySet<number>): Promise<OwnedContainer[]> {
  if (pids.size === 0) return [];
  let pidns = 'unknown';
  try {
    pidns = readlinkSync('/proc/self/ns/pid');
  } catch {
    // keep "unknown"
  }
  const listing = await dockerCli([
    'ps', '-a', '--filter', 'label=sandbox-runner=1',
    '--format',
    '{{.Names}}\t{{.Label "sandbox-runner.owner-pid"}}\t{{.Label "sandbox-runner.owner-pidns"}}\t{{.Label "sandbox-runner.profile"}}\t{{.Label "sandbox-runner.warm"}}\t{{.Status}}',
  ]);
  return listing
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([name, pid, ns]) => name && pids.has(Number(pid)) && (ns === pidns || ns === 'unknown'))
    .map(([name, pid, , profile, warm, status]) => ({ name: name!, ownerPid: Number(pid), profile: profile ?? '', warm: warm === '1', status: status ?? '' }));
}

/**
 * Removes the extension's containers (label `sandbox-runner=1`) whose owner is one of `pids` in
 * this pid namespace: what an extension host killed by a timeout could not remove itself.
 * @returns the names removed
 */
export async function removeContainersOwnedBy(pids: ReadonlySet<number>): Promise<string[]> {
  const names = (await containersOwnedBy(pids)).map((c) => c.name);
  if (names.length) await dockerCli(['rm', '-f', '-v', ...names]);
  return names;
}

/** True when `/proc/PID/cmdline` says the process is a VS Code extension host. */
export function isExtensionHost(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--type=extensionHost');
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^Z/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/**
 * What `stop()` found before it killed anything, when asked to record it (see
 * {@link startCodeServer}'s `leftoversFile`): whether the extension hosts ended by themselves
 * (VS Code terminates them when the extension tests end, after `deactivate`), and the extension's
 * containers still owned by any process of the server at that point.
 */
export interface LeftoversRecord {
  /** Every extension host pid seen during the run. */
  readonly extensionHostPids: readonly number[];
  /** Extension hosts still alive after the wait (then killed). */
  readonly stillRunning: readonly number[];
  readonly waitedMs: number;
  /** Containers owned by the server's processes, before the harness removed any. */
  readonly containers: readonly OwnedContainer[];
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Starts code-server on 127.0.0.1 with a port chosen by the kernel and waits for its
 * "HTTP server listening on" line. Its output goes to `dirs.serverLog` (and a ring buffer).
 */
export async function startCodeServer(opts: {
  dirs: RunDirs;
  env: NodeJS.ProcessEnv;
  trust: boolean;
  /** Extra options passed straight to VS Code (`--vscode-option`). */
  vscodeOptions?: readonly string[];
  startTimeoutMs?: number;
  /**
   * When set (default: SANDBOX_RUNNER_HOST_LEFTOVERS), `stop()` first waits up to
   * `extensionHostExitMs` (default 10 s) for the extension hosts to end by themselves, then writes
   * a {@link LeftoversRecord} (JSON) here before it kills the group and removes leftovers, so a
   * runner can tell what `deactivate` left behind from what the harness swept up.
   */
  leftoversFile?: string;
  extensionHostExitMs?: number;
}): Promise<CodeServer> {
  const { dirs, env } = opts;
  const args = [
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
  const log: WriteStream = createWriteStream(dirs.serverLog);
  const ring: string[] = [];
  const child = spawn(codeServerPath(), args, { env, cwd: dirs.home, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${codeServerPath()}`);
  let listening: (port: number) => void = () => {};
  const portPromise = new Promise<number>((resolve) => (listening = resolve));
  let partial = '';
  const onData = (chunk: Buffer) => {
    log.write(chunk);
    const text = partial + chunk.toString('utf8');
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      ring.push(line);
      if (ring.length > 2000) ring.shift();
      if (verbose && !isNoise(line)) process.stderr.write(`[code-server] ${line}\n`);
      const m = /HTTP server listening on https?:\/\/[^\s/]*:(\d+)/.exec(line);
      if (m) listening(Number(m[1]));
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);

  const logTail = (lines = 60, all = false) =>
    [...ring, partial]
      .filter((l) => l && (all || !isNoise(l)))
      .slice(-lines)
      .join('\n');
  // Every pid seen in the server's group (extension hosts come and go), to find their containers.
  const seen = new Set<number>();
  const extensionHosts = new Set<number>();
  const sample = () =>
    groupPids(pid).forEach((p) => {
      if (seen.has(p)) return;
      seen.add(p);
      if (isExtensionHost(p)) extensionHosts.add(p);
    });
  const leftoversFile = opts.leftoversFile ?? (process.env.SANDBOX_RUNNER_HOST_LEFTOVERS || undefined);
  /** Waits for the extension hosts to end by themselves, then records what they left. */
  const recordLeftovers = async (file: string) => {
    const t = Date.now();
    const limit = opts.extensionHostExitMs ?? 10_000;
    while ([...extensionHosts].some(alive) && Date.now() - t < limit) {
      await new Promise((r) => setTimeout(r, 100));
      sample();
    }
    const record: LeftoversRecord = {
      extensionHostPids: [...extensionHosts],
      stillRunning: [...extensionHosts].filter(alive),
      waitedMs: Date.now() - t,
      containers: await containersOwnedBy(seen),
    };
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  };
  const sampler = setInterval(sample, 1000);
  sampler.unref();
  let stopped = false;
  const stop = async (graceMs = 5000) => {
    if (stopped) return;
    stopped = true;
    clearInterval(sampler);
    sample();
    if (leftoversFile) {
      await recordLeftovers(leftoversFile).catch((err: unknown) => process.stderr.write(`host: could not record leftovers in ${leftoversFile}: ${String(err)}\n`));
    }
    killGroup(pid, 'SIGTERM');
    if (!(await exited(child, graceMs))) process.stderr.write(`host: code-server (pid ${pid}) ignored SIGTERM for ${graceMs} ms; killing its process group\n`);
    // Whatever is left of the group (extension host, pty host, file watcher) goes too.
    killGroup(pid, 'SIGKILL');
    const removed = await removeContainersOwnedBy(seen);
    if (removed.length) process.stderr.write(`host: removed ${removed.length} container(s) the extension host left behind: ${removed.join(', ')}\n`);
    await new Promise<void>((resolve) => log.end(resolve));
  };

  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const earlyExit = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`code-server exited before listening (${signal ?? `exit ${code}`})`))),
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`code-server did not print "HTTP server listening on" within ${startTimeoutMs} ms`)), startTimeoutMs);
  });
  try {
    const port = await Promise.race([portPromise, earlyExit, timeout]);
    earlyExit.catch(() => {});
    return { port, origin: `http://127.0.0.1:${port}`, pid, logTail, stop };
  } catch (err) {
    await stop(1000);
    throw new Error(`${(err as Error).message}; last lines of ${dirs.serverLog}:\n${logTail(40, true)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Chromium flags for a headless client on a machine without GPU, network or desktop session. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-features=Translate,MediaRouter,OptimizationHints',
  '--password-store=basic',
];

/** Launches headless Chromium through playwright-core with the hermetic environment. */
export async function launchChromium(env: NodeJS.ProcessEnv): Promise<Browser> {
  // Loaded lazily so that a missing devDependency reports itself here, with the fix.
  let chromium: typeof import('playwright-core').chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (err) {
    throw new Error(`playwright-core could not be loaded (${(err as Error).message}); run "npm ci" first.`);
  }
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_ARGS,
    env,
    timeout: 30_000,
  });
}

/** Prints the page's console and errors when verbose (they are mostly offline noise). */
export function tracePage(page: Page): void {
  page.on('pageerror', (err) => {
    if (verbose && !isNoise(String(err))) process.stderr.write(`[page error] ${String(err)}\n`);
  });
  page.on('console', (msg) => {
    if (verbose && !isNoise(msg.text())) process.stderr.write(`[browser ${msg.type()}] ${msg.text()}\n`);
  });
}

/** `vscode-remote://` URI of a server-side path, as the workbench payload expects it. */
export function remoteUri(server: CodeServer, absPath: string): string {
  return `vscode-remote://127.0.0.1:${server.port}${pathToFileURL(absPath).pathname}`;
}

/**
 * The workbench URL opening `folder` (a server-side path; a `.code-workspace` file opens that
 * multi-root workspace), with an optional test payload.
 */
export function workbenchUrl(server: CodeServer, folder: string | undefined, payload?: readonly (readonly [string, string])[]): string {
  const query: string[] = [];
  if (folder) query.push(`${folder.endsWith('.code-workspace') ? 'workspace' : 'folder'}=${encodeURIComponent(folder)}`);
  if (payload) query.push(`payload=${encodeURIComponent(JSON.stringify(payload))}`);
  return `${server.origin}/${query.length ? `?${query.join('&')}` : ''}`;
}

/** Rejects after `ms` with `message`; `clear()` stops the timer. */
export function deadline(ms: number, message: () => string): { promise: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  promise.catch(() => {});
  return { promise, clear: () => clearTimeout(timer) };
}

/** Runs `fn` and fails if it does not settle within `ms`. */
export async function within<T>(ms: number, what: string, fn: () => Promise<T>): Promise<T> {
  const d = deadline(ms, () => `${what} did not finish within ${ms} ms`);
  try {
    return await Promise.race([fn(), d.promise]);
  } finally {
    d.clear();
  }
}

/** Seconds from an environment variable, or the default. */
export function envSeconds(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}
