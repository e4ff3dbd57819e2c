/**
 * One hermetic run of code-server and a headless Chromium page, as the shim and the UI checks use
 * it: the run's folders and environment first (this process's TMPDIR moved into them, user
 * settings seeded), then the server, then the browser and its page; `close()` undoes all of it.
 * Built on ./runDirs.ts, ./hermeticEnv.ts, ./userSettings.ts, ./codeServer.ts and ./chromium.ts.
 */
import type { Browser, Page } from 'playwright-core';
import { launchChromium, tracePage } from './chromium';
import { startCodeServer, type CodeServer } from './codeServer';
import { hermeticEnv } from './hermeticEnv';
import { makeRunDirs, removeRunDirs, type RunDirs } from './runDirs';
import { seedUserSettings } from './userSettings';

export class HostSession {
  readonly dirs: RunDirs;
  readonly env: NodeJS.ProcessEnv;
  /** Set once started (also when a later step failed), for log tails and clean-up. */
  server: CodeServer | undefined;
  browser: Browser | undefined;
  page: Page | undefined;
  private closing: Promise<void> | undefined;

  /**
   * Creates the run's folders (`prefix`-… under TMPDIR) and its environment, and seeds the user
   * settings (`trust`: Workspace Trust on; `userSettings`: more user settings, e.g. the
   * extension's application-scoped ones, which workspace settings cannot set).
   */
  constructor(
    prefix: string,
    private readonly trust: boolean,
    userSettings: Record<string, unknown> = {},
  ) {
    this.dirs = makeRunDirs(prefix);
    this.env = hermeticEnv(this.dirs);
    // This process's own temp files (playwright's, npx's) go into the run folder too.
    process.env.TMPDIR = this.dirs.tmp;
    seedUserSettings(this.dirs, { trust, extra: userSettings });
  }

  /** Starts code-server, or rejects with `hard` (the run's deadline) first. */
  async startServer(hard: Promise<never>): Promise<CodeServer> {
    this.server = await Promise.race([startCodeServer({ dirs: this.dirs, env: this.env, trust: this.trust }), hard]);
    return this.server;
  }

  /** Launches Chromium (or rejects with `hard` first) and opens a traced page of `viewport`'s size. */
  async openPage(hard: Promise<never>, viewport: { width: number; height: number }): Promise<{ browser: Browser; page: Page }> {
    const browser = (this.browser = await Promise.race([launchChromium(this.env), hard]));
    const page = (this.page = await browser.newPage({ viewport }));
    tracePage(page);
    return { browser, page };
  }

  /** Closes the browser, stops the server and removes the run's folders; once, however often called. */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      await this.browser?.close().catch(() => {});
      await this.server?.stop();
      removeRunDirs(this.dirs);
    })());
  }
}
