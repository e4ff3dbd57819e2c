/**
 * The interactive terminal through the browser (issue 11), a step of uiCheck.ts: opens ask.py,
 * runs "Sandbox Runner: Run in Sandbox (Interactive)" from the command palette, types two answers
 * into the terminal with the keyboard (after a resize of the window), reads the greeting and the
 * program's terminal sizes back from the terminal and saves
 * .artifacts/ui-check-interactive.png.
 *
 * Reading the terminal: the check's code-server runs with `terminal.integrated.gpuAcceleration`
 * "off" ({@link INTERACTIVE_USER_SETTINGS}), so xterm.js draws with its DOM renderer and the
 * visible rows are text in `.xterm-rows` (the WebGL renderer draws to a canvas).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { artifacts, clean, quickPick, type CheckReport } from './harness';

/** The command's palette title. */
export const INTERACTIVE_TITLE = 'Sandbox Runner: Run in Sandbox (Interactive)';
/** User settings the check needs: xterm.js's DOM renderer, whose rows can be read as text. */
export const INTERACTIVE_USER_SETTINGS: Readonly<Record<string, unknown>> = { 'terminal.integrated.gpuAcceleration': 'off' };
const TERMINAL_NAME = 'Sandbox: ask.py (python)';

/** The visible rows of the active terminal in the panel, as text ('' when none is shown). */
async function terminalRows(page: Page): Promise<string> {
  // Every terminal of the panel has its rows in the DOM; only the shown one is visible.
  const texts = await page
    .locator('.part.panel .xterm-rows')
    .evaluateAll((els) => els.filter((e) => (e as unknown as { offsetParent: unknown }).offsetParent !== null).map((e) => (e as unknown as { innerText: string }).innerText))
    .catch(() => [] as string[]);
  return clean(texts.join('\n'));
}

/** Polls the terminal every 200 ms until `pattern` shows or `ms` pass; returns the last text read. */
async function waitForTerminal(page: Page, pattern: RegExp, ms: number): Promise<string> {
  let text = '';
  const end = Date.now() + ms;
  while (Date.now() < end) {
    text = await terminalRows(page);
    if (pattern.test(text)) break;
    await page.waitForTimeout(200);
  }
  return text;
}

/** Types `answer` and Enter into the focused terminal, after `prompt` shows; returns whether it showed. */
async function answer(page: Page, prompt: RegExp, answerText: string): Promise<boolean> {
  const shown = prompt.test(await waitForTerminal(page, prompt, 30_000));
  if (shown) {
    await page.keyboard.type(answerText, { delay: 30 });
    await page.keyboard.press('Enter');
  }
  return shown;
}

/**
 * Runs the interactive checks on the workbench `page` (the fixture workspace is open); then, when
 * `linkFile` is given (a workspace file whose name is a markdown command link, see uiCheck.ts),
 * {@link linkNameChecks}.
 */
export async function interactiveChecks(page: Page, report: CheckReport, linkFile?: { query: string; name: string }): Promise<void> {
  const { check, step } = report;
  await quickPick(page, 'Control+P', 'ask.py', 'ask.py', 'Enter');
  await page.locator('.tabs-container .tab.active', { hasText: 'ask.py' }).waitFor({ state: 'visible', timeout: 15_000 });
  await quickPick(page, 'F1', INTERACTIVE_TITLE, INTERACTIVE_TITLE, 'Enter');
  step(`ran "${INTERACTIVE_TITLE}" on ask.py from the command palette`);

  // A resize while the program waits: the workbench relays out the terminal (setDimensions), and
  // the program's TTY follows (ask.py prints its size at the start and at the end).
  const prompted = await waitForTerminal(page, /first\? *$/m, 30_000);
  if (/first\? *$/m.test(prompted)) {
    await page.setViewportSize({ width: 1100, height: 760 });
    await page.waitForTimeout(1_500);
    await page.locator('.part.panel .xterm-screen').first().click().catch(() => {});
  }
  const first = await answer(page, /first\? *$/m, 'Ada');
  check('the interactive terminal shows the program\'s first prompt', first, JSON.stringify((await terminalRows(page)).slice(-300)));
  const panel = clean(await page.locator('.part.panel').innerText().catch(() => ''));
  const named = panel.includes(TERMINAL_NAME) || (await page.locator(`.part.panel [aria-label*="${TERMINAL_NAME}"]`).count()) > 0;
  check('the terminal is named after the file and profile', named, `looked for "${TERMINAL_NAME}" in the panel`);
  const second = first && (await answer(page, /second\? *$/m, 'Lovelace'));
  check('typing the first answer and Enter reaches the program (second prompt)', second, JSON.stringify((await terminalRows(page)).slice(-300)));

  const text = await waitForTerminal(page, /■ exited/, 30_000);
  await page.screenshot({ path: join(artifacts, 'ui-check-interactive.png') });
  step('saved .artifacts/ui-check-interactive.png');
  check('the terminal shows the greeting built from both typed lines', /HOST-ASK got 'Ada' and 'Lovelace'/.test(text), JSON.stringify(text.slice(-400)));
  check('the program has a TTY (isatty)', /HOST-ASK isatty True/.test(text), JSON.stringify(text.slice(0, 400)));
  check('the terminal says stdout and stderr are merged', /stdout and stderr are merged/.test(text), JSON.stringify(text.slice(0, 400)));
  const sizes = [/size (\d+x\d+)/.exec(text)?.[1], /size now (\d+x\d+)/.exec(text)?.[1]];
  check('a resize of the terminal reaches the program\'s TTY (its size before and after differ)', !!sizes[0] && !!sizes[1] && sizes[0] !== sizes[1], JSON.stringify(sizes));
  const lastLine = text.split('\n').map((l) => l.trim()).filter(Boolean).pop() ?? '';
  check('the run\'s result is the last line of the terminal', /^■ exited with code 0 · \d+ ms$/.test(lastLine), JSON.stringify(text.slice(-300)));
  if (linkFile) await linkNameChecks(page, report, linkFile);
}

/**
 * A terminal named after a file whose name is a markdown command link: the tab label renders
 * codicons and the tab's hover renders the name as markdown (VS Code's `getInstanceHoverInfo`:
 * `new MarkdownString(instance.title …)`), so the name must reach neither as a link.
 */
async function linkNameChecks(page: Page, report: CheckReport, linkFile: { query: string; name: string }): Promise<void> {
  const { check, step } = report;
  await quickPick(page, 'Control+P', linkFile.query, linkFile.query, 'Enter');
  await page.locator('.tabs-container .tab.active', { hasText: linkFile.query }).waitFor({ state: 'visible', timeout: 15_000 });
  await quickPick(page, 'F1', INTERACTIVE_TITLE, INTERACTIVE_TITLE, 'Enter');
  const text = await waitForTerminal(page, /HOST-LINKNAME-START/, 30_000);
  check('the link-named file runs in an interactive terminal', /HOST-LINKNAME-START/.test(text), JSON.stringify(text.slice(-300)));
  const entry = page.locator('.part.panel .terminal-tabs-entry', { hasText: 'Repair the Docker runtime' }).first();
  let label = '';
  let anchors: { href: string; text: string }[] = [];
  let hoverText = '';
  try {
    await entry.waitFor({ state: 'visible', timeout: 10_000 });
    label = clean(await entry.innerText()).trim();
    await entry.hover({ timeout: 5_000 });
    const hover = page.locator('.workbench-hover, .monaco-hover').filter({ hasText: /Repair the Docker runtime/ }).first();
    await hover.waitFor({ state: 'visible', timeout: 5_000 });
    hoverText = clean(await hover.innerText()).trim();
    anchors = await hover.locator('a').evaluateAll((els) => els.map((e) => ({ href: e.getAttribute('href') ?? e.getAttribute('data-href') ?? '', text: (e.textContent ?? '').trim() })));
  } catch (err) {
    step(`terminal tab hover: ${(err as Error).message.split('\n')[0]}`);
  }
  await page.screenshot({ path: join(artifacts, 'ui-check-interactive-linkname.png') });
  step(`terminal tab "${label}", hover ${JSON.stringify(hoverText)}`);
  check('the terminal tab shows the link-named file\'s name as text', /Repair the Docker runtime\] \(command:/.test(label), JSON.stringify(label));
  // Without plainText the hover shows "Repair the Docker runtime linkname.py": markdown rendered (measured).
  check('the terminal tab\'s hover shows the name as written, not rendered as markdown', /Repair the Docker runtime\] \(command:/.test(hoverText), JSON.stringify(hoverText));
  const links = anchors.filter((a) => /^\s*(command|file|https?):/i.test(a.href) || /Repair the Docker runtime/.test(a.text));
  check('the terminal tab\'s hover renders no link from the file name', links.length === 0, JSON.stringify(links));
  await page.mouse.move(700, 300);
  // The run (5 s) ends before the next check starts one: a run in flight would tag the next run's lines.
  const ended = await waitForTerminal(page, /HOST-LINKNAME-DONE[\s\S]*■ exited/, 30_000);
  check('the link-named interactive run ends', /■ exited with code 0/.test(ended), JSON.stringify(ended.slice(-200)));
}
