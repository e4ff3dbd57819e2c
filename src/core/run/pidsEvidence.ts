/**
 * Evidence that the pids limit (`--pids-limit`, profile key `limits.pids`) refused a fork or a
 * thread during a run, read from the kernel and never from program output: the container's pids
 * cgroup counts refused forks in `pids.events` ("max N", cgroup v1 and v2; kernel
 * Documentation/admin-guide/cgroup-v2.rst, "PID"). The cgroup disappears with the container's
 * last process and the file raises no inotify event on cgroup v1, so it is polled while the
 * container lives. Only when the container's init process is a process of this host (hostPid.ts:
 * its `/proc/<pid>/cgroup` names the container; a remote engine, or one in a pid namespace of its
 * own, reports pids of its namespace); elsewhere, and whenever a path cannot be read, there is
 * simply no evidence.
 *
 * The reads are synchronous: these are kernel files (procfs, cgroupfs) that never wait on a disk,
 * read in microseconds, while an async `readFile` takes four thread-pool round trips each. Polled
 * every 2 ms that way, the watch cost a warm run 40–120 ms before the code was sent and slowed the
 * engine's teardown beside it on a 2-core machine (`npm run bench` warm python 0.41–0.46 → 0.30–0.34
 * of raw cold, the same as with no watch at all, measured at load 5).
 */
import { readFileSync } from 'node:fs';
import type { DockerOptions } from '../engine/contracts';
import { containerHostPid } from '../engine/hostPid';

/** How often `pids.events` is read while the program runs, ms. */
const POLL_MS = 25;
/**
 * The first {@link FAST_WINDOW_MS} of a run are read every {@link FAST_POLL_MS}: a program that
 * hits the limit and exits at once takes its cgroup with it within tens of ms (measured here:
 * 20–50 ms from the refused fork to ENOENT). Measured on this machine under load, a snippet that
 * forks past `limits.pids` and exits: 25 ms polls after the program started named it in 1 of 12
 * runs, 5 ms polls from before the code was sent in 8 of 12, 2 ms in 24 of 24 (the window is kept short: those reads cost CPU beside the program).
 */
const FAST_POLL_MS = 2;
const FAST_WINDOW_MS = 500;

/** The `max` count of a `pids.events` text, or undefined when malformed. */
export function parsePidsEvents(text: string): number | undefined {
  const m = /^max (\d+)$/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * The host path of the pids cgroup's `pids.events` for a process, from its `/proc/<pid>/cgroup`
 * text (cgroup(7)): the `pids` controller line on v1, the unified `0::` line on v2.
 * @param unified true when /sys/fs/cgroup is the v2 hierarchy
 */
export function pidsEventsPath(procCgroup: string, unified: boolean): string | undefined {
  for (const line of procCgroup.split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(\/.*)$/.exec(line.trim()) ?? [];
    if (path === undefined || path.includes('..')) continue;
    if (unified && controllers === '') return `/sys/fs/cgroup${path === '/' ? '' : path}/pids.events`;
    if (!unified && controllers!.split(',').includes('pids')) return `/sys/fs/cgroup/pids${path === '/' ? '' : path}/pids.events`;
  }
  return undefined;
}

/** Watches one running container's pids cgroup for refused forks. */
export class PidsWatch {
  private refused = 0;
  private timer: NodeJS.Timeout | undefined;
  private path: string | undefined;
  private stopped = false;

  /** Refused forks or threads counted so far (0 when no evidence could be read). */
  get refusedForks(): number {
    return this.refused;
  }

  /**
   * Finds the container's cgroup and starts polling; never throws (no evidence on failure). Call
   * it before the code is sent (the launcher waits): the first read is then done before the
   * program exists, so a program that exits at once is still watched.
   * @param name the container, which must be running
   * @param knownPid its init process as a pid of this host, checked (admit.ts, hostPid.ts), when
   *   already known; else 0 (it is looked up and checked here)
   */
  async start(opts: DockerOptions, name: string, knownPid = 0): Promise<void> {
    try {
      const pid = knownPid || (await containerHostPid(opts, name));
      if (!pid || this.stopped) return;
      const procCgroup = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
      const unified = readable('/sys/fs/cgroup/cgroup.controllers') !== undefined;
      this.path = pidsEventsPath(procCgroup, unified);
    } catch {
      return;
    }
    if (!this.path || this.stopped) return;
    this.read();
    const started = Date.now();
    const next = () => (Date.now() - started < FAST_WINDOW_MS ? FAST_POLL_MS : POLL_MS);
    const tick = () => {
      if (this.stopped) return;
      this.read();
      this.timer = setTimeout(tick, next()).unref();
    };
    this.timer = setTimeout(tick, next()).unref();
  }

  /** Reads once more (the cgroup may be gone already) and stops polling. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.read();
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private read(): void {
    if (!this.path) return;
    const count = parsePidsEvents(readable(this.path) ?? '');
    if (count !== undefined && count > this.refused) this.refused = count;
  }
}

/** A small kernel file's text, or undefined when it cannot be read (gone, no such controller). */
function readable(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
