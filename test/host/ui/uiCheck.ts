/**
 * UI check through the browser, against the packaged extension as a user installs it:
 *   1. package the extension (`vsce package`) into .artifacts/, from the current dist bundle;
 *   2. install the .vsix into a fresh code-server (`code-server --install-extension`);
 *   3. open the fixture workspace in headless Chromium, open sleepy.py via Quick Open, run
 *      "Sandbox Runner: Run in Sandbox" from the command palette;
 *   4. read the extension's status-bar item while the run is in progress (sleepy.py sleeps 4 s),
 *      and the editor title's "Stop Sandbox Run" button (issue 12), then the Output panel; save
 *      screenshots to .artifacts/ui-check-running.png (status bar and stop button) and
 *      .artifacts/ui-check.png; assert on the texts, and that the successful run showed no
 *      notification (issue 12: the status bar is its progress);
 *   5. untrusted text never becomes a link (issue 8): a file named like a markdown command link
 *      runs (its status-bar tooltip; no progress notification since issue 12), the same name on the missing-image profile fails (the
 *      genuine error notification), and a snippet prints a line shaped like tini's exec failure
 *      with a command link to stderr and exits 127 (output, not an error pop-up); no notification
 *      may render an anchor to `command:`, `file:` or `http(s):`; screenshots
 *      .artifacts/ui-check-link-*.png;
 *   6. the interactive terminal (issue 11, ./interactiveCheck.ts): "Run in Sandbox (Interactive)" on
 *      ask.py, two answers typed into the terminal, the greeting read back from it; screenshot
 *      .artifacts/ui-check-interactive.png.
 *   7. Markdown code blocks (issue 12, ./markdownCheck.ts): notes.md shows "Run in Sandbox"
 *      CodeLenses; clicking the python block's lens runs it; screenshot .artifacts/ui-check-markdown.png;
 *   8. Recent Runs (issue 12, ./recentRunsCheck.ts): the profiles view lists the sleepy.py run with
 *      its outcome, with its actions and the view's Re-run Last button; screenshot
 *      .artifacts/ui-check-recent-runs.png; the .vsix ships every bundle in dist/ (the CLI's, the lazy ones).
 *   9. the Run in Sandbox language model tool through the real `vscode.lm.invokeTool` (issue 14,
 *      ./toolConfirmCheck.ts): a test-only extension (test/host/fixtures/tool-caller, installed
 *      next to the .vsix) calls it outside a chat; VS Code's modal confirmation shows the profile,
 *      limits and code; screenshot .artifacts/ui-check-tool-confirm.png; confirmed, the run prints 42.
 *  10. a notebook with a plot (issue 24, ./notebookCheck.ts): plot.ipynb, the "Sandbox (pynb)" kernel
 *      picked in the kernel picker, the cell run; its matplotlib PNG and the kernel's name in the
 *      notebook toolbar; screenshot .artifacts/notebook-plot.png.
 * The fixture workspace is copied into the run's folder, where the hostile file names are made.
 * Every check is reported (PASS/FAIL) and the screenshots are taken even when a check fails;
 * the exit status is non-zero when any check failed or the workbench could not be driven.
 *
 * Needs: `npm run build` (dist/extension.js), scripts/host-tools.sh, the local test images.
 * Environment: SANDBOX_RUNNER_VSCE (default @vscode/vsce@3.9.2, whose engines accept Node 20),
 * SANDBOX_RUNNER_UI_TIMEOUT (seconds, default 600), and those of the host harness (../lib/tools.ts, logFilter.ts, runDirs.ts).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { CodeServer } from '../lib/codeServer';
import { workbenchUrl } from '../lib/workbench';
import { HostSession } from '../lib/session';
import { TEST_IMAGES } from '../../support/images';
import { INTERACTIVE_USER_SETTINGS, interactiveChecks } from './interactiveCheck';
import { markdownChecks } from './markdownCheck';
import { NOTEBOOK_USER_SETTINGS, notebookChecks, writePlotNotebook } from './notebookCheck';
import { recentRunsChecks, vsixShipsBundles } from './recentRunsCheck';
import { installToolCaller, sessionConfirmChecks, toolConfirmChecks } from './toolConfirmCheck';
import { CheckReport, RUN_ROW, RUN_TITLE, artifacts, clean, codeServerCli, installVsix, notificationTexts, outputPanelText, packageExtension, quickPick, repo, startWorkbench } from './harness';

const fixtureWorkspace = join(repo, 'test', 'host', 'fixtures', 'workspace');
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

async function drive(page: Page, server: CodeServer, workspace: string): Promise<void> {
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
  await quickPick(page, 'F1', RUN_TITLE, RUN_ROW, 'Enter');
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
  // Issue 12: the running editor's title shows the stop button (visible in the screenshot).
  const stopVisible = await stopButton(page).first().waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false);
  const sandboxToasts = (await notificationTexts(page)).filter((t) => /sandbox/i.test(t));
  await page.screenshot({ path: join(artifacts, 'ui-check-running.png') });
  step(`status bar while running: "${allStatus}"`);
  check(
    'a status-bar item of the extension shows while the run is in progress',
    runningStatus.length > 0,
    runningStatus ? `"${runningStatus}"` : `no visible item with id ${EXTENSION_ID}.*; the status bar reads: ${allStatus}`,
  );
  check('the status-bar item offers to cancel the run (text, label or tooltip)', /cancel/i.test(`${runningStatus} ${tooltip}`), `text "${runningStatus}", tooltip "${tooltip}"`);
  check('the editor title shows "Stop Sandbox Run" while the run is in progress', stopVisible, await editorActions(page));
  check('no notification while the run is in progress (the status bar is the progress)', sandboxToasts.length === 0, JSON.stringify(sandboxToasts));
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
  check('the Output panel shows the run header with profile and image', /profile python/.test(output) && output.includes(TEST_IMAGES.python), JSON.stringify(output.slice(0, 200)));
  check('the Output panel shows the outcome', /exited with code 0/i.test(output), JSON.stringify(output.slice(-200)));
  const channel = await page.locator('.part.panel .monaco-select-box, .part.panel select').first().evaluate((el) => (el as unknown as { value?: string }).value ?? el.textContent ?? '').catch(() => '');
  check('the Output panel shows the "Sandbox Runner" channel', /Sandbox Runner/.test(channel) || /sandbox-runner/i.test(channel) || /profile python/.test(output), JSON.stringify(channel));

  await page.waitForTimeout(500);
  const afterStatus = await statusText(page);
  check('the status-bar item is gone after the run', afterStatus === '', afterStatus ? `still shows "${afterStatus}"` : '');
  check('the stop button is gone after the run', (await stopButton(page).count()) === 0 || !(await stopButton(page).first().isVisible()), await editorActions(page));
  // Toasts may be held back: the notification centre lists every notification.
  await showCenter(page);
  const errors = (await notificationTexts(page)).filter((t) => /error|failed/i.test(t));
  check('no error notification', errors.length === 0, JSON.stringify(errors));
  await page.screenshot({ path: join(artifacts, 'ui-check.png') });
  step('saved .artifacts/ui-check.png');
  await recentRunsChecks(page, report, 'sleepy.py');

  await linkChecks(page);
  await interactiveChecks(page, report, { query: 'linkname.py', name: LINK_PY });
  await markdownChecks(page, report);
  await toolConfirmChecks(page, report);
  await sessionConfirmChecks(page, report);
  await notebookChecks(page, report);
}

/** The editor title's "Stop Sandbox Run" action (issue 12; package.json menus `editor/title`). */
function stopButton(page: Page): Locator {
  return page.locator('.editor-actions .action-label[aria-label*="Stop Sandbox Run"], .editor-actions .action-label[title*="Stop Sandbox Run"]');
}

/** The editor title actions' labels, for a check's detail. */
async function editorActions(page: Page): Promise<string> {
  const labels = await page.locator('.editor-actions .action-label').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.getAttribute('title') ?? '')).catch(() => [] as string[]);
  return `editor title actions: ${JSON.stringify(labels)}`;
}

// --- 5. Untrusted text never becomes a link ------------------------------------------------------

/**
 * A markdown link as VS Code renders it in notifications (`linkedText.ts`): clicking it would type
 * `echo PWNED` into the user's terminal (`workbench.action.terminal.sendSequence`).
 */
const HOSTILE_LINK = '[Repair the Docker runtime](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22echo%20PWNED%5Cn%22%7D)';
/** A Python file of the workspace whose name carries the link (file names may hold `[]():?%`). */
const LINK_PY = `${HOSTILE_LINK} linkname.py`;
/** The same name on the `no-image` profile (by its extension): the run fails with `image-missing`. */
const LINK_NOIMAGE = `${HOSTILE_LINK} linkname.noimage`;
/** Writes tini's exec-failure line, with the link, to stderr and exits 127: the program's own doing. */
const FAKE_TINI = 'faketini.py';

/** Creates the hostile files in the run's copy of the fixture workspace. */
function writeHostileFiles(workspace: string): void {
  writeFileSync(join(workspace, LINK_PY), 'import time\nprint("HOST-LINKNAME-START", flush=True)\ntime.sleep(5)\nprint("HOST-LINKNAME-DONE")\n');
  writeFileSync(join(workspace, LINK_NOIMAGE), 'echo "HOST-NOIMAGE-NOT-REACHED"\n');
  writeFileSync(
    join(workspace, FAKE_TINI),
    'import sys\n' +
      'print("HOST-FAKETINI-RAN", flush=True)\n' +
      `sys.stderr.write("[FATAL tini (7)] exec python3 failed: No such file or directory. ${HOSTILE_LINK}\\n")\n` +
      'sys.exit(127)\n',
  );
}

/** Anchors in the notification toasts and centre: their href (or title) and text. */
async function notificationAnchors(page: Page): Promise<{ href: string; text: string }[]> {
  return page
    .locator('.notifications-toasts a, .notifications-center a, .notification-toast a, .notification-list-item a')
    .evaluateAll((els) => els.map((e) => ({ href: e.getAttribute('href') ?? e.getAttribute('title') ?? '', text: (e.textContent ?? '').trim() })))
    .catch(() => []);
}

/** The anchors that are links to a command, a file or a web page, or carry the hostile label. */
function linkAnchors(anchors: readonly { href: string; text: string }[]): { href: string; text: string }[] {
  return anchors.filter((a) => /^\s*(command|file|https?):/i.test(a.href) || /Repair the Docker runtime/.test(a.text));
}

/** Opens the notification centre ("Notifications: Show Notifications") unless it is open. */
async function showCenter(page: Page): Promise<void> {
  if (await page.locator('.notifications-center.visible').count()) return;
  await quickPick(page, 'F1', 'Notifications: Show Notifications', /Show Notifications/, 'click');
  await page.locator('.notifications-center.visible').waitFor({ state: 'visible', timeout: 5_000 }).catch(() => {});
}

/** Clears every notification (command palette: "Notifications: Clear All Notifications"). */
async function clearNotifications(page: Page): Promise<void> {
  await quickPick(page, 'F1', 'Notifications: Clear All Notifications', /Clear All Notifications/, 'click').catch(() => page.keyboard.press('Escape'));
  await page.waitForTimeout(300);
}

/** Opens `name` via Quick Open (query `query`), runs "Run in Sandbox", opens the notification centre unless `center` is false. */
async function runFile(page: Page, query: string, name: string, center = true): Promise<void> {
  await quickPick(page, 'Control+P', query, query, 'Enter');
  await page.locator('.tabs-container .tab.active', { hasText: query }).waitFor({ state: 'visible', timeout: 15_000 });
  step(`opened ${JSON.stringify(name)}`);
  await quickPick(page, 'F1', RUN_TITLE, RUN_ROW, 'Enter');
  if (center) await showCenter(page);
}

/**
 * Samples the notifications every 200 ms until `done` (a regex on the Output panel) shows or
 * `ms` pass; returns every link anchor and every toast text seen.
 */
async function watchNotifications(page: Page, done: RegExp, ms: number): Promise<{ links: { href: string; text: string }[]; toasts: Set<string>; output: string }> {
  const links: { href: string; text: string }[] = [];
  const toasts = new Set<string>();
  let output = '';
  const end = Date.now() + ms;
  while (Date.now() < end) {
    links.push(...linkAnchors(await notificationAnchors(page)));
    for (const t of await notificationTexts(page)) toasts.add(t);
    output = await outputPanelText(page, '.part.panel .output-view .monaco-editor .view-lines, .part.panel .monaco-editor .view-lines');
    if (done.test(output)) break;
    await page.waitForTimeout(200);
  }
  return { links, toasts, output };
}

/** Shows link anchors for a check's detail. */
function showLinks(links: readonly { href: string; text: string }[]): string {
  const unique = [...new Map(links.map((l) => [`${l.href}|${l.text}`, l])).values()];
  return unique.map((l) => `<a href="${l.href}">${l.text}</a>`).join(', ');
}

async function linkChecks(page: Page): Promise<void> {
  const bell = await page.locator('#workbench\\.parts\\.statusbar [id$="notifications"], #workbench\\.parts\\.statusbar [aria-label*="otification"]').first().getAttribute('aria-label').catch(() => null);
  step(`notifications status-bar item: ${JSON.stringify(bell)}`);
  await clearNotifications(page);

  // 5a. The progress notification's title names the file: it must not render the name's link.
  await runFile(page, 'linkname.py', LINK_PY, false);
  // The status-bar item's tooltip lists the run by its label (the file name).
  let hoverLinks: { href: string; text: string }[] = [];
  let hoverText = '';
  try {
    await statusItems(page).first().waitFor({ state: 'visible', timeout: 10_000 });
    await statusItems(page).first().hover({ timeout: 5_000 });
    const hover = page.locator('.workbench-hover, .monaco-hover').filter({ hasText: /Cancel the sandbox run/ }).first();
    await hover.waitFor({ state: 'visible', timeout: 5_000 });
    hoverText = clean(await hover.innerText()).trim();
    hoverLinks = linkAnchors(await hover.locator('a').evaluateAll((els) => els.map((e) => ({ href: e.getAttribute('href') ?? '', text: (e.textContent ?? '').trim() }))));
  } catch {
    // reported below
  }
  await page.mouse.move(700, 300);
  await showCenter(page);
  let seen = await watchNotifications(page, /HOST-LINKNAME-START/, 20_000);
  await page.screenshot({ path: join(artifacts, 'ui-check-link-progress.png') });
  check('the status-bar tooltip names the link-named run', /linkname\.py/.test(hoverText), JSON.stringify(hoverText));
  check('the status-bar tooltip renders no link from the file name', hoverLinks.length === 0, showLinks(hoverLinks));
  const progress = await watchNotifications(page, /HOST-LINKNAME-DONE[\s\S]*■/, 30_000);
  const progressLinks = [...seen.links, ...progress.links];
  const progressToasts = [...seen.toasts, ...progress.toasts];
  step(`toasts while the link-named file ran: ${JSON.stringify(progressToasts)}`);
  check('the link-named file ran', /HOST-LINKNAME-DONE/.test(progress.output), JSON.stringify(progress.output.slice(-300)));
  check('its run shows no notification (issue 12: no progress toast; the status bar is the progress)', !progressToasts.some((t) => /linkname\.py|Sandbox:/.test(t)), JSON.stringify(progressToasts));
  check('no notification renders a link from the file name', progressLinks.length === 0, showLinks(progressLinks));
  await clearNotifications(page);

  // 5b. A genuine failure (image-missing) of the same name: the error notification, without a link.
  await runFile(page, 'linkname.noimage', LINK_NOIMAGE);
  seen = await watchNotifications(page, /failed ·[^\n]*absent/, 30_000);
  const end = Date.now() + 10_000;
  while (Date.now() < end && ![...seen.toasts].some((t) => /Sandbox run failed/.test(t))) {
    await page.waitForTimeout(250);
    for (const t of await notificationTexts(page)) seen.toasts.add(t);
    seen.links.push(...linkAnchors(await notificationAnchors(page)));
  }
  await page.waitForTimeout(500);
  seen.links.push(...linkAnchors(await notificationAnchors(page)));
  await page.screenshot({ path: join(artifacts, 'ui-check-link-image-missing.png') });
  const failure = [...seen.toasts].find((t) => /Sandbox run failed/.test(t)) ?? '';
  step(`toasts of the missing-image run: ${JSON.stringify([...seen.toasts])}`);
  check('a missing image shows the "Sandbox run failed" error notification', failure !== '', JSON.stringify([...seen.toasts]));
  check('the error notification says what failed in our own words', /image is not present on the Docker engine in use/.test(failure), JSON.stringify(failure));
  check('no notification of the failed run renders a link', seen.links.length === 0, showLinks(seen.links));
  await clearNotifications(page);

  // 5c. The program prints tini's exec-failure line with a command link and exits 127: output.
  await runFile(page, FAKE_TINI, FAKE_TINI);
  seen = await watchNotifications(page, /HOST-FAKETINI-RAN[\s\S]*■/, 30_000);
  // A failure notification would come right after the run ends: give it time to show.
  const tail = await watchNotifications(page, /(?!)/, 3_000);
  const links = [...seen.links, ...tail.links];
  const toasts = [...seen.toasts, ...tail.toasts];
  await page.screenshot({ path: join(artifacts, 'ui-check-link-exit127.png') });
  step(`toasts of the exit-127 run: ${JSON.stringify(toasts)}`);
  const footer = [...tail.output.matchAll(/■ ([^\n]*)/g)].pop()?.[1] ?? '';
  check('the exit-127 snippet ran and its stderr line is in the Output panel', /HOST-FAKETINI-RAN/.test(tail.output) && /exec python3 failed/.test(tail.output), JSON.stringify(tail.output.slice(-400)));
  check('no notification renders the command link the program printed', links.length === 0, showLinks(links));
  const popups = toasts.filter((t) => /could not start|failed|error/i.test(t));
  check('an exit 127 of the program is output: no "could not start"/"failed" notification', popups.length === 0, JSON.stringify(popups));
  check('the Output panel footer says the program exited with code 127', /exited with code 127/.test(footer), JSON.stringify(footer));
  await clearNotifications(page);
}

async function main(): Promise<number> {
  mkdirSync(artifacts, { recursive: true });
  if (!report.prerequisites()) return 1;

  const vsix = packageExtension(artifacts);
  step(`packaged ${vsix} (${(statSync(vsix).size / 1024).toFixed(1)} KiB)`);
  vsixShipsBundles(report, vsix);

  const session = new HostSession('sandbox-runner-ui', false, { ...INTERACTIVE_USER_SETTINGS, ...NOTEBOOK_USER_SETTINGS });
  const setupFailed = (err: unknown) => check('set up code-server with the .vsix', false, (err as Error).message);
  return report.runSession(session, 'the UI check', setupFailed, async (hard) => {
    installVsix(report, session, vsix);
    const list = codeServerCli(session, ['--list-extensions', '--show-versions'], 60_000, 'code-server --list-extensions');
    check('the extension is listed as installed', list.includes(`${EXTENSION_ID}@`), list.split('\n').filter((l) => l.includes('@')).join(', '));
    step('installed the .vsix');
    installToolCaller(report, session, artifacts);

    const workspace = join(session.dirs.root, 'workspace');
    cpSync(fixtureWorkspace, workspace, { recursive: true });
    writeHostileFiles(workspace);
    writePlotNotebook(workspace);
    const { server, page } = await startWorkbench(report, session, hard);
    try {
      await Promise.race([drive(page, server, workspace), hard]);
    } catch (err) {
      await report.driveFailed(err, session, 'ui-check.png');
    }
    // The extension loader (src/extensionLoader.ts) wrote V8's code cache of dist/extension.js in
    // the extension's global storage (5 s after activation; the drive took longer).
    const cacheDir = join(session.dirs.userData, 'User', 'globalStorage', EXTENSION_ID.toLowerCase(), 'code-cache');
    const cached = existsSync(cacheDir) ? readdirSync(cacheDir) : [];
    check('the extension host activated through the loader, which wrote the code cache of dist/extension.js in the global storage', cached.some((f) => /^extension-.*\.bin$/.test(f)), `${cacheDir}: ${JSON.stringify(cached)}`);
  });
}

report.exitWith(main);
