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
 *      decline it: "Not run: …" in the output, nothing ran (.artifacts/consent-check-declined.png).
 * Every check is reported (PASS/FAIL); screenshots are taken even when a check fails; the exit
 * status is non-zero when any check failed or the workbench could not be driven.
 *
 * Needs: `npm run build` (dist/extension.js), scripts/host-tools.sh, the local test images.
 * Environment: SANDBOX_RUNNER_VSCE (default @vscode/vsce@3.9.2), SANDBOX_RUNNER_UI_TIMEOUT
 * (seconds, default 300), SANDBOX_RUNNER_UI_STEPS=1 (a screenshot per step in
 * .artifacts/consent-check-steps/), and those of ../lib/codeServer.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  codeServerPath,
  containersOwnedBy,
  deadline,
  envSeconds,
  groupPids,
  hermeticEnv,
  launchChromium,
  makeRunDirs,
  removeRunDirs,
  seedUserSettings,
  startCodeServer,
  tracePage,
  workbenchUrl,
  type CodeServer,
  type RunDirs,
} from '../lib/codeServer';

/** The repository root (this file runs as out/test/host/ui/consentCheck.js). */
const repo = resolve(__dirname, '..', '..', '..', '..');
const artifacts = join(repo, '.artifacts');
const workspace = join(repo, 'test', 'host', 'fixtures', 'loosened');
const VSCE = process.env.SANDBOX_RUNNER_VSCE || '@vscode/vsce@3.9.2';
const RUN_TITLE = 'Sandbox Runner: Run in Sandbox';
const REVOKE_TITLE = 'Sandbox Runner: Revoke Loosening Consents for This Workspace';
const ALLOW = 'Allow for This Workspace';
const CONSENT_MESSAGE = 'The workspace profile "python" loosens the sandbox.';
const UNTRUSTED_NOTE = 'Workspace profiles ignored (untrusted workspace)';
const CONSENTS_NOTE = /Loosened profiles allowed in this workspace: (\d+)/;
const steps = process.env.SANDBOX_RUNNER_UI_STEPS === '1';

const checks: { name: string; ok: boolean; detail: string }[] = [];
function check(name: string, ok: boolean, detail = ''): void {
  checks.push({ name, ok, detail });
  console.log(`consent-check: ${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
}

let t0 = Date.now();
function step(text: string): void {
  console.log(`consent-check: [${((Date.now() - t0) / 1000).toFixed(1)} s] ${text}`);
}

let shot = 0;
async function stepShot(page: Page, name: string): Promise<void> {
  if (!steps) return;
  if (shot === 0) rmSync(join(artifacts, 'consent-check-steps'), { recursive: true, force: true });
  mkdirSync(join(artifacts, 'consent-check-steps'), { recursive: true });
  await page.screenshot({ path: join(artifacts, 'consent-check-steps', `${String(++shot).padStart(2, '0')}-${name}.png`) }).catch(() => {});
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

/** Packages the extension with vsce into the run's folder; returns the .vsix path. */
function packageExtension(dirs: RunDirs): string {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { name: string; version: string };
  const vsix = join(dirs.root, `${pkg.name}-${pkg.version}.vsix`);
  // A base URL for README's relative links: without a repository in package.json, vsce refuses
  // relative links (the UI check, test:ui, is the one that checks packaging as published).
  const base = 'https://sandbox-runner.invalid/';
  run('npx', ['--yes', VSCE, 'package', '--no-dependencies', '--allow-missing-repository', '--baseContentUrl', base, '--baseImagesUrl', base, '--out', vsix], {
    timeoutMs: 240_000,
    what: `npx ${VSCE} package`,
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
  await input.fill(open === 'F1' ? `>${query}` : query);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 15_000 });
  await row.click();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
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

/** The rows of the Sandbox Profiles tree, as "label — description" texts. */
async function treeRows(page: Page): Promise<string[]> {
  const rows = profilesView(page).locator('.monaco-list-row');
  const out: string[] = [];
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    // allInnerTexts() does not wait: a row without a description has no such element.
    const label = clean((await row.locator('.label-name').allInnerTexts())[0] ?? '').trim();
    const description = clean((await row.locator('.label-description').allInnerTexts())[0] ?? '').trim();
    out.push(description ? `${label} — ${description}` : label);
  }
  return out;
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

/** Text of the Output panel's editor (visible lines only). */
async function outputPanelText(page: Page): Promise<string> {
  const lines = page.locator('.part.panel .monaco-editor .view-lines').first();
  if (!(await lines.count())) return '';
  return clean(await lines.innerText());
}

/** Waits until the channel log has `n` run footers ("■ …"); returns its text. */
async function waitForFooters(dirs: RunDirs, n: number, ms = 30_000): Promise<string> {
  const end = Date.now() + ms;
  let text = '';
  while (Date.now() < end) {
    text = channelLog(dirs);
    if ((text.match(/^■ /gm) ?? []).length >= n) return text;
    await new Promise((r) => setTimeout(r, 250));
  }
  return text;
}

/** Waits until the channel log contains `pattern`; returns its text. */
async function waitForLog(dirs: RunDirs, pattern: RegExp, ms = 15_000): Promise<string> {
  const end = Date.now() + ms;
  let text = '';
  while (Date.now() < end) {
    text = channelLog(dirs);
    if (pattern.test(text)) return text;
    await new Promise((r) => setTimeout(r, 250));
  }
  return text;
}

async function runInSandbox(page: Page): Promise<void> {
  // Focus the editor first so the palette command targets it.
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  await quickPick(page, 'F1', RUN_TITLE, RUN_TITLE);
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
  await quickPick(page, 'F1', 'Workspaces: Manage Workspace Trust', /Manage Workspace Trust/);
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
    rows.some((r) => /^python — workspace · sandbox-runner-test\/python:1 · network on · loosened \(needs consent\)/.test(r)),
    JSON.stringify(rows),
  );

  // 3. Run: the consent modal.
  await quickPick(page, 'Control+P', 'net.py', 'net.py');
  await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'HOST-LOOSENED-NET' }).waitFor({ timeout: 15_000 });
  await runInSandbox(page);
  await dialog(page).waitFor({ state: 'visible', timeout: 15_000 });
  const modal = await dialogText(page);
  await page.screenshot({ path: join(artifacts, 'consent-check.png') });
  step(`consent modal: ${JSON.stringify(modal)}`);
  check('the run asks for consent in a modal with the profile\'s name', modal.message === CONSENT_MESSAGE, JSON.stringify(modal.message));
  check('the modal lists the loosening "network: none → bridge"', modal.detail.includes('network: none → bridge'), JSON.stringify(modal.detail));
  check('the modal lists the differing docker argument "+ --network bridge"', modal.detail.split('\n').some((l) => l.trim() === '+ --network bridge'), JSON.stringify(modal.detail));
  check(`the modal offers "${ALLOW}"`, modal.buttons.includes(ALLOW), JSON.stringify(modal.buttons));
  const beforeAllow = channelLog(dirs);
  check('nothing runs while the modal is open', !/HOST-LOOSENED/.test(beforeAllow), JSON.stringify(beforeAllow.slice(-300)));
  await clickDialogButton(page, ALLOW);
  step(`clicked "${ALLOW}"`);

  let log = await waitForFooters(dirs, 1);
  await page.waitForTimeout(300);
  let panel = await outputPanelText(page);
  check('after Allow, the run\'s output shows with the workspace profile and its network', /profile python \(workspace\) · image sandbox-runner-test\/python:1 · network ON \(bridge\)/.test(log), JSON.stringify(log.slice(-500)));
  check('the program ran with a network interface besides lo', /HOST-LOOSENED-NET (\S+,)?eth0/.test(log) || /HOST-LOOSENED-NET .*eth/.test(log), JSON.stringify(log.slice(-300)));
  check('the run exited with code 0 (Output panel)', /HOST-LOOSENED-DONE 42/.test(panel) && /exited with code 0/.test(panel), JSON.stringify(panel.slice(-300)));
  rows = await waitForRows(page, (r) => r.some((x) => CONSENTS_NOTE.test(x)) && r.some((x) => /loosened \(allowed\)/.test(x)));
  step(`tree after Allow: ${JSON.stringify(rows)}`);
  check('the tree counts the consent: "Loosened profiles allowed in this workspace: 1"', rows.some((r) => r.startsWith('Loosened profiles allowed in this workspace: 1')), JSON.stringify(rows));
  check('the tree marks python "loosened (allowed)"', rows.some((r) => /^python — .*loosened \(allowed\)/.test(r)), JSON.stringify(rows));
  await page.screenshot({ path: join(artifacts, 'consent-check-allowed.png') });

  // 4. Run again: no modal.
  await runInSandbox(page);
  let modalAgain = false;
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    if (await dialog(page).isVisible().catch(() => false)) {
      modalAgain = true;
      break;
    }
    if ((channelLog(dirs).match(/^■ /gm) ?? []).length >= 2) break;
    await page.waitForTimeout(100);
  }
  log = await waitForFooters(dirs, 2, modalAgain ? 1 : 20_000);
  check('the second run asks nothing (no modal)', !modalAgain);
  if (modalAgain) await page.keyboard.press('Escape');
  check('the second run ran', (log.match(/^■ exited with code 0/gm) ?? []).length >= 2, JSON.stringify(log.slice(-300)));

  // 5. Revoke, run, decline.
  await quickPick(page, 'F1', REVOKE_TITLE, REVOKE_TITLE);
  rows = await waitForRows(page, (r) => !r.some((x) => CONSENTS_NOTE.test(x)) && r.some((x) => /loosened \(needs consent\)/.test(x)));
  step(`tree after revoking: ${JSON.stringify(rows)}`);
  check('revoking removes the consent row and python needs consent again', !rows.some((r) => CONSENTS_NOTE.test(r)) && rows.some((r) => /^python — .*loosened \(needs consent\)/.test(r)), JSON.stringify(rows));
  const footersBefore = (channelLog(dirs).match(/^■ /gm) ?? []).length;
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
  log = await waitForLog(dirs, /Not run: /);
  await page.waitForTimeout(500);
  panel = await outputPanelText(page);
  const notRun = /\[sandbox-runner\] Not run: the workspace profile "python" loosens the sandbox \(network: none → bridge\) and was not allowed\./;
  check('declining: the output says "Not run: …" with the loosening', notRun.test(log), JSON.stringify(log.slice(-400)));
  check('declining: nothing ran (no new run in the output)', (log.match(/^■ /gm) ?? []).length === footersBefore, `${footersBefore} runs before, ${(log.match(/^■ /gm) ?? []).length} after`);
  // The warning also goes to the notifications (as a toast, or only into the centre when the
  // workbench holds toasts back): open the centre and look for it.
  await page.screenshot({ path: join(artifacts, 'consent-check-declined.png') });
  let toast = await page.locator('.notifications-toasts .notification-toast', { hasText: /Not run/ }).count();
  if (toast === 0) {
    await quickPick(page, 'F1', 'Notifications: Show Notifications', /Show Notifications/);
    const item = page.locator('.notifications-center .monaco-list-row', { hasText: /Not run: the workspace profile "python" loosens the sandbox/ }).first();
    toast = await item.waitFor({ state: 'visible', timeout: 5_000 }).then(
      () => 1,
      () => 0,
    );
  }
  check('declining: a warning notification says "Not run"', toast > 0);

  const left = await containersOwnedBy(new Set(groupPids(server.pid)));
  check('no container of this window is left', left.length === 0, left.map((c) => `${c.name} (${c.status})`).join(', '));
}

async function main(): Promise<number> {
  t0 = Date.now();
  mkdirSync(artifacts, { recursive: true });
  if (!existsSync(join(repo, 'dist', 'extension.js'))) {
    console.error('consent-check: dist/extension.js is missing; run "npm run build" first.');
    return 1;
  }
  codeServerPath();
  const dirs = makeRunDirs('sandbox-runner-consent');
  const env = hermeticEnv(dirs);
  process.env.TMPDIR = dirs.tmp;
  // Workspace Trust ON: the folder starts untrusted (Restricted Mode).
  seedUserSettings(dirs, { trust: true });
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const timeoutS = envSeconds('SANDBOX_RUNNER_UI_TIMEOUT', 300);
  const hard = deadline(timeoutS * 1000, () => `the consent check did not finish within ${timeoutS} s; last server log lines:\n${server?.logTail(40) ?? ''}`);
  try {
    const vsix = packageExtension(dirs);
    step(`packaged ${vsix} (${(statSync(vsix).size / 1024).toFixed(1)} KiB)`);
    const installed = run(codeServerPath(), ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--install-extension', vsix, '--force'], {
      env,
      timeoutMs: 120_000,
      what: 'code-server --install-extension',
    });
    check('code-server installs the .vsix', /successfully installed/i.test(installed), installed.split('\n').filter((l) => /install/i.test(l)).join(' / '));
    step('installed the .vsix');

    server = await Promise.race([startCodeServer({ dirs, env, trust: true }), hard.promise]);
    step(`code-server listening on ${server.origin}`);
    browser = await Promise.race([launchChromium(env), hard.promise]);
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    tracePage(page);
    const srv = server;
    const pg = page;
    await Promise.race([drive(pg, srv, dirs), hard.promise]);
  } catch (err) {
    check('drive the workbench', false, (err as Error).message.split('\n')[0] ?? '');
    if (page) await page.screenshot({ path: join(artifacts, 'consent-check-failure.png') }).catch(() => {});
    if (server) console.error(`consent-check: last server log lines:\n${server.logTail(30)}`);
  } finally {
    hard.clear();
    await browser?.close().catch(() => {});
    await server?.stop();
    removeRunDirs(dirs);
  }
  const failed = checks.filter((c) => !c.ok);
  console.log(`consent-check: ${checks.length - failed.length} passed, ${failed.length} failed (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`consent-check: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
