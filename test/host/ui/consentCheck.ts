/**
 * Consent check through the browser, against the packaged extension as a user installs it, with
 * Workspace Trust ON (test/host/fixtures/loosened: its python profile asks for network "bridge"):
 *   1. the folder opens in Restricted Mode: the Sandbox Profiles view shows the note
 *      "Workspace profiles ignored (untrusted workspace)" and the built-in python profile;
 *   2. trust the folder through VS Code's own trust UI: the note goes, the workspace python profile
 *      shows as loosened and needing consent;
 *   3. "Sandbox Runner: Run in Sandbox" on net.py: the modal warning
 *      "The workspace profile "python" loosens the sandbox." lists "network: none → bridge" and
 *      "+ --network bridge" (screenshot .artifacts/consent-check.png); "Allow for This Workspace";
 *      the run's output appears (with a network interface besides lo), the view counts 1 consent;
 *   4. run again: no modal, a second run's output;
 *   5. "Revoke Loosening Consents for This Workspace": the count goes; run again: the modal is back;
 *      decline it: "Not run: …" in the output, nothing ran (.artifacts/consent-check-declined.png);
 *   6. issue 22: "Run in Sandbox with Profile…" → the user profile "pydeps" (an image that can
 *      install) on deps-consent.py, whose PEP 723 block declares two packages: before anything
 *      starts, the modal "Install 2 packages for this script?" lists the packages, the index (pip's
 *      default: no index setting is needed to decline, and nothing contacts it) and "Network only
 *      while installing; …" (screenshot .artifacts/deps-consent.png), and no container of "pydeps"
 *      exists while it is open; declined: "Not run: installing …" in the output, no run, and no
 *      install container (none of "pydeps" appears).
 * Warm start, with the user setting sandboxRunner.warmStart "all" seeded: opening and focusing net.py
 * creates no warm container for the loosened python profile before "Allow" (nor while the modal is
 * open); after Allow and the run one appears, with the allowed loosening (network bridge), which
 * shows the first check is not vacuous; revoking removes it within seconds. The window's containers
 * are those whose `sandbox-runner.owner-pid` label is a process of code-server's process group.
 * Every check is reported (PASS/FAIL); screenshots are taken even when a check fails; the exit
 * status is non-zero when any check failed or the workbench could not be driven.
 *
 * Needs: `npm run build` (dist/extension.js), scripts/host-tools.sh, the local test images.
 * Environment: SANDBOX_RUNNER_VSCE (default @vscode/vsce@3.9.2), SANDBOX_RUNNER_UI_TIMEOUT
 * (seconds, default 300), SANDBOX_RUNNER_UI_STEPS=1 (a screenshot per step in
 * .artifacts/consent-check-steps/), and those of the host harness (../lib/tools.ts, logFilter.ts, runDirs.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { CodeServer } from '../lib/codeServer';
import { containersOwnedBy, type OwnedContainer } from '../lib/ownedContainers';
import { groupPids } from '../lib/processes';
import type { RunDirs } from '../lib/runDirs';
import { workbenchUrl } from '../lib/workbench';
import { HostSession } from '../lib/session';
import { LANGUAGE_IMAGES, TEST_IMAGES } from '../../support/images';
import { CheckReport, RUN_ROW, RUN_TITLE, artifacts, clean, installVsix, outputPanelText, packageExtension, quickPick, repo, startWorkbench } from './harness';

const workspace = join(repo, 'test', 'host', 'fixtures', 'loosened');
const REVOKE_TITLE = 'Sandbox Runner: Revoke Loosening Consents for This Workspace';
const ALLOW = 'Allow for This Workspace';
const CONSENT_MESSAGE = 'The workspace profile "python" loosens the sandbox.';
const UNTRUSTED_NOTE = 'Workspace profiles ignored (untrusted workspace)';
const CONSENTS_NOTE = /Loosened profiles allowed in this workspace: (\d+)/;
const steps = process.env.SANDBOX_RUNNER_UI_STEPS === '1';
/**
 * User settings of the run: warm start for every profile (application scope: user settings only);
 * for step 6 a user profile whose image can install (as test/host/suite/dependencies.test.ts's
 * `pydeps`). No index setting: the modal comes before any install, and the install is declined.
 */
const USER_SETTINGS = {
  'sandboxRunner.warmStart': 'all',
  'sandboxRunner.profiles': { pydeps: { image: LANGUAGE_IMAGES.pythonPip, command: ['python3', '${file}'] } },
};
const INSTALL = 'Install and Run';
/** How long a warm container may take to appear or go, and how long "none appears" is watched, ms. */
const WARM_WAIT_MS = 8_000;
const WARM_WATCH_MS = 3_000;

const report = new CheckReport('consent-check');
const { check, step } = report;

let shot = 0;
async function stepShot(page: Page, name: string): Promise<void> {
  if (!steps) return;
  if (shot === 0) rmSync(join(artifacts, 'consent-check-steps'), { recursive: true, force: true });
  mkdirSync(join(artifacts, 'consent-check-steps'), { recursive: true });
  await page.screenshot({ path: join(artifacts, 'consent-check-steps', `${String(++shot).padStart(2, '0')}-${name}.png`) }).catch(() => {});
}

/** The visible modal dialog (VS Code's custom dialog, `.monaco-dialog-box`). */
function dialog(page: Page): Locator {
  return page.locator('.monaco-dialog-box').first();
}

async function dialogText(page: Page): Promise<{ message: string; detail: string; buttons: string[] }> {
  const box = dialog(page);
  const message = clean(await box.locator('.dialog-message-text').innerText().catch(() => '')).trim();
  const detail = clean(await box.locator('.dialog-message-detail').innerText().catch(() => '')).trim();
  const buttons = (await box.locator('.dialog-buttons .monaco-button').allInnerTexts()).map((t) => clean(t).trim());
  return { message, detail, buttons };
}

async function clickDialogButton(page: Page, label: string | RegExp): Promise<void> {
  await dialog(page).locator('.dialog-buttons .monaco-button', { hasText: label }).first().click();
  await dialog(page).waitFor({ state: 'hidden', timeout: 10_000 });
}

/** The Sandbox Runner view container (its profiles tree). */
function profilesView(page: Page): Locator {
  return page.locator('[id="workbench.view.extension.sandboxRunner"]');
}

/**
 * The rows of the Sandbox Profiles tree, as "label — description" texts in the order shown.
 * One snapshot in the page: reading row by row over Playwright's protocol raced the list's
 * re-rendering (a row read its label before a refresh and its description after, e.g.
 * "pydeps — workspace · …python:2"), and the DOM order of a list's rows is not their order on
 * screen (rows are positioned; `data-index` is the row's index).
 */
async function treeRows(page: Page): Promise<string[]> {
  const rows = await profilesView(page).locator('.monaco-list-row').evaluateAll((elements) =>
    elements.map((row) => {
      const text = (selector: string) => (row.querySelector(selector) as unknown as { innerText: string } | null)?.innerText ?? '';
      return { index: Number(row.getAttribute('data-index')), label: text('.label-name'), description: text('.label-description') };
    }),
  );
  return rows
    .sort((a, b) => a.index - b.index)
    .map(({ label, description }) => {
      const [l, d] = [clean(label).trim(), clean(description).trim()];
      return d ? `${l} — ${d}` : l;
    });
}

/** Polls the tree until `predicate` holds for its rows (or `ms` passed); returns the last rows. */
async function waitForRows(page: Page, predicate: (rows: string[]) => boolean, ms = 10_000): Promise<string[]> {
  const end = Date.now() + ms;
  let rows: string[] = [];
  while (Date.now() < end) {
    rows = await treeRows(page);
    if (predicate(rows)) return rows;
    await page.waitForTimeout(200);
  }
  return rows;
}

/**
 * The "Sandbox Runner" output channel's text as VS Code logged it on the server (every line;
 * the panel in the DOM only holds the visible lines).
 */
function channelLog(dirs: RunDirs): string {
  const logs = join(dirs.userData, 'logs');
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^\d+-Sandbox Runner\.log$/.test(e.name)) found.push(p);
    }
  };
  if (existsSync(logs)) walk(logs);
  return found.map((f) => readFileSync(f, 'utf8')).join('\n');
}

/** Polls the channel log until `done` holds for its text (or `ms` passed); returns the last text. */
async function waitForLog(dirs: RunDirs, done: (text: string) => boolean, ms: number): Promise<string> {
  const end = Date.now() + ms;
  let text = '';
  while (Date.now() < end) {
    text = channelLog(dirs);
    if (done(text)) return text;
    await new Promise((r) => setTimeout(r, 250));
  }
  return text;
}

/** How many run footers ("■ …") `log` has. */
function footers(log: string): number {
  return (log.match(/^■ /gm) ?? []).length;
}

/** Waits until the channel log has `n` run footers; returns its text. */
function waitForFooters(dirs: RunDirs, n: number, ms = 30_000): Promise<string> {
  return waitForLog(dirs, (text) => footers(text) >= n, ms);
}

/** This window's warm containers (label `sandbox-runner.warm=1`) for the python profile, any state. */
async function warmPython(server: CodeServer): Promise<OwnedContainer[]> {
  return (await containersOwnedBy(new Set(groupPids(server.pid)))).filter((c) => c.warm && c.profile === 'python');
}

/**
 * Polls this window's warm python containers until `done` holds for them (or `ms` passed).
 * Returns the last list, how long it took, and every container name seen meanwhile.
 */
async function waitForWarm(server: CodeServer, done: (list: OwnedContainer[]) => boolean, ms = WARM_WAIT_MS): Promise<{ list: OwnedContainer[]; tookMs: number; seen: string[] }> {
  const t0 = Date.now();
  const seen = new Set<string>();
  for (;;) {
    const list = await warmPython(server);
    list.forEach((c) => seen.add(`${c.name} (${c.status})`));
    if (done(list) || Date.now() - t0 >= ms) return { list, tookMs: Date.now() - t0, seen: [...seen] };
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `docker container inspect --format FORMAT NAME`, trimmed ('' when it fails). */
function inspect(name: string, format: string): Promise<string> {
  return new Promise((resolve) => execFile('docker', ['container', 'inspect', '--format', format, name], { timeout: 15_000 }, (err, out) => resolve(err ? '' : String(out).trim())));
}

async function runInSandbox(page: Page): Promise<void> {
  // Focus the editor first so the palette command targets it.
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  await quickPick(page, 'F1', RUN_TITLE, RUN_ROW, 'click');
}

async function drive(page: Page, server: CodeServer, dirs: RunDirs): Promise<void> {
  await page.goto(workbenchUrl(server, workspace), { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  step('workbench loaded with the loosened workspace, Workspace Trust on');
  await stepShot(page, 'loaded');

  // 1. Restricted Mode. Desktop VS Code asks at start-up whether to trust the folder; the web
  // workbench opens it restricted with a banner. Either way: not trusted yet.
  const restricted = page.locator('.statusbar-item', { hasText: /Restricted Mode/ }).first();
  await Promise.race([dialog(page).waitFor({ state: 'visible', timeout: 20_000 }), restricted.waitFor({ state: 'visible', timeout: 20_000 })]);
  if (await dialog(page).isVisible()) {
    const prompt = await dialogText(page);
    step(`start-up trust dialog: ${JSON.stringify(prompt)}`);
    await clickDialogButton(page, /No, I don.t trust/);
  }
  await restricted.waitFor({ state: 'visible', timeout: 15_000 });
  check('the folder opens in Restricted Mode (status bar)', true);
  await stepShot(page, 'restricted');

  // The view container's activity-bar entry (its palette command may register later).
  const entry = page.locator('.part.activitybar .action-item .action-label[aria-label^="Sandbox Runner"]').first();
  await entry.waitFor({ state: 'visible', timeout: 30_000 });
  await entry.click();
  await profilesView(page).waitFor({ state: 'visible', timeout: 15_000 });
  let rows = await waitForRows(page, (r) => r.some((x) => x.startsWith('python')));
  await stepShot(page, 'restricted-tree');
  step(`tree in Restricted Mode: ${JSON.stringify(rows)}`);
  check('Restricted Mode: the tree shows the note "Workspace profiles ignored (untrusted workspace)"', rows.some((r) => r.includes(UNTRUSTED_NOTE)), JSON.stringify(rows));
  check('Restricted Mode: python is the built-in profile', rows.some((r) => /^python — built-in · python:3\.12-slim · network off/.test(r)), JSON.stringify(rows));

  // 2. Trust the folder through VS Code's own UI.
  await quickPick(page, 'F1', 'Workspaces: Manage Workspace Trust', /Manage Workspace Trust/, 'click');
  const trustButton = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust( Folder)?$/ }).first();
  await trustButton.waitFor({ state: 'visible', timeout: 15_000 });
  await stepShot(page, 'trust-editor');
  await trustButton.click();
  await page.locator('.statusbar-item', { hasText: /Restricted Mode/ }).first().waitFor({ state: 'hidden', timeout: 15_000 }).catch(() => {});
  await page.keyboard.press('Control+W'); // close the trust editor
  step('trusted the folder');
  rows = await waitForRows(page, (r) => !r.some((x) => x.includes(UNTRUSTED_NOTE)) && r.some((x) => /^python — workspace/.test(x)));
  await stepShot(page, 'trusted-tree');
  step(`tree when trusted: ${JSON.stringify(rows)}`);
  check('trusted: the untrusted note is gone', !rows.some((r) => r.includes(UNTRUSTED_NOTE)), JSON.stringify(rows));
  check(
    'trusted: the workspace python profile shows network on and "loosened (needs consent)"',
    rows.some((r) => /^python — workspace · sandbox-runner-test\/python:2 · network on · loosened \(needs consent\)/.test(r)),
    JSON.stringify(rows),
  );

  // 3. Run: the consent modal.
  await quickPick(page, 'Control+P', 'net.py', 'net.py', 'click');
  await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'HOST-LOOSENED-NET' }).waitFor({ timeout: 15_000 });
  // Warm start "all" prepares a container for the active editor's profile: never for a loosened
  // profile not yet allowed. Focus the editor and watch for one (any state) for a few seconds.
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  const unconsented = await waitForWarm(server, (list) => list.length > 0, WARM_WATCH_MS);
  step(`warm python containers before consent, watched ${unconsented.tookMs} ms: ${JSON.stringify(unconsented.seen)}`);
  check(
    `warmStart "all": opening and focusing net.py before consent creates no warm container for python (watched ${WARM_WATCH_MS / 1000} s)`,
    unconsented.seen.length === 0,
    unconsented.seen.join(', '),
  );
  await runInSandbox(page);
  await dialog(page).waitFor({ state: 'visible', timeout: 15_000 });
  const modal = await dialogText(page);
  await page.screenshot({ path: join(artifacts, 'consent-check.png') });
  step(`consent modal: ${JSON.stringify(modal)}`);
  check('the run asks for consent in a modal with the profile\'s name', modal.message === CONSENT_MESSAGE, JSON.stringify(modal.message));
  check('the modal lists the loosening "network: none → bridge"', modal.detail.includes('network: none → bridge'), JSON.stringify(modal.detail));
  check('the modal lists the differing docker argument "+ --network bridge"', modal.detail.split('\n').some((l) => l.trim() === '+ --network bridge'), JSON.stringify(modal.detail));
  check(`the modal offers "${ALLOW}"`, modal.buttons.includes(ALLOW), JSON.stringify(modal.buttons));
  // Enter presses the primary button: it must not be the one that grants consent.
  const allowClass = (await dialog(page).locator('.dialog-buttons .monaco-button', { hasText: ALLOW }).first().getAttribute('class')) ?? '';
  check(`"${ALLOW}" is not the default button (Enter does not grant consent)`, /\bsecondary\b/.test(allowClass), allowClass);
  const beforeAllow = channelLog(dirs);
  check('nothing runs while the modal is open', !/HOST-LOOSENED/.test(beforeAllow), JSON.stringify(beforeAllow.slice(-300)));
  const whileAsking = await warmPython(server);
  check('no warm container for python while the consent modal is open', whileAsking.length === 0, whileAsking.map((c) => `${c.name} (${c.status})`).join(', '));
  await clickDialogButton(page, ALLOW);
  step(`clicked "${ALLOW}"`);

  let log = await waitForFooters(dirs, 1);
  // The panel renders the channel some time after its log file has the footer: poll (up to 10 s).
  let panel = '';
  for (const until = Date.now() + 10_000; Date.now() < until; await page.waitForTimeout(200)) {
    panel = await outputPanelText(page);
    if (/HOST-LOOSENED-DONE 42/.test(panel) && /exited with code 0/.test(panel)) break;
  }
  check('after Allow, the run\'s output shows with the workspace profile and its network', /profile python \(workspace\) · image sandbox-runner-test\/python:2 · network ON \(bridge\)/.test(log), JSON.stringify(log.slice(-500)));
  check('the program ran with a network interface besides lo', /HOST-LOOSENED-NET (\S+,)?eth0/.test(log) || /HOST-LOOSENED-NET .*eth/.test(log), JSON.stringify(log.slice(-300)));
  check('the run exited with code 0 (Output panel)', /HOST-LOOSENED-DONE 42/.test(panel) && /exited with code 0/.test(panel), JSON.stringify(panel.slice(-300)));
  rows = await waitForRows(page, (r) => r.some((x) => CONSENTS_NOTE.test(x)) && r.some((x) => /loosened \(allowed\)/.test(x)));
  step(`tree after Allow: ${JSON.stringify(rows)}`);
  check('the tree counts the consent: "Loosened profiles allowed in this workspace: 1"', rows.some((r) => r.startsWith('Loosened profiles allowed in this workspace: 1')), JSON.stringify(rows));
  check('the tree marks python "loosened (allowed)"', rows.some((r) => /^python — .*loosened \(allowed\)/.test(r)), JSON.stringify(rows));
  await page.screenshot({ path: join(artifacts, 'consent-check-allowed.png') });
  // Once allowed, the run's replacement warm container for python is made (and not before: the
  // checks above are not vacuous), with exactly the allowed loosening.
  const allowed = await waitForWarm(server, (list) => list.some((c) => /^Up /.test(c.status)));
  const ready = allowed.list.find((c) => /^Up /.test(c.status));
  const warmConfig = ready ? await inspect(ready.name, '{{.HostConfig.NetworkMode}} {{.Config.Image}}') : '';
  step(`warm python container after Allow (${allowed.tookMs} ms): ${ready ? `${ready.name}: ${warmConfig}` : 'none'}`);
  check(
    `after Allow and the run, a warm container for python appears within ${WARM_WAIT_MS / 1000} s, with the allowed loosening (network bridge)`,
    ready !== undefined && warmConfig === `bridge ${TEST_IMAGES.python}`,
    ready ? `${ready.name}: ${warmConfig} after ${allowed.tookMs} ms` : `none after ${allowed.tookMs} ms; seen ${JSON.stringify(allowed.seen)}`,
  );

  // 4. Run again: no modal.
  await runInSandbox(page);
  let modalAgain = false;
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    if (await dialog(page).isVisible().catch(() => false)) {
      modalAgain = true;
      break;
    }
    if (footers(channelLog(dirs)) >= 2) break;
    await page.waitForTimeout(100);
  }
  log = await waitForFooters(dirs, 2, modalAgain ? 1 : 20_000);
  check('the second run asks nothing (no modal)', !modalAgain);
  if (modalAgain) await page.keyboard.press('Escape');
  check('the second run ran', (log.match(/^■ exited with code 0/gm) ?? []).length >= 2, JSON.stringify(log.slice(-300)));

  // 5. Revoke, run, decline. The second run took the warm container; wait for its replacement,
  // which revoking must remove.
  const beforeRevoke = await waitForWarm(server, (list) => list.some((c) => /^Up /.test(c.status)));
  step(`warm python containers before revoking (${beforeRevoke.tookMs} ms): ${JSON.stringify(beforeRevoke.list.map((c) => `${c.name} (${c.status})`))}`);
  await quickPick(page, 'F1', REVOKE_TITLE, REVOKE_TITLE, 'click');
  const revoked = await waitForWarm(server, (list) => list.length === 0);
  step(`warm python containers after revoking (${revoked.tookMs} ms): ${JSON.stringify(revoked.list.map((c) => `${c.name} (${c.status})`))}`);
  check(
    `revoking removes the warm container for python within ${WARM_WAIT_MS / 1000} s`,
    beforeRevoke.list.length > 0 && revoked.list.length === 0,
    `before: ${beforeRevoke.list.map((c) => c.name).join(', ') || 'none (nothing to remove: vacuous)'}; after ${revoked.tookMs} ms: ${revoked.list.map((c) => `${c.name} (${c.status})`).join(', ') || 'none'}`,
  );
  rows = await waitForRows(page, (r) => !r.some((x) => CONSENTS_NOTE.test(x)) && r.some((x) => /loosened \(needs consent\)/.test(x)));
  step(`tree after revoking: ${JSON.stringify(rows)}`);
  check('revoking removes the consent row and python needs consent again', !rows.some((r) => CONSENTS_NOTE.test(r)) && rows.some((r) => /^python — .*loosened \(needs consent\)/.test(r)), JSON.stringify(rows));
  const footersBefore = footers(channelLog(dirs));
  await runInSandbox(page);
  const asked = await dialog(page).waitFor({ state: 'visible', timeout: 15_000 }).then(
    () => true,
    () => false,
  );
  check('after revoking, the run asks again', asked);
  if (asked) {
    const again = await dialogText(page);
    const decline = again.buttons.find((b) => b !== ALLOW) ?? 'Cancel';
    step(`declining with "${decline}"`);
    await clickDialogButton(page, decline);
  }
  log = await waitForLog(dirs, (text) => /Not run: /.test(text), 15_000);
  await page.waitForTimeout(500);
  panel = await outputPanelText(page);
  const notRun = /\[sandbox-runner\] Not run: the workspace profile "python" loosens the sandbox \(network: none → bridge\) and was not allowed\./;
  check('declining: the output says "Not run: …" with the loosening', notRun.test(log), JSON.stringify(log.slice(-400)));
  check('declining: nothing ran (no new run in the output)', footers(log) === footersBefore, `${footersBefore} runs before, ${footers(log)} after`);
  // The warning also goes to the notifications (as a toast, or only into the centre when the
  // workbench holds toasts back): open the centre and look for it.
  await page.screenshot({ path: join(artifacts, 'consent-check-declined.png') });
  let toast = await page.locator('.notifications-toasts .notification-toast', { hasText: /Not run/ }).count();
  if (toast === 0) {
    await quickPick(page, 'F1', 'Notifications: Show Notifications', /Show Notifications/, 'click');
    const item = page.locator('.notifications-center .monaco-list-row', { hasText: /Not run: the workspace profile "python" loosens the sandbox/ }).first();
    toast = await item.waitFor({ state: 'visible', timeout: 5_000 }).then(
      () => 1,
      () => 0,
    );
  }
  check('declining: a warning notification says "Not run"', toast > 0);

  await declineInstall(page, server, dirs);

  const left = await containersOwnedBy(new Set(groupPids(server.pid)));
  check('no container of this window is left', left.length === 0, left.map((c) => `${c.name} (${c.status})`).join(', '));
}

/** This window's containers of the profile "pydeps" (an install's or a run's), any state. */
async function pydepsContainers(server: CodeServer): Promise<string[]> {
  return (await containersOwnedBy(new Set(groupPids(server.pid)))).filter((c) => c.profile === 'pydeps').map((c) => `${c.name} (${c.status})`);
}

/** Step 6 (issue 22): the install consent modal of a PEP 723 snippet, then declined. */
async function declineInstall(page: Page, server: CodeServer, dirs: RunDirs): Promise<void> {
  await quickPick(page, 'Control+P', 'deps-consent.py', 'deps-consent.py', 'click');
  await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'DEPS-CONSENT-RAN' }).waitFor({ timeout: 15_000 });
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  const footersBefore = footers(channelLog(dirs));
  await quickPick(page, 'F1', 'Run in Sandbox with Profile', /Sandbox Runner: Run in Sandbox with Profile/, 'click', 'Choose a sandbox profile');
  // The command's own Quick Pick of profiles.
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: /^pydeps/ }).first();
  await row.waitFor({ state: 'visible', timeout: 15_000 });
  await row.click();
  const asked = await dialog(page).waitFor({ state: 'visible', timeout: 15_000 }).then(() => true, () => false);
  await page.screenshot({ path: join(artifacts, 'deps-consent.png') });
  check('a PEP 723 snippet run with "pydeps" asks in a modal before installing', asked);
  if (!asked) return;
  const modal = await dialogText(page);
  step(`install consent modal: ${JSON.stringify(modal)}`);
  check('the modal asks "Install 2 packages for this script?"', modal.message === 'Install 2 packages for this script?', JSON.stringify(modal.message));
  check('the modal lists the packages with their specs', modal.detail.includes('• "tinyhello>=1"') && modal.detail.includes('• "rich==13.7.1"'), JSON.stringify(modal.detail));
  // No index setting here: the environment's PIP_INDEX_URL, else pip's default, named and never contacted.
  const index = process.env.PIP_INDEX_URL ?? 'https://pypi.org/simple (pip\'s default)';
  check(`the modal names the index (${index})`, modal.detail.split('\n').includes(`Index: ${index}`), JSON.stringify(modal.detail));
  check('the modal says "Network only while installing; the program runs without network."', modal.detail.includes('Network only while installing; the program runs without network.'), JSON.stringify(modal.detail));
  check(`the modal offers "${INSTALL}"`, modal.buttons.includes(INSTALL), JSON.stringify(modal.buttons));
  const whileAsking = await pydepsContainers(server);
  check('nothing of "pydeps" started while the modal is open (the modal comes before any install)', whileAsking.length === 0, whileAsking.join(', '));
  const decline = modal.buttons.find((b) => b !== INSTALL) ?? 'Cancel';
  step(`declining with "${decline}"`);
  await clickDialogButton(page, decline);
  const log = await waitForLog(dirs, (text) => /Not run: installing /.test(text), 15_000);
  check(
    'declined: the output says "Not run: installing … was not allowed"',
    /\[sandbox-runner\] Not run: installing "tinyhello>=1", "rich==13\.7\.1" for .*deps-consent\.py.* was not allowed\./.test(log),
    JSON.stringify(log.slice(-400)),
  );
  check('declined: nothing ran (no new run in the output)', footers(log) === footersBefore && !/DEPS-CONSENT-RAN/.test(log), `${footersBefore} runs before, ${footers(log)} after`);
  // An install would start its container at once: watch for one of "pydeps" for a few seconds.
  const seen = new Set<string>();
  for (const until = Date.now() + WARM_WATCH_MS; Date.now() < until; await page.waitForTimeout(200)) (await pydepsContainers(server)).forEach((c) => seen.add(c));
  check(`declined: no install (or run) container of "pydeps" appeared (watched ${WARM_WATCH_MS / 1000} s)`, seen.size === 0, [...seen].join(', '));
}

async function main(): Promise<number> {
  mkdirSync(artifacts, { recursive: true });
  if (!report.prerequisites()) return 1;
  // Workspace Trust ON: the folder starts untrusted (Restricted Mode); warm start for every profile.
  const session = new HostSession('sandbox-runner-consent', true, USER_SETTINGS);
  const failed = (err: unknown) => report.driveFailed(err, session, 'consent-check-failure.png');
  return report.runSession(session, 'the consent check', failed, async (hard) => {
    // The .vsix goes into the run's folder. A base URL for README's relative links: without a
    // repository in package.json, vsce refuses relative links (the UI check, test:ui, is the one
    // that checks packaging as published).
    const base = 'https://sandbox-runner.invalid/';
    const vsix = packageExtension(session.dirs.root, ['--baseContentUrl', base, '--baseImagesUrl', base]);
    step(`packaged ${vsix} (${(statSync(vsix).size / 1024).toFixed(1)} KiB)`);
    installVsix(report, session, vsix);
    step('installed the .vsix');

    const { server, page } = await startWorkbench(report, session, hard);
    await Promise.race([drive(page, server, session.dirs), hard]);
  });
}

report.exitWith(main);
