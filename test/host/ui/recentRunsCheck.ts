/**
 * UI check of the profiles view's Recent Runs section (issue 12), in the packaged extension:
 * after the check's first run (sleepy.py, exit 0) the Sandbox Runner view shows "Recent Runs"
 * with that run's row (file, profile, outcome, duration) and its actions, and the view title has
 * the "Re-run Last Sandbox Run" button; screenshot .artifacts/ui-check-recent-runs.png. Also
 * checks that the .vsix ships the CLI bundle (copied command lines call it by its path) and the
 * lazily loaded re-run bundle.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { artifacts, clean, repo, type CheckReport } from './harness';

/** The files of the .vsix (`unzip -l`), or the error. */
function vsixFiles(vsix: string): string[] | string {
  const r = spawnSync('unzip', ['-Z1', vsix], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout.split('\n').filter(Boolean) : `unzip -Z1 failed: ${r.stderr || r.error?.message}`;
}

/**
 * Checks that the .vsix ships every bundle the build wrote to dist/ (the CLI's and the lazy
 * bundles the extension requires on first use: a missing one breaks only that feature).
 */
export function vsixShipsBundles(report: CheckReport, vsix: string): void {
  const files = vsixFiles(vsix);
  const list = typeof files === 'string' ? [] : files;
  const built = readdirSync(join(repo, 'dist')).filter((f) => f.endsWith('.js'));
  report.check('the build wrote the lazy bundles (dist/deps.js, dist/agent.js among them)', ['deps.js', 'agent.js', 'rerun.js', 'cli.js'].every((f) => built.includes(f)), built.join(', '));
  for (const f of built.map((b) => `extension/dist/${b}`)) {
    report.check(`the .vsix ships ${f.slice('extension/'.length)}`, list.includes(f), typeof files === 'string' ? files : list.filter((x) => x.startsWith('extension/dist/')).join(', '));
  }
}

/** Opens the Sandbox Runner view and checks its Recent Runs section lists `file`'s run with exit 0. */
export async function recentRunsChecks(page: Page, report: CheckReport, file: string): Promise<void> {
  const { check, step } = report;
  const entry = page.locator('.part.activitybar .action-item .action-label[aria-label^="Sandbox Runner"]').first();
  await entry.waitFor({ state: 'visible', timeout: 30_000 });
  await entry.click();
  const view = page.locator('[id="workbench.view.extension.sandboxRunner"]');
  await view.waitFor({ state: 'visible', timeout: 15_000 });
  const section = view.locator('.monaco-list-row', { hasText: 'Recent Runs' }).first();
  const row = view.locator('.monaco-list-row', { hasText: file }).filter({ hasText: /exit 0/ }).first();
  const sectionShown = await section.waitFor({ state: 'visible', timeout: 15_000 }).then(() => true, () => false);
  const rowShown = await row.waitFor({ state: 'visible', timeout: 15_000 }).then(() => true, () => false);
  const rowText = rowShown ? clean(await row.innerText()).replace(/\s*\n\s*/g, ' ') : '';
  if (rowShown) await row.hover();
  await page.screenshot({ path: join(artifacts, 'ui-check-recent-runs.png') });
  step('saved .artifacts/ui-check-recent-runs.png');
  const rows = clean(await view.locator('.monaco-list-row').allInnerTexts().then((t) => t.join(' | '))).replace(/\s*\n\s*/g, ' ');
  check('the Sandbox Runner view shows the Recent Runs section', sectionShown && (await section.isVisible()), rows);
  check(`Recent Runs lists the ${file} run with profile, outcome and duration`, rowShown && /python · exit 0 · [\d.]+ (ms|s)/.test(rowText), rowText || rows);
  const actions = rowShown ? await row.locator('.actions .action-label').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? '')) : [];
  check('the run row offers Re-run and Show Output inline', actions.some((a) => /Re-run/.test(a)) && actions.some((a) => /Show Output/.test(a)), JSON.stringify(actions));
  const title = await view.locator('.pane-header .actions .action-label').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
  check('the view title has the "Re-run Last Sandbox Run" button', title.some((a) => /Re-run Last Sandbox Run/.test(a)), JSON.stringify(title));
  await page.mouse.move(700, 300);
  // The later checks start from the layout they were written for: the Explorer in the sidebar.
  await page.locator('.part.activitybar .action-item .action-label[aria-label^="Explorer"]').first().click().catch(() => undefined);
  await page.locator('.explorer-folders-view').first().waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
}
