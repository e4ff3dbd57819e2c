/** The headless Chromium client of a host run, launched through playwright-core (./tools.ts `chromiumPath`). */
import type { Browser, Page } from 'playwright-core';
import { isNoise, verbose } from './logFilter';
import { chromiumPath } from './tools';

/** Chromium flags for a headless client on a machine without GPU, network or desktop session. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-features=Translate,MediaRouter,OptimizationHints',
  '--password-store=basic',
];

/** Launches headless Chromium (30 s limit) with the hermetic environment. Throws with the fix when playwright-core is missing. */
export async function launchChromium(env: NodeJS.ProcessEnv): Promise<Browser> {
  // Loaded lazily so that a missing devDependency reports itself here, with the fix.
  let chromium: typeof import('playwright-core').chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (err) {
    throw new Error(`playwright-core could not be loaded (${(err as Error).message}); run "npm ci" first.`);
  }
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_ARGS,
    env,
    timeout: 30_000,
  });
}

/** Prints the page's console and errors when verbose (they are mostly offline noise). */
export function tracePage(page: Page): void {
  page.on('pageerror', (err) => {
    if (verbose && !isNoise(String(err))) process.stderr.write(`[page error] ${String(err)}\n`);
  });
  page.on('console', (msg) => {
    if (verbose && !isNoise(msg.text())) process.stderr.write(`[browser ${msg.type()}] ${msg.text()}\n`);
  });
}
