/**
 * What the browser checks of the packaged extension (uiCheck.ts, consentCheck.ts) share: the
 * PASS/FAIL report, packaging with vsce and installing into the run's code-server, the run's
 * deadline, and the workbench moves and reads both make (Quick Open / command palette, Output panel).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { CodeServer } from '../lib/codeServer';
import { deadline, envSeconds } from '../../support/deadlines';
import { codeServerPath } from '../lib/tools';
import type { HostSession } from '../lib/session';

/** The repository root (the checks run as out/test/host/ui/*.js). */
export const repo = resolve(__dirname, '..', '..', '..', '..');
export const artifacts = join(repo, '.artifacts');
const VSCE = process.env.SANDBOX_RUNNER_VSCE || '@vscode/vsce@3.9.2';
export const RUN_TITLE = 'Sandbox Runner: Run in Sandbox';
/** The palette row of {@link RUN_TITLE} itself, not of "Run in Sandbox (Interactive)", which also contains it. */
export const RUN_ROW = /Sandbox Runner: Run in Sandbox(?! \(Interactive\))/;

/** Every check reported as a `PREFIX: PASS|FAIL name — detail` line, steps with the time since the start. */
export class CheckReport {
  private readonly checks: { name: string; ok: boolean; detail: string }[] = [];
  private readonly t0 = Date.now();

  constructor(readonly prefix: string) {}

  // Arrow functions: the checks take them out of the report (`const { check, step } = report`).
  readonly check = (name: string, ok: boolean, detail = ''): void => {
    this.checks.push({ name, ok, detail });
    console.log(`${this.prefix}: ${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
  };

  readonly step = (text: string): void => {
    console.log(`${this.prefix}: [${((Date.now() - this.t0) / 1000).toFixed(1)} s] ${text}`);
  };

  /** Prints the closing "N passed, N failed" line; returns the exit status (non-zero when any failed, or when no check ran). */
  finish(): number {
    const failed = this.checks.filter((c) => !c.ok);
    console.log(`${this.prefix}: ${this.checks.length - failed.length} passed, ${failed.length} failed (${((Date.now() - this.t0) / 1000).toFixed(1)} s)`);
    if (this.checks.length === 0) console.log(`${this.prefix}: FAIL no check ran, so the run proves nothing`);
    return failed.length === 0 && this.checks.length > 0 ? 0 : 1;
  }

  /**
   * A check's run in `session`: `body` races the hard limit (SANDBOX_RUNNER_UI_TIMEOUT seconds,
   * default 600; its message names `what` and quotes the server's last log lines), `onError`
   * reports what it threw; then the session is closed. Returns the exit status ({@link finish}).
   */
  async runSession(session: HostSession, what: string, onError: (err: unknown) => void | Promise<void>, body: (hard: Promise<never>) => Promise<void>): Promise<number> {
    const timeoutS = envSeconds('SANDBOX_RUNNER_UI_TIMEOUT', 600);
    const hard = deadline(timeoutS * 1000, () => `${what} did not finish within ${timeoutS} s; last server log lines:\n${session.server?.logTail(40) ?? ''}`);
    try {
      await body(hard.promise);
    } catch (err) {
      await onError(err);
    } finally {
      hard.clear();
      await session.close();
    }
    return this.finish();
  }

  /** Reports that driving the workbench failed (`err`), with a screenshot and the server's last log lines. */
  async driveFailed(err: unknown, session: HostSession, screenshot: string): Promise<void> {
    // Playwright's message: the failed call on its first line, then a call log whose "waiting for"
    // line names the locator; keep both (a timeout alone does not say which step hung).
    const lines = (err as Error).message.split('\n');
    const waited = lines.find((l) => /waiting for /.test(l))?.trim();
    this.check('drive the workbench', false, [lines[0] ?? '', waited].filter(Boolean).join(' — '));
    await session.page?.screenshot({ path: join(artifacts, screenshot) }).catch(() => {});
    if (session.server) console.error(`${this.prefix}: last server log lines:\n${session.server.logTail(30)}`);
  }

  /** Fails (false) with the fix when dist/extension.js or the tools are missing. */
  prerequisites(): boolean {
    if (!existsSync(join(repo, 'dist', 'extension.js'))) {
      console.error(`${this.prefix}: dist/extension.js is missing; run "npm run build" first.`);
      return false;
    }
    codeServerPath(); // fails early with the fix when the tools are missing
    return true;
  }

  /** Runs `main` and exits with its status (1 when it throws). */
  exitWith(main: () => Promise<number>): void {
    main().then(
      (code) => process.exit(code),
      (err: unknown) => {
        console.error(`${this.prefix}: FAILED: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  }
}

/** Runs a command synchronously (in `opts.cwd`, default the repository) with a time limit; throws with its output on failure. */
function run(cmd: string, args: readonly string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs: number; what: string; cwd?: string }): string {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? repo, env: opts.env ?? process.env, timeout: opts.timeoutMs, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  if (r.error || r.status !== 0) {
    throw new Error(`${opts.what} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`}):\n${out.split('\n').slice(-30).join('\n')}`);
  }
  return out;
}

/**
 * Packages the extension in `folder` (default: this repository's) with vsce (`extraArgs` added)
 * into `outDir`; returns the .vsix path.
 */
export function packageExtension(outDir: string, extraArgs: readonly string[] = [], folder: string = repo): string {
  const pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name: string; version: string };
  const vsix = join(outDir, `${pkg.name}-${pkg.version}.vsix`);
  run('npx', ['--yes', VSCE, 'package', '--no-dependencies', '--allow-missing-repository', ...extraArgs, '--out', vsix], {
    timeoutMs: 240_000,
    what: `npx ${VSCE} package`,
    cwd: folder,
    // vsce must not prompt; npx must not ask to install.
    env: { ...process.env, CI: 'true', npm_config_yes: 'true' },
  });
  return vsix;
}

/** Runs the code-server CLI on the session's user-data and extensions folders; returns its output. */
export function codeServerCli(session: HostSession, args: readonly string[], timeoutMs: number, what: string): string {
  return run(codeServerPath(), ['--user-data-dir', session.dirs.userData, '--extensions-dir', session.dirs.extensions, ...args], { env: session.env, timeoutMs, what });
}

/** Installs the .vsix into the session's code-server and checks that it says so. */
export function installVsix(report: CheckReport, session: HostSession, vsix: string): void {
  const installed = codeServerCli(session, ['--install-extension', vsix, '--force'], 120_000, 'code-server --install-extension');
  report.check('code-server installs the .vsix', /successfully installed/i.test(installed), installed.split('\n').filter((l) => /install/i.test(l)).join(' / '));
}

/** Starts the session's code-server and a 1400×900 page (or rejects with `hard` first), saying when the server listens. */
export async function startWorkbench(report: CheckReport, session: HostSession, hard: Promise<never>): Promise<{ server: CodeServer; page: Page }> {
  const server = await session.startServer(hard);
  report.step(`code-server listening on ${server.origin}`);
  const { page } = await session.openPage(hard, { width: 1400, height: 900 });
  return { server, page };
}

/** Normalises text read from the DOM (Monaco renders spaces as no-break spaces). */
export function clean(text: string): string {
  return text.replace(/\u00a0/g, ' ');
}

/**
 * Opens the command palette (F1) / Quick Open (Control+P) and picks the entry `label` after typing
 * `query`: with Enter, or by clicking its row. Then waits for the widget to close, or, when the
 * entry opens its own Quick Pick, for the pick whose placeholder is `opens`.
 */
export async function quickPick(page: Page, open: 'F1' | 'Control+P', query: string, label: string | RegExp, accept: 'Enter' | 'click', opens?: string): Promise<void> {
  await page.keyboard.press(open);
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(open === 'F1' ? `>${query}` : query);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 15_000 });
  const widget = page.locator('.quick-input-widget');
  if (accept === 'Enter') {
    // Enter takes the focused row: when another row ranks first (or a busy workbench is still
    // updating the results, and the key is lost), click the wanted row instead.
    const focused = page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: label }).first();
    const ready = await focused.waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => false);
    if (ready) await page.keyboard.press('Enter');
    const closed = ready && (await widget.waitFor({ state: 'hidden', timeout: 5_000 }).then(() => true, () => false));
    if (!closed && (await row.isVisible())) await row.click();
  } else {
    await row.click();
  }
  // A command that opens its own Quick Pick reuses the widget, which may never be seen hidden:
  // wait for that pick (by its placeholder) instead.
  if (opens !== undefined) await page.locator(`.quick-input-widget input.input[placeholder=${JSON.stringify(opens)}]`).waitFor({ state: 'visible', timeout: 15_000 });
  else await widget.waitFor({ state: 'hidden', timeout: 15_000 });
}

/** Text of the (first) Output panel editor matching `selector` (visible lines only). */
export async function outputPanelText(page: Page, selector = '.part.panel .monaco-editor .view-lines'): Promise<string> {
  const lines = page.locator(selector).first();
  if (!(await lines.count())) return '';
  return clean(await lines.innerText());
}

/**
 * Texts of the notifications shown (one line each): the toasts, and the rows of the notification
 * centre (the workbench may hold a toast back, e.g. while the centre is open; the centre lists
 * every notification). Empty when none is shown or the page cannot be read.
 */
export async function notificationTexts(page: Page): Promise<string[]> {
  const texts = await page
    .locator('.notifications-toasts .notification-toast, .notifications-center .notification-list-item')
    .allInnerTexts()
    .catch(() => [] as string[]);
  return texts.map((t) => clean(t).replace(/\s*\n\s*/g, ' ').trim()).filter((t) => t !== '');
}
