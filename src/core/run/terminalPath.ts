/**
 * The terminal path (issue 11): an interactive run with a real terminal, cold only. Its container
 * is created with `-t -i` and started attached (lease.ts `openTtyLease`); terminal sizes go into
 * the code frame until the program starts and to the engine afterwards (ttyResize.ts).
 */
import { randomBytes } from 'node:crypto';
import { buildTtyCreateArgv, DETACH_KEYS_LENGTH, detachKeys } from '../container/argv';
import { createContainer } from '../container/create';
import { SandboxError } from '../errors';
import { openTtyLease } from '../container/lease';
import { scheduleRemoval } from '../container/removals';
import type { RunResult } from './result';
import type { InteractiveIo, TtySize } from '../interactive';
import { ResizeForwarder } from '../container/ttyResize';
import { RunSession } from './session';

/**
 * A terminal run (issue 11), cold only (warm containers have no terminal): `docker create -t -i`
 * with the floor (argv.ts `buildTtyCreateArgv`; the create's warnings and the image's VOLUMEs
 * checked as on the direct path, create.ts), then `docker start -a -i` (lease.ts `openTtyLease`)
 * and the same admission, frame and exit handling as a cold run (`RunSession.onLease`). Sizes the caller
 * reports before the program started go into the frame; later ones to the engine (ttyResize.ts),
 * the newest first-size difference at `ready`.
 * @throws SandboxError when the image has no `sh` or no `stty` (refused, nothing ran)
 */
export async function runTerminal(s: RunSession, io: InteractiveIo, size: TtySize): Promise<RunResult> {
  const pins = await s.pin();
  if (s.stopper.reason) return s.finish(s.stopper.reason, null);
  const argv = buildTtyCreateArgv(await s.containerSpec(pins.mounts));
  s.req.onArgv?.(argv);
  let exists = false;
  try {
    await createContainer(s.opts, argv, s.profile.image, (e) => (exists = e));
  } catch (e) {
    if (exists) void scheduleRemoval(s.opts, s.name).catch(() => undefined);
    throw e;
  }
  let latest = size;
  let sent: TtySize | undefined;
  let live = false;
  const resizer = new ResizeForwarder(s.opts, s.name);
  const lease = openTtyLease(s.opts, s.name, detachKeys(randomBytes(DETACH_KEYS_LENGTH), lastFrameByte(s.code, s.req.args ?? [])), () => (sent = latest));
  lease.afterReady(() => {
    live = true;
    if (sent !== latest) resizer.push(latest);
  });
  const unsubscribe = io.onResize?.((s) => {
    latest = s;
    if (live) resizer.push(s);
  });
  s.disposers.push(() => {
    unsubscribe?.();
    resizer.close();
  });
  const done = await s.onLease(lease, pins.mounts);
  if (typeof done === 'string') throw ttyNeedsShell(s.profile.image);
  return done;
}

/** The last byte of the code frame for `code` (its header's newline when the code is empty; the `end` line's newline with program arguments). */
function lastFrameByte(code: string | Uint8Array, args: readonly string[]): number {
  if (args.length > 0) return 0x0a;
  const bytes = typeof code === 'string' ? Buffer.from(code, 'utf8') : code;
  return bytes.length > 0 ? bytes[bytes.length - 1]! : 0x0a;
}

/** A terminal run refused: the image has no `sh` for the launcher. */
function ttyNeedsShell(image: string): SandboxError {
  return new SandboxError(
    'start-failed',
    `The image "${image}" has no "sh", which an interactive run with a terminal needs to receive the code, so nothing ran.`,
    'Use an image with a shell (sh) and stty for this profile, or run it without interactive input.',
  );
}
