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
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { workbenchUrl, type CodeServer } from '../lib/codeServer';
import { HostSession } from '../lib/session';
import { CheckReport, RUN_TITLE, artifacts, clean, codeServerCli, installVsix, outputPanelText, packageExtension, quickPick, repo, startWorkbench } from './harness';

const workspace = join(repo, 'test', 'host', 'fixtures', 'workspace');
const EXTENSION_ID = 'sandbox-runner.sandbox-runner';
const report = new CheckReport('ui-check');
const { check, step } = report;

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

async function drive(page: Page, server: CodeServer): Promise<void> {
  await page.goto(workbenchUrl(server, workspace), { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'sleepy.py' }).waitFor({ state: 'visible', timeout: 60_000 });
  step('workbench loaded with the fixture workspace');

  await quickPick(page, 'Control+P', 'sleepy.py', 'sleepy.py', 'Enter');
  const tab = page.locator('.tabs-container .tab.active', { hasText: 'sleepy.py' });
  await tab.waitFor({ state: 'visible', timeout: 15_000 });
  await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'HOST-SLEEPY-START' }).waitFor({ timeout: 15_000 });
  check('Quick Open opens sleepy.py in an editor', true);

  const started = Date.now();
  await quickPick(page, 'F1', RUN_TITLE, RUN_TITLE, 'Enter');
  step(`ran "${RUN_TITLE}" from the command palette`);

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
  step(`status bar while running: "${allStatus}"`);
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
    output = await outputPanelText(page, '.part.panel .output-view .monaco-editor .view-lines, .part.panel .monaco-editor .view-lines');
    if (/■/.test(output) && /HOST-SLEEPY-DONE/.test(output)) break;
    await page.waitForTimeout(250);
  }
  step(`run finished after ~${((Date.now() - started) / 1000).toFixed(1)} s`);
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
  step('saved .artifacts/ui-check.png');
}

async function main(): Promise<number> {
  mkdirSync(artifacts, { recursive: true });
  if (!report.prerequisites()) return 1;

  const vsix = packageExtension(artifacts);
  step(`packaged ${vsix} (${(statSync(vsix).size / 1024).toFixed(1)} KiB)`);

  const session = new HostSession('sandbox-runner-ui', false);
  const setupFailed = (err: unknown) => check('set up code-server with the .vsix', false, (err as Error).message);
  return report.runSession(session, 'the UI check', setupFailed, async (hard) => {
    installVsix(report, session, vsix);
    const list = codeServerCli(session, ['--list-extensions', '--show-versions'], 60_000, 'code-server --list-extensions');
    check('the extension is listed as installed', list.includes(`${EXTENSION_ID}@`), list.split('\n').filter((l) => l.includes('@')).join(', '));
    step('installed the .vsix');

    const { server, page } = await startWorkbench(report, session, hard);
    try {
      await Promise.race([drive(page, server), hard]);
    } catch (err) {
      await report.driveFailed(err, session, 'ui-check.png');
    }
  });
}

report.exitWith(main);
