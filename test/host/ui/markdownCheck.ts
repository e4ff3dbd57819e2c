/**
 * Markdown code-block lenses through the browser (issue 12), a step of uiCheck.ts: opens
 * notes.md of the fixture workspace, waits for the "Run in Sandbox" CodeLenses above its runnable
 * blocks (```python and the block-quoted ```sh; none above ```text and ```haskell), clicks the
 * python block's lens and reads the run's frame and output from the Output panel; saves
 * .artifacts/ui-check-markdown.png with the lenses and the output in view.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { artifacts, clean, outputPanelText, quickPick, type CheckReport } from './harness';

const LENS_TEXT = 'Run in Sandbox';

/** Runs the Markdown checks on `page`; reports through `report`. */
export async function markdownChecks(page: Page, report: CheckReport): Promise<void> {
  const { check, step } = report;
  await quickPick(page, 'Control+P', 'notes.md', 'notes.md', 'Enter');
  await page.locator('.tabs-container .tab.active', { hasText: 'notes.md' }).waitFor({ state: 'visible', timeout: 15_000 });
  step('opened notes.md');
  const lenses = page.locator('.editor-instance .monaco-editor .codelens-decoration', { hasText: LENS_TEXT });
  const shown = await lenses.first().waitFor({ state: 'visible', timeout: 20_000 }).then(() => true, () => false);
  // textContent: a lens scrolled out of the editor's viewport has no rendered (inner) text.
  const texts = shown ? (await lenses.evaluateAll((els) => els.map((e) => e.textContent ?? ''))).map((t) => clean(t).trim()) : [];
  check('notes.md shows a "Run in Sandbox" CodeLens above each runnable block (python, block-quoted sh), and no other', texts.length === 2 && texts.every((t) => t === LENS_TEXT), JSON.stringify(texts));

  let output = '';
  if (shown) {
    await lenses.first().locator('a').first().click();
    step('clicked the python block\'s lens');
    const end = Date.now() + 30_000;
    while (Date.now() < end) {
      output = await outputPanelText(page, '.part.panel .output-view .monaco-editor .view-lines, .part.panel .monaco-editor .view-lines');
      if (/MD-BLOCK-OUT/.test(output) && /exited with code 1/.test(output)) break;
      await page.waitForTimeout(250);
    }
  }
  check('the lens ran the block: the Output panel frames it as "python block of notes.md (lines 6-8)"', /python block of notes\.md \(lines 6-8\)/.test(output), JSON.stringify(output.slice(0, 300)));
  check('the block\'s output and its error (exit code 1) are in the Output panel', /MD-BLOCK-OUT/.test(output) && /exited with code 1/.test(output), JSON.stringify(output.slice(-300)));
  // The lenses stay on screen beside the output for the screenshot.
  const still = await lenses.first().isVisible().catch(() => false);
  await page.screenshot({ path: join(artifacts, 'ui-check-markdown.png') });
  step('saved .artifacts/ui-check-markdown.png');
  check('the lens text is on screen in the screenshot', still, `visible: ${still}`);
}
