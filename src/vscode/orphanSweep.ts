/**
 * The orphan sweep as a service: containers of dead windows (crashed extension hosts, killed
 * CLIs) are removed soon after activation, off the activation path, then periodically. Unknown
 * owner liveness is never "dead" (core reaper.ts).
 */
import type * as vscode from 'vscode';
import { engine } from './lazy';
import { dockerOptions } from './settings';

/** Delay of the first sweep after activation, ms. */
export const FIRST_SWEEP_MS = 2000;
/** How often the orphan sweep runs while the extension is active, ms. */
export const REAP_INTERVAL_MS = 10 * 60_000;

export class OrphanSweep implements vscode.Disposable {
  private readonly first: NodeJS.Timeout;
  private readonly every: NodeJS.Timeout;

  /** Schedules the sweeps (first after {@link FIRST_SWEEP_MS}, then every {@link REAP_INTERVAL_MS}). */
  constructor(private readonly log: vscode.LogOutputChannel) {
    this.first = setTimeout(() => void this.sweep(), FIRST_SWEEP_MS);
    this.every = setInterval(() => void this.sweep(), REAP_INTERVAL_MS);
  }

  /** One sweep; never rejects (a failure is logged at debug level). */
  async sweep(): Promise<void> {
    try {
      const opts = dockerOptions();
      // Which engine runs the code, for the next run's header: asked here, off the activation and run paths.
      void engine().engineIdentity(opts);
      const report = await engine().reapOrphans({ docker: opts });
      if (report.removed.length > 0) this.log.info(`orphan sweep removed ${report.removed.length} container(s): ${report.removed.join(', ')}`);
    } catch (e) {
      this.log.debug(`orphan sweep skipped: ${String(e)}`);
    }
  }

  dispose(): void {
    clearTimeout(this.first);
    clearInterval(this.every);
  }
}
