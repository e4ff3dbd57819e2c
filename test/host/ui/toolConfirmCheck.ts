/**
 * The real `vscode.lm.invokeTool` of the Run in Sandbox tool (issue 14), a step of uiCheck.ts.
 * Outside a chat, VS Code asks for confirmation with a modal dialog (LanguageModelToolsService
 * `invokeTool` without a chat context: `dialogService.confirm({ message: title, detail: message })`
 * with the tool's `confirmationMessages` as plain text), which would block a mocha host test. So a
 * test-only second extension, test/host/fixtures/tool-caller (packaged and installed next to the
 * .vsix; the product gains no test command), calls the tool from its command "Sandbox Runner
 * Test: Invoke Run in Sandbox Tool" with `{ code: 'print(6*7)', language: 'python' }` and shows
 * the result in an information message. The check runs that command from the palette, reads the
 * modal (title, profile, image, network, host folders, limits, the code), saves
 * .artifacts/ui-check-tool-confirm.png, confirms, and reads the run in the Sandbox Runner output
 * channel (its header says it came from the agent tool; 42) and the result the caller got back.
 * Issue 24: the caller's second command starts a new session with a file passed in; the modal
 * "Run in Sandbox Session?" names the new session and lists the file with its size
 * (.artifacts/ui-check-tool-session-confirm.png); after confirming, the caller closes the session
 * with `sandboxRunner_closeSession` (no modal) and shows both results.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { HostSession } from '../lib/session';
import { artifacts, clean, codeServerCli, notificationTexts, outputPanelText, packageExtension, quickPick, repo, type CheckReport } from './harness';

/** The test-only extension that calls the tool. */
const TOOL_CALLER = join(repo, 'test', 'host', 'fixtures', 'tool-caller');
/** Its command's palette title (category: title, its package.json). */
export const TOOL_CALLER_TITLE = 'Sandbox Runner Test: Invoke Run in Sandbox Tool';
/** The prefix of the information message with the tool's result (its extension.js). */
const RESULT_PREFIX = 'Run in Sandbox tool result:';
/** Its second command's palette title (issue 24: a new session). */
export const SESSION_CALLER_TITLE = 'Sandbox Runner Test: Invoke Run in Sandbox Tool in a New Session';
/** The prefix of the information message with the session's results. */
const SESSION_RESULT_PREFIX = 'Run in Sandbox session result:';

/** Packages the tool-calling test extension with vsce into `outDir` and installs it into the session's code-server. */
export function installToolCaller(report: CheckReport, session: HostSession, outDir: string): void {
  const vsix = packageExtension(outDir, ['--skip-license'], TOOL_CALLER);
  report.step(`packaged the test-only tool caller ${vsix}`);
  const installed = codeServerCli(session, ['--install-extension', vsix, '--force'], 120_000, 'code-server --install-extension (tool caller)');
  report.check('code-server installs the test-only tool caller', /successfully installed/i.test(installed), installed.split('\n').filter((l) => /install/i.test(l)).join(' / '));
}

/**
 * Opens the notification centre ("Notifications: Show Notifications"; it lists every notification,
 * and here the workbench held the caller's toast back in every run) and polls the notifications
 * every 250 ms for one containing `text`, for `ms`. Returns it, or undefined, with every
 * notification seen.
 */
async function waitForNotification(page: Page, text: string, ms: number): Promise<{ found?: string; seen: string[] }> {
  const seen = new Set<string>();
  if (!(await page.locator('.notifications-center.visible').count())) {
    await quickPick(page, 'F1', 'Notifications: Show Notifications', /Show Notifications/, 'click').catch(() => page.keyboard.press('Escape'));
  }
  const end = Date.now() + ms;
  while (Date.now() < end) {
    for (const t of await notificationTexts(page)) seen.add(t);
    const found = [...seen].find((t) => t.includes(text));
    if (found) return { found, seen: [...seen] };
    await page.waitForTimeout(250);
  }
  return { seen: [...seen] };
}

/** Runs the tool-confirmation checks on the workbench `page` (the fixture workspace is open). */
export async function toolConfirmChecks(page: Page, report: CheckReport): Promise<void> {
  const { check, step } = report;
  await quickPick(page, 'F1', TOOL_CALLER_TITLE, TOOL_CALLER_TITLE, 'Enter');
  step(`ran "${TOOL_CALLER_TITLE}" from the command palette`);

  // The modal: VS Code's dialog (.monaco-dialog-box), title in the message, the tool's text in the detail.
  const dialog = page.locator('.monaco-dialog-box').filter({ hasText: 'Run in Sandbox?' });
  const shown = await dialog.waitFor({ state: 'visible', timeout: 30_000 }).then(() => true, () => false);
  const text = shown ? clean(await dialog.innerText()) : '';
  const failure = shown ? [] : (await notificationTexts(page)).filter((t) => /tool call failed/.test(t));
  check('vscode.lm.invokeTool outside a chat shows the modal confirmation "Run in Sandbox?"', shown, shown ? '' : `no dialog; toasts: ${JSON.stringify(failure)}`);
  await page.screenshot({ path: join(artifacts, 'ui-check-tool-confirm.png') });
  step('saved .artifacts/ui-check-tool-confirm.png');
  if (!shown) return;
  const oneLine = JSON.stringify(text.replace(/\s*\n\s*/g, ' | '));
  check('the confirmation says an agent asks and names the profile, image and network', /A chat agent asks to run this code in the sandbox/.test(text) && /Profile: python\b/.test(text) && /Image: \S+/.test(text) && /Network: off/.test(text), oneLine);
  check('the confirmation names the host folders and the limits', /Host folders: none/.test(text) && /Limits: \d+ MiB memory, [\d.]+ CPU, \d+ processes, [\d.]+ s, \d+ bytes per stream/.test(text), oneLine);
  check('the confirmation shows the language and the code (python, print(6*7))', /python/.test(text) && text.includes('print(6*7)'), oneLine);

  const buttons = dialog.locator('.dialog-buttons .monaco-button');
  const labels = (await buttons.allInnerTexts()).map((t) => clean(t).trim());
  step(`the dialog's buttons: ${JSON.stringify(labels)}`);
  const confirm = buttons.filter({ hasText: /^\s*(Yes|Continue|Allow|Run|OK)\s*$/ }).first();
  const confirmable = await confirm.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false);
  check('the dialog offers a confirm button and a cancel button', confirmable && labels.some((l) => /Cancel/.test(l)), JSON.stringify(labels));
  if (!confirmable) return;
  await confirm.click();
  const closed = await dialog.waitFor({ state: 'hidden', timeout: 10_000 }).then(() => true, () => false);
  check('confirming closes the dialog', closed);

  // The run, like any other, in the Sandbox Runner output channel (the tool shows it).
  let output = '';
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    output = await outputPanelText(page, '.part.panel .output-view .monaco-editor .view-lines, .part.panel .monaco-editor .view-lines');
    if (/code from an agent \(Run in Sandbox tool[\s\S]*■[^\n]*exited with code/.test(output)) break;
    await page.waitForTimeout(250);
  }
  const run = output.slice(Math.max(0, output.lastIndexOf('code from an agent (Run in Sandbox tool') - 80));
  check('the output channel shows the run with the header "code from an agent (Run in Sandbox tool, 1 line)"', /code from an agent \(Run in Sandbox tool, 1 line\)/.test(run), JSON.stringify(output.slice(-500)));
  check('the run printed 42 and exited with code 0', /^42$/m.test(run) && /exited with code 0/.test(run), JSON.stringify(run.slice(-400)));

  // What the caller got back from invokeTool: the outcome and the program's stdout, labelled as data.
  const { found, seen } = await waitForNotification(page, RESULT_PREFIX, 30_000);
  const resultText = found ?? JSON.stringify(seen);
  check('invokeTool returns the outcome to the caller', found !== undefined && /Sandbox run exited with code 0/.test(resultText), resultText.slice(0, 300));
  check('invokeTool returns stdout 42 as labelled program output', /<program-output stream="stdout"[^>]*> \| 42 \| <\/program-output/.test(resultText), resultText.slice(0, 900));
}

/** Issue 24: the confirmation of a new session with a file passed in, then the session's result and its close. */
export async function sessionConfirmChecks(page: Page, report: CheckReport): Promise<void> {
  const { check, step } = report;
  await page.keyboard.press('Escape');
  await quickPick(page, 'F1', SESSION_CALLER_TITLE, SESSION_CALLER_TITLE, 'Enter');
  step(`ran "${SESSION_CALLER_TITLE}" from the command palette`);
  const dialog = page.locator('.monaco-dialog-box').filter({ hasText: 'Run in Sandbox Session?' });
  const shown = await dialog.waitFor({ state: 'visible', timeout: 30_000 }).then(() => true, () => false);
  check('a new session asks "Run in Sandbox Session?"', shown);
  await page.screenshot({ path: join(artifacts, 'ui-check-tool-session-confirm.png') });
  step('saved .artifacts/ui-check-tool-session-confirm.png');
  if (!shown) return;
  const text = clean(await dialog.innerText());
  const oneLine = JSON.stringify(text.replace(/\s*\n\s*/g, ' | '));
  check('the confirmation names the new session and lists the file passed in with its size', /Session: new session/.test(text) && /File: "data\.csv" \(8 bytes\)/.test(text), oneLine);
  const confirm = dialog.locator('.dialog-buttons .monaco-button').filter({ hasText: /^\s*(Yes|Continue|Allow|Run|OK)\s*$/ }).first();
  await confirm.click();
  const { found, seen } = await waitForNotification(page, SESSION_RESULT_PREFIX, 90_000);
  const resultText = found ?? JSON.stringify(seen);
  check('the session ran the code on the file (42) and returned its id', found !== undefined && /Session [0-9a-f-]{36}: cell 1 ok/.test(resultText) && / \| 42 \| /.test(resultText), resultText.slice(0, 600));
  check('the close tool closed it without a modal', /Session [0-9a-f-]{36} closed; its container was removed\./.test(resultText), resultText.slice(-300));
}
