/**
 * A notebook with a plot in the sandbox kernel, through the browser (issue 24), a step of
 * uiCheck.ts: opens plot.ipynb (written into the run's workspace), picks the "Sandbox (pynb)"
 * kernel in VS Code's kernel picker (a user profile on the notebook test image, with Debian's
 * matplotlib: {@link NOTEBOOK_USER_SETTINGS}), runs the cell and waits for its PNG in the output
 * webview; hides the panel and saves .artifacts/notebook-plot.png with the plot, the kernel's
 * name in the notebook toolbar and the sandbox status bar item in view.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { NOTEBOOK_IMAGE } from '../../support/images';
import { artifacts, clean, quickPick, type CheckReport } from './harness';

const PROFILE = 'pynb';
const KERNEL = `Sandbox (${PROFILE})`;
const NOTEBOOK = 'plot.ipynb';

/** User settings the check needs: the notebook profile. */
export const NOTEBOOK_USER_SETTINGS: Readonly<Record<string, unknown>> = {
  'sandboxRunner.profiles': { [PROFILE]: { image: NOTEBOOK_IMAGE, command: ['python3', '${file}'], languages: ['python'] } },
};

/** Writes plot.ipynb (one cell drawing a line plot) into `workspace`. */
export function writePlotNotebook(workspace: string): void {
  const source = ['import matplotlib.pyplot as plt\n', 'plt.plot([1, 3, 2, 4], marker="o")\n', 'plt.title("Drawn in a sandbox, network off")\n', 'print("NB-UI-PLOT")'];
  const nb = { cells: [{ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source }], metadata: { language_info: { name: 'python' } }, nbformat: 4, nbformat_minor: 5 };
  writeFileSync(join(workspace, NOTEBOOK), JSON.stringify(nb, null, 1));
}

/** Types `label` into the open quick pick and accepts its row with Enter (a click may land on a row's hover). */
async function acceptRow(page: Page, label: string | RegExp, query: string): Promise<void> {
  await page.locator('.quick-input-widget input.input').fill(query);
  await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: label }).first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.press('Enter');
}

/** Picks the sandbox kernel in the kernel picker (the notebook toolbar's "Select Kernel"), through "Select Another Kernel…" and the extension's group when the picker shows them first. */
async function pickKernel(page: Page): Promise<void> {
  await page.locator('.notebook-toolbar-container').getByText('Select Kernel').first().click({ timeout: 15_000 });
  for (let step = 0; step < 3; step++) {
    const rows = page.locator('.quick-input-widget .monaco-list-row');
    await rows.first().waitFor({ state: 'visible', timeout: 15_000 });
    if (await rows.filter({ hasText: KERNEL }).first().isVisible()) {
      await acceptRow(page, KERNEL, KERNEL);
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
      return;
    }
    const another = rows.filter({ hasText: /Select Another Kernel|Sandbox Runner/ }).first();
    if (!(await another.isVisible())) break;
    const text = clean(await another.innerText()).split('\n')[0]!.trim();
    await acceptRow(page, text, text);
    await page.waitForTimeout(500);
  }
  throw new Error(`the kernel picker did not list "${KERNEL}": ${clean(await page.locator('.quick-input-widget').innerText().catch(() => ''))}`);
}

/** The output webview's frame that shows an image, and the image's size (naturalWidth × naturalHeight). */
async function plotFrame(page: Page): Promise<{ frame: Frame; width: number; height: number } | undefined> {
  for (const frame of page.frames()) {
    const img = frame.locator('.output img, .output_container img, img[src^="blob:"]').first();
    if (!(await img.count().catch(() => 0))) continue;
    const size = await img.evaluate((e) => ({ width: (e as unknown as { naturalWidth: number }).naturalWidth, height: (e as unknown as { naturalHeight: number }).naturalHeight })).catch(() => ({ width: 0, height: 0 }));
    if (size.width > 0 && (await img.isVisible().catch(() => false))) return { frame, ...size };
  }
  return undefined;
}

/** Runs the notebook checks on `page`; reports through `report`. */
export async function notebookChecks(page: Page, report: CheckReport): Promise<void> {
  const { check, step } = report;
  await quickPick(page, 'Control+P', NOTEBOOK, NOTEBOOK, 'Enter');
  await page.locator('.tabs-container .tab.active', { hasText: NOTEBOOK }).waitFor({ state: 'visible', timeout: 15_000 });
  await page.locator('.notebookOverlay .cell-list-container').first().waitFor({ state: 'visible', timeout: 30_000 });
  step(`opened ${NOTEBOOK}`);
  await pickKernel(page);
  step(`picked the "${KERNEL}" kernel`);
  await page.mouse.move(5, 300);
  await page.locator('.notebook-toolbar-container').getByText('Run All').first().click({ timeout: 15_000 });
  step('ran all cells');
  let plot: Awaited<ReturnType<typeof plotFrame>>;
  const end = Date.now() + 120_000;
  while (Date.now() < end && !(plot = await plotFrame(page))) await page.waitForTimeout(500);
  // The whole plot in view: no panel, no toasts (the last step of the check).
  await quickPick(page, 'F1', 'View: Hide Panel', /View: Hide Panel/, 'Enter').catch(() => page.keyboard.press('Escape'));
  await quickPick(page, 'F1', 'Notifications: Clear All Notifications', /Clear All Notifications/, 'Enter').catch(() => page.keyboard.press('Escape'));
  await page.mouse.move(5, 300);
  await page.waitForTimeout(1000);
  const toolbar = page.locator('.notebook-toolbar-container').filter({ hasText: 'Sandbox (' }).first();
  const label = clean(await toolbar.innerText().catch(() => '')).replace(/\s*\n\s*/g, ' | ');
  const kernelShown = await toolbar.isVisible().catch(() => false);
  const status = clean(await page.locator('#workbench\\.parts\\.statusbar').innerText().catch(() => '')).replace(/\s*\n\s*/g, ' | ');
  await page.screenshot({ path: join(artifacts, 'notebook-plot.png') });
  step('saved .artifacts/notebook-plot.png');
  check('the cell\'s matplotlib figure shows as an image in the output', plot !== undefined, plot ? `${plot.width}×${plot.height} px` : 'no visible image with a size in any output frame');
  check(`the notebook toolbar names the sandbox kernel ("${KERNEL}")`, kernelShown && label.includes(KERNEL), JSON.stringify(label));
  check('the status bar says the kernel is sandboxed with the network off', /Sandboxed kernel: pynb · network off/.test(status), JSON.stringify(status));
}
