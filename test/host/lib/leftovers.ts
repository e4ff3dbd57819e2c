/**
 * What the extension hosts of a code-server left behind: every pid of the server's process group is
 * sampled while it runs (extension hosts come and go), and at the end the harness can wait for the
 * extension hosts to end by themselves and record the containers their processes still own.
 */
import { writeFileSync } from 'node:fs';
import { sleep } from '../../support/deadlines';
import { containersOwnedBy, type OwnedContainer } from './ownedContainers';
import { groupPids, isAlive, isExtensionHost } from './processes';

/**
 * What `stop()` found before it killed anything, when asked to record it (see
 * codeServer.ts `startCodeServer`'s `leftoversFile`): whether the extension hosts ended by
 * themselves (VS Code terminates them when the extension tests end, after `deactivate`), and the
 * extension's containers still owned by any process of the server at that point.
 */
export interface LeftoversRecord {
  /** Every extension host pid seen during the run. */
  readonly extensionHostPids: readonly number[];
  /** Extension hosts still alive after the wait (then killed). */
  readonly stillRunning: readonly number[];
  readonly waitedMs: number;
  /** Containers owned by the server's processes, before the harness removed any. */
  readonly containers: readonly OwnedContainer[];
}

/** The processes seen in one process group, sampled every second until {@link stop}. */
export class GroupSampler {
  /** Every pid seen in the group, to find the containers they own. */
  readonly seen = new Set<number>();
  /** The extension hosts among {@link seen}. */
  readonly extensionHosts = new Set<number>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pgid: number) {
    this.timer = setInterval(() => this.sample(), 1000);
    this.timer.unref();
  }

  /** Adds the group's current members to {@link seen} (and extension hosts to {@link extensionHosts}). */
  sample(): void {
    for (const p of groupPids(this.pgid)) {
      if (this.seen.has(p)) continue;
      this.seen.add(p);
      if (isExtensionHost(p)) this.extensionHosts.add(p);
    }
  }

  /** Stops the periodic sampling after a last sample. */
  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  /**
   * Waits up to `limitMs` for the extension hosts to end by themselves (sampling every 100 ms), then
   * writes a {@link LeftoversRecord} (JSON) to `file`. Throws when the file cannot be written.
   */
  async recordLeftovers(file: string, limitMs: number): Promise<void> {
    const t = Date.now();
    while ([...this.extensionHosts].some(isAlive) && Date.now() - t < limitMs) {
      await sleep(100);
      this.sample();
    }
    const record: LeftoversRecord = {
      extensionHostPids: [...this.extensionHosts],
      stillRunning: [...this.extensionHosts].filter(isAlive),
      waitedMs: Date.now() - t,
      containers: await containersOwnedBy(this.seen),
    };
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  }
}
