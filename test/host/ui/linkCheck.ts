/**
 * Source-link check through the browser (issue 11), against the packaged extension: a real
 * Ctrl+click on a traceback link in the Output panel must open the run's source at the real line.
 *   1. raises.py, lines 10–14 selected (inside an `if`: dedented), "Run in Sandbox": the Output
 *      panel shows `/sandbox/main.py", line 3` as a link; Ctrl+click opens raises.py at line 12
 *      (status bar "Ln 12"); screenshot .artifacts/link-check-file.png.
 *   2. a new untitled Python document that raises on line 3: its link opens the SAME untitled
 *      document at line 3 (no second "Untitled-1#L3" editor: the workbench opener reads the `#L3`
 *      fragment as the selection); screenshot .artifacts/link-check-untitled.png.
 *   3. compile_error.rs, "Run in Sandbox" (issue 23): the footer says "compilation failed", rustc's
 *      `--> /sandbox/main.rs:4:24` is a link; Ctrl+click opens compile_error.rs at line 4;
 *      screenshot .artifacts/link-check-rust.png.
 * Every check is reported (PASS/FAIL); the exit status is non-zero when any check failed.
 *
 * Needs: `npm run build`, scripts/host-tools.sh, the local test images.
 * Environment: those of ./harness.ts and of the host harness (../lib/tools.ts, logFilter.ts, runDirs.ts).
 */
import { cpSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { CodeServer } from '../lib/codeServer';
import { workbenchUrl } from '../lib/workbench';
import { HostSession } from '../lib/session';
import { CheckReport, RUN_TITLE, artifacts, clean, installVsix, outputPanelText, packageExtension, quickPick, repo, startWorkbench } from './harness';

const fixtureWorkspace = join(repo, 'test', 'host', 'fixtures', 'workspace');
const report = new CheckReport('link-check');
const { check, step } = report;
const OUTPUT = '.part.panel .monaco-editor .view-lines';

/** The status bar's cursor position text, e.g. "Ln 12, Col 1". */
async function cursorText(page: Page): Promise<string> {
  const item = page.locator('[id="status.editor.selection"]').first();
  return clean(await item.innerText().catch(() => '')).trim();
}

/** Waits until the Output panel shows `done` (regex) and a link over `path` (`/sandbox/main.py", line N`); Ctrl+clicks the last such link. */
async function clickLastLink(page: Page, done: RegExp, path = '/sandbox/main.py'): Promise<string> {
  const end = Date.now() + 30_000;
  while (Date.now() < end && !done.test(await outputPanelText(page, OUTPUT))) await page.waitForTimeout(250);
  // A click in the output (the first link's) stops its auto-scroll: show its end again. force: a
  // hover left by an earlier step (a tab's title) may still be shown and fail the actionability
  // checks (seen once in CI: a 30 s click timeout with the output in plain view).
  await page.mouse.move(1, 1);
  await page.locator(OUTPUT).first().click({ position: { x: 5, y: 5 }, force: true, timeout: 10_000 });
  await page.keyboard.press('Control+End');
  await page.waitForTimeout(500);
  const link = page.locator(`${OUTPUT} .detected-link`, { hasText: path }).last();
  // The output's link provider runs after the text is shown; under CI load that took over 10 s once.
  await link.waitFor({ state: 'visible', timeout: 30_000 });
  const text = clean(await link.innerText());
  // force: the link's own hover ("Open the source line (ctrl + click)") may be shown over the panel.
  await link.click({ modifiers: ['Control'], force: true, timeout: 10_000 });
  return text;
}

async function drive(page: Page, server: CodeServer, workspace: string): Promise<void> {
  await page.goto(workbenchUrl(server, workspace), { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'raises.py' }).waitFor({ state: 'visible', timeout: 60_000 });

  // 1. A selection run of lines 10-14 of raises.py.
  await quickPick(page, 'Control+P', 'raises.py', 'raises.py', 'Enter');
  await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'SRCMAP-SELECTION-START' }).waitFor({ timeout: 15_000 });
  await quickPick(page, 'Control+P', ':10', /10/, 'Enter');
  await page.waitForTimeout(500);
  for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+End');
  const selectedBy = Date.now() + 5_000;
  while (Date.now() < selectedBy && !/^Ln 14, Col 34 \(135 selected\)/.test(await cursorText(page))) await page.waitForTimeout(200);
  step(`selected: ${await cursorText(page)}`);
  await quickPick(page, 'F1', RUN_TITLE, RUN_TITLE, 'Enter');
  const clicked = await clickLastLink(page, /IndexError: list index out of range[\s\S]*■/);
  const output = await outputPanelText(page, OUTPUT);
  check('the run was the selection of lines 10-14', output.includes('selection of raises.py (lines 10-14)'), JSON.stringify(output.slice(0, 300)));
  step(`Ctrl+clicked the output link "${clicked}"`);
  await page.waitForTimeout(1_000);
  const tab = clean(await page.locator('.tabs-container .tab.active').first().innerText().catch(() => '')).replace(/\s+/g, '');
  const at = await cursorText(page);
  await page.screenshot({ path: join(artifacts, 'link-check-file.png') });
  check('the link over the traceback frame opens raises.py', /^raises\.py/.test(tab), `active tab "${tab}"`);
  check('… at line 12, where the selection\'s third line is', /^Ln 12\b/.test(at), `status bar "${at}"`);

  // 2. An untitled Python document (its tab reads "<first line> Untitled-1").
  await quickPick(page, 'F1', 'File: New Untitled Text File', /^File: New Untitled Text File(?!s)/, 'click');
  await page.keyboard.type('x = 1\n\nraise ValueError\n');
  // Not through quickPick(): the command opens a second quick input at once, so the widget never hides.
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input:visible').first().fill('>Change Language Mode');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Change Language Mode' }).first().click();
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Auto Detect' }).first().waitFor({ state: 'visible', timeout: 15_000 });
  const languageInput = page.locator('.quick-input-widget input:visible').first();
  await languageInput.click();
  await languageInput.pressSequentially('python');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: /^\s*Python/ }).first().waitFor({ state: 'visible', timeout: 15_000 });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
  await quickPick(page, 'F1', RUN_TITLE, RUN_TITLE, 'Enter');
  const clicked2 = await clickLastLink(page, /ValueError[\s\S]*■[\s\S]*$/);
  step(`Ctrl+clicked the output link "${clicked2}"`);
  await page.waitForTimeout(1_000);
  const tabs = (await page.locator('.tabs-container .tab').allInnerTexts()).map((t) => clean(t).replace(/\s+/g, ''));
  const active = clean(await page.locator('.editor-group-container.active .tabs-container .tab.active').first().innerText().catch(() => '')).replace(/\s+/g, '');
  const at2 = await cursorText(page);
  await page.screenshot({ path: join(artifacts, 'link-check-untitled.png') });
  check('the untitled run\'s link opens the same untitled document (no second editor)', /Untitled-1$/.test(active) && tabs.filter((t) => /Untitled/.test(t)).length === 1 && !tabs.some((t) => t.includes('#')), `tabs ${JSON.stringify(tabs)}, active "${active}"`);
  check('… at line 3', /^Ln 3\b/.test(at2), `status bar "${at2}"`);

  // 3. A Rust file that does not compile. The output is cleared first: the clicks above stopped
  // its auto-scroll, and a run appended below the visible lines was never shown.
  await page.mouse.move(1, 1);
  await page.locator('.part.panel .action-label.codicon-clear-all').first().click({ force: true, timeout: 10_000 });
  await quickPick(page, 'Control+P', 'compile_error.rs', 'compile_error.rs', 'Enter');
  await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'println!' }).waitFor({ timeout: 15_000 });
  await quickPick(page, 'F1', RUN_TITLE, RUN_TITLE, 'Enter');
  const clicked3 = await clickLastLink(page, /compilation failed \(compiler exit code 1\)/, '/sandbox/main.rs');
  step(`Ctrl+clicked the output link "${clicked3}"`);
  await page.waitForTimeout(1_000);
  const tab3 = clean(await page.locator('.tabs-container .tab.active').first().innerText().catch(() => '')).replace(/\s+/g, '');
  const at3 = await cursorText(page);
  await page.screenshot({ path: join(artifacts, 'link-check-rust.png') });
  check('the Rust run ended as "compilation failed", its rustc error shown', /error\[E0425\][\s\S]*compilation failed/.test(await outputPanelText(page, OUTPUT)));
  check('the link over rustc\'s `--> main.rs:4:24` opens compile_error.rs', /^compile_error\.rs/.test(tab3), `active tab "${tab3}", link "${clicked3}"`);
  check('… at line 4, column 24', /^Ln 4, Col 24\b/.test(at3), `status bar "${at3}"`);
}

async function main(): Promise<number> {
  mkdirSync(artifacts, { recursive: true });
  if (!report.prerequisites()) return 1;
  const session = new HostSession('sandbox-runner-links', false);
  const failed = (err: unknown) => report.driveFailed(err, session, 'link-check-failure.png');
  return report.runSession(session, 'the link check', failed, async (hard) => {
    const vsix = packageExtension(session.dirs.root);
    step(`packaged ${vsix} (${(statSync(vsix).size / 1024).toFixed(1)} KiB)`);
    installVsix(report, session, vsix);
    const workspace = join(session.dirs.root, 'workspace');
    cpSync(fixtureWorkspace, workspace, { recursive: true });
    const { server, page } = await startWorkbench(report, session, hard);
    await Promise.race([drive(page, server, workspace), hard]);
  });
}

report.exitWith(main);
