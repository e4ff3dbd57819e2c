/**
 * Terminal size changes of a running TTY run (issue 11), forwarded to the engine. The docker CLI
 * has no resize command, and its own attach resizes only when its stdout is a terminal (here it is
 * a pipe), so the runner asks the engine itself:
 * - Docker: Engine API `POST /containers/{name}/resize?h=ROWS&w=COLUMNS` (200 when done), over the
 *   control client of engine/control.ts (a socket, or `docker system dial-stdio` for other endpoints).
 * - Podman (no API socket here, no resize command): the container's conmon control FIFO,
 *   `<StaticDir>/ctl`, with the line `1 ROWS COLUMNS\n`, as Podman's own attach does
 *   (libpod `AttachResize`; measured with Podman 4.3: `stty size` in the container then says the
 *   new size). Only a local Podman's containers are run at all (admit.ts), so the FIFO is on this
 *   host; it is opened non-blocking, so a conmon that is gone never hangs the runner.
 * The first size is not sent here: it travels in the code frame and is set before the program
 * starts (launcher.ts `TTY_LAUNCHER`), so the program never sees a 0×0 terminal.
 */
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { DockerOptions } from '../engine/contracts';
import { control, segment } from '../engine/control';
import { engineKind } from '../engine/engineKind';
import { inspectContainer } from '../engine/inspect';
import type { TtySize } from '../interactive';
import { ttySide } from './launcher';

/**
 * Sets a running container's terminal size.
 * @returns true when the engine applied it; false when it could not be sent (no Engine API for a
 *   Docker reached only through its CLI, the container gone, an engine error). Never throws.
 */
export async function resizeTty(opts: DockerOptions, name: string, size: TtySize): Promise<boolean> {
  const rows = ttySide(size.rows);
  const columns = ttySide(size.columns);
  try {
    return await control(
      opts,
      async (c, t) => (await c.request('POST', `/containers/${segment(name)}/resize?h=${rows}&w=${columns}`, t)).status === 200,
      async () => (await engineKind(opts)) === 'podman' && (await conmonResize(opts, name, rows, columns)),
    );
  } catch {
    return false;
  }
}

/** Podman: writes the resize line to the container's conmon control FIFO (see the file comment). */
async function conmonResize(opts: DockerOptions, name: string, rows: number, columns: number): Promise<boolean> {
  const dir = (await inspectContainer(opts, name) as { StaticDir?: unknown }).StaticDir;
  if (typeof dir !== 'string' || !isAbsolute(dir) || dir.includes('\0')) return false;
  const ctl = join(dir, 'ctl');
  if (!(await lstat(ctl)).isFIFO()) return false;
  const fifo = await open(ctl, constants.O_WRONLY | constants.O_NONBLOCK);
  try {
    await fifo.write(`1 ${rows} ${columns}\n`);
    return true;
  } finally {
    await fifo.close();
  }
}

/**
 * Forwards a stream of sizes to {@link resizeTty} one call at a time: while a call is in flight
 * only the newest size waits (a terminal being dragged sends many), so the engine ends at the
 * last size given.
 */
export class ResizeForwarder {
  private next: TtySize | undefined;
  private busy = false;
  private closed = false;

  constructor(private readonly opts: DockerOptions, private readonly name: string) {}

  /** Asks for `size` (ignored once closed). */
  push(size: TtySize): void {
    if (this.closed) return;
    this.next = size;
    if (!this.busy) void this.drain();
  }

  /** No further sizes are sent (the run ended). */
  close(): void {
    this.closed = true;
    this.next = undefined;
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (this.next && !this.closed) {
      const size = this.next;
      this.next = undefined;
      await resizeTty(this.opts, this.name, size);
    }
    this.busy = false;
  }
}
