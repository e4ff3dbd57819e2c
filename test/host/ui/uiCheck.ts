/**
 * UI check through the browser, against the packaged extension as a user installs it:
 *   1. package the extension (`vsce package`) into .artifacts/, from the current dist bundle;
 *   2. install the .vsix into a fresh code-server (`code-server --install-extension`);
 *   3. open the fixture workspace in headless Chromium, open sleepy.py via Quick Open, run
 *      "Sandbox Runner: Run in Sandbox" from the command palette;
 *   4. read the extension's status-bar item while the run is in progress (sleepy.py sleeps 4 s),
 *      then the Output panel; save screenshots to .artifacts/ui-check-running.png and
 *      .artifacts/ui-check.png; assert on the texts.
 * Every check is reported (PASS/FAIL) and the screenshots are taken even when a check fails;
 * the exit status is non-zero when any check failed or the workbench could not be driven.
 *
 * Needs: `npm run build` (dist/extension.js), scripts/host-tools.sh, the local test images.
 * Environment: SANDBOX_RUNNER_VSCE (default @vscode/vsce@3.9.2, whose engines accept Node 20),
 * SANDBOX_RUNNER_UI_TIMEOUT (seconds, default 300), and those of ../lib/codeServer.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  codeServerPath,
  deadline,
  envSeconds,
  hermeticEnv,
  launchChromium,
  makeRunDirs,
  removeRunDirs,
  seedUserSettings,
  startCodeServer,
  tracePage,
  workbenchUrl,
  type CodeServer,
} from '../lib/codeServer';

/** The repository root (this file runs as out/test/host/ui/uiCheck.js). */
const repo = resolve(__dirname, '..', '..', '..', '..');
const artifacts = join(repo, '.artifacts');
const workspace = join(repo, 'test', 'host', 'fixtures', 'workspace');
const VSCE = process.env.SANDBOX_RUNNER_VSCE || '@vscode/vsce@3.9.2';
const EXTENSION_ID = 'sandbox-runner.sandbox-runner';
const COMMAND_TITLE = 'Sandbox Runner: Run in Sandbox';

const checks: { name: string; ok: boolean; detail: string }[] = [];
function check(name: string, ok: boolean, detail = ''): void {
  checks.push({ name, ok, detail });
  console.log(`ui-check: ${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
}

function step(text: string, t0: number): void {
  console.log(`ui-check: [${((Date.now() - t0) / 1000).toFixed(1)} s] ${text}`);
}

/** Runs a command synchronously with a time limit; throws with its output on failure. */
function run(cmd: string, args: readonly string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs: number; what: string }): string {
  const r = spawnSync(cmd, args, { cwd: repo, env: opts.env ?? process.env, timeout: opts.timeoutMs, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  if (r.error || r.status !== 0) {
    throw new Error(`${opts.what} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`}):\n${out.split('\n').slice(-30).join('\n')}`);
  }
  return out;
}

/** Packages the extension with vsce; returns the .vsix path. */
function packageExtension(): string {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { name: string; version: string };
  const vsix = join(artifacts, `${pkg.name}-${pkg.version}.vsix`);
  run('npx', ['--yes', VSCE, 'package', '--no-dependencies', '--allow-missing-repository', '--out', vsix], {
    timeoutMs: 240_000,
    what: `npx ${VSCE} package`,
    // vsce must not prompt; npx must not ask to install.
    env: { ...process.env, CI: 'true', npm_config_yes: 'true' },
  });
  return vsix;
}

/** Normalises text read from the DOM (Monaco renders spaces as no-break spaces). */
function clean(text: string): string {
  return text.replace(/\u00a0/g, ' ');
}

/** Opens the command palette / Quick Open and picks the entry `label` after typing `query`. */
async function quickPick(page: Page, open: 'F1' | 'Control+P', query: string, label: string | RegExp): Promise<void> {
  await page.keyboard.press(open);
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  if (open === 'F1') await input.fill(`>${query}`);
  else await input.fill(query);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 15_000 });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
}

/** The extension's status-bar items (their DOM id starts with the extension id). */
function statusItems(page: Page): Locator {
  return page.locator(`#workbench\\.parts\\.statusbar [id^="${EXTENSION_ID}"]`);
}

async function statusText(page: Page): Promise<string> {
  const items = statusItems(page);
  const n = await items.count();
  const texts: string[] = [];
  for (let i = 0; i < n; i++) {
    const item = items.nth(i);
    if (!(await item.isVisible())) continue;
    const label = clean(await item.innerText()).trim();
    const aria = (await item.getAttribute('aria-label')) ?? '';
    texts.push(aria && aria !== label ? `${label} [${aria}]` : label);
  }
  return texts.join(' | ');
}

/** Text of the Output panel's editor (visible lines only). */
async function outputPanelText(page: Page): Promise<string> {
  const lines = page.locator('.part.panel .output-view .monaco-editor .view-lines, .part.panel .monaco-editor .view-lines').first();
  if (!(await lines.count())) return '';
  return clean(await lines.innerText());
}

async function drive(page: Page, server: CodeServer, t0: number): Promise<void> {
  await page.goto(workbenchUrl(server, workspace), { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'sleepy.py' }).waitFor({ state: 'visible', timeout: 60_000 });
  step('workbench loaded with the fixture workspace', t0);

  await quickPick(page, 'Control+P', 'sleepy.py', 'sleepy.py');
  const tab = page.locator('.tabs-container .tab.active', { hasText: 'sleepy.py' });
  await tab.waitFor({ state: 'visible', timeout: 15_000 });
  await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'HOST-SLEEPY-START' }).waitFor({ timeout: 15_000 });
  check('Quick Open opens sleepy.py in an editor', true);

  const started = Date.now();
  await quickPick(page, 'F1', COMMAND_TITLE, COMMAND_TITLE);
  step(`ran "${COMMAND_TITLE}" from the command palette`, t0);

  // While it runs (sleepy.py sleeps 4 s): the status-bar item, its text, label and tooltip.
  let runningStatus = '';
  let tooltip = '';
  try {
    await statusItems(page).first().waitFor({ state: 'visible', timeout: 10_000 });
    runningStatus = await statusText(page);
    await statusItems(page).first().hover({ timeout: 2_000 });
    const hover = page.locator('.workbench-hover, .monaco-hover').filter({ hasText: /\S/ }).first();
    await hover.waitFor({ state: 'visible', timeout: 2_000 });
    tooltip = clean(await hover.innerText()).trim();
  } catch {
    // reported below
  }
  const allStatus = clean(await page.locator('#workbench\\.parts\\.statusbar').innerText()).replace(/\s*\n\s*/g, ' | ');
  await page.screenshot({ path: join(artifacts, 'ui-check-running.png') });
  step(`status bar while running: "${allStatus}"`, t0);
  check(
    'a status-bar item of the extension shows while the run is in progress',
    runningStatus.length > 0,
    runningStatus ? `"${runningStatus}"` : `no visible item with id ${EXTENSION_ID}.*; the status bar reads: ${allStatus}`,
  );
  check('the status-bar item offers to cancel the run (text, label or tooltip)', /cancel/i.test(`${runningStatus} ${tooltip}`), `text "${runningStatus}", tooltip "${tooltip}"`);
  await page.mouse.move(700, 300);

  // After it ends: the Output panel.
  let output = '';
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    output = await outputPanelText(page);
    if (/■/.test(output) && /HOST-SLEEPY-DONE/.test(output)) break;
    await page.waitForTimeout(250);
  }
  step(`run finished after ~${((Date.now() - started) / 1000).toFixed(1)} s`, t0);
  check('the Output panel shows the program output', /HOST-SLEEPY-START/.test(output) && /HOST-SLEEPY-DONE 42/.test(output), JSON.stringify(output.slice(-400)));
  check('the Output panel shows the run header with profile and image', /profile python/.test(output) && output.includes('sandbox-runner-test/python:1'), JSON.stringify(output.slice(0, 200)));
  check('the Output panel shows the outcome', /exited with code 0/i.test(output), JSON.stringify(output.slice(-200)));
  const channel = await page.locator('.part.panel .monaco-select-box, .part.panel select').first().evaluate((el) => (el as unknown as { value?: string }).value ?? el.textContent ?? '').catch(() => '');
  check('the Output panel shows the "Sandbox Runner" channel', /Sandbox Runner/.test(channel) || /sandbox-runner/i.test(channel) || /profile python/.test(output), JSON.stringify(channel));

  await page.waitForTimeout(500);
  const afterStatus = await statusText(page);
  check('the status-bar item is gone after the run', afterStatus === '', afterStatus ? `still shows "${afterStatus}"` : '');
  const errors = await page.locator('.notifications-toasts .notification-toast', { hasText: /error|failed/i }).count();
  check('no error notification', errors === 0, errors ? `${errors} error notification(s)` : '');
  await page.screenshot({ path: join(artifacts, 'ui-check.png') });
  step('saved .artifacts/ui-check.png', t0);
}

async function main(): Promise<number> {
  const t0 = Date.now();
  mkdirSync(artifacts, { recursive: true });
  if (!existsSync(join(repo, 'dist', 'extension.js'))) {
    console.error('ui-check: dist/extension.js is missing; run "npm run build" first.');
    return 1;
  }
  codeServerPath(); // fails early with the fix when the tools are missing

  const vsix = packageExtension();
  step(`packaged ${vsix} (${(statSync(vsix).size / 1024).toFixed(1)} KiB)`, t0);

  const dirs = makeRunDirs('sandbox-runner-ui');
  const env = hermeticEnv(dirs);
  process.env.TMPDIR = dirs.tmp;
  seedUserSettings(dirs, { trust: false });
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  const timeoutS = envSeconds('SANDBOX_RUNNER_UI_TIMEOUT', 300);
  const hard = deadline(timeoutS * 1000, () => `the UI check did not finish within ${timeoutS} s; last server log lines:\n${server?.logTail(40) ?? ''}`);
  try {
    const installed = run(codeServerPath(), ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--install-extension', vsix, '--force'], {
      env,
      timeoutMs: 120_000,
      what: 'code-server --install-extension',
    });
    check('code-server installs the .vsix', /successfully installed/i.test(installed), installed.split('\n').filter((l) => /install/i.test(l)).join(' / '));
    const list = run(codeServerPath(), ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--list-extensions', '--show-versions'], {
      env,
      timeoutMs: 60_000,
      what: 'code-server --list-extensions',
    });
    check('the extension is listed as installed', list.includes(`${EXTENSION_ID}@`), list.split('\n').filter((l) => l.includes('@')).join(', '));
    step('installed the .vsix', t0);

    server = await Promise.race([startCodeServer({ dirs, env, trust: false }), hard.promise]);
    step(`code-server listening on ${server.origin}`, t0);
    browser = await Promise.race([launchChromium(env), hard.promise]);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    tracePage(page);
    try {
      await Promise.race([drive(page, server, t0), hard.promise]);
    } catch (err) {
      check('drive the workbench', false, (err as Error).message.split('\n')[0] ?? '');
      await page.screenshot({ path: join(artifacts, 'ui-check.png') }).catch(() => {});
      console.error(`ui-check: last server log lines:\n${server.logTail(30)}`);
    }
  } catch (err) {
    check('set up code-server with the .vsix', false, (err as Error).message);
  } finally {
    hard.clear();
    await browser?.close().catch(() => {});
    await server?.stop();
    removeRunDirs(dirs);
  }
  const failed = checks.filter((c) => !c.ok);
  console.log(`ui-check: ${checks.length - failed.length} passed, ${failed.length} failed (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`ui-check: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
