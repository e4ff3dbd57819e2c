/**
 * One stop controller per run: interrupt (cancel: SIGINT), timeout (SIGTERM), the output bound and
 * a forced cancel all end here. Cancel and timeout interrupt the program's process group first, as
 * a terminal would (the program may clean up), then remove the container after
 * `limits.interruptGraceSeconds`; an output overflow, a forced cancel, a program not running yet,
 * or a zero grace remove at once. Removal (`docker rm -f -v`, removals.ts) ends every process in
 * the container; the attached CLI then ends by itself, or is killed after a grace.
 *
 * The wall-clock limit (`limits.timeoutSeconds`) is armed by {@link StopController.started}, when
 * the code was sent: it times the program (its compile step included), not the engine creating
 * and starting the container, which the launcher's `waiting` marker bounds on its own (admit.ts,
 * the control timeout). A busy engine's slow start no longer eats a user's limit (as in judge0
 * and piston, which time the program only).
 */
import { signalContainer } from '../engine/containerOps';
import type { DockerOptions } from '../engine/contracts';
import type { ContainerLease } from '../container/lease';
import { scheduleRemoval } from '../container/removals';

/** Why a run was stopped. */
export type StopReason = 'timed-out' | 'cancelled' | 'output-limit';

/** Grace for the attached CLI to exit after its container was removed, ms. */
const ATTACH_EXIT_GRACE_MS = 5000;

export class StopController {
  /** Set once the run is stopped. */
  reason: StopReason | undefined;
  /** True once removal was asked for by the controller (the program did not end by itself). */
  removing = false;
  /** True once the code was sent (the program may be running): see {@link StopController.started}. */
  running = false;
  /** The removal started by the controller, when it started one. */
  removal: Promise<void> | undefined;
  private ended = false;
  private lease: ContainerLease | undefined;
  private graceTimer: NodeJS.Timeout | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  private limitTimer: NodeJS.Timeout | undefined;

  /**
   * @param graceMs the interrupt grace (`limits.interruptGraceSeconds` in ms)
   * @param limitMs the wall-clock limit (`limits.timeoutSeconds` in ms), armed by {@link started}; none when omitted
   */
  constructor(private readonly opts: DockerOptions, private readonly graceMs: number, private readonly limitMs?: number) {}

  /**
   * The code was sent: the program may be running, and its wall-clock limit starts now (once per
   * run: a warm lease that failed before its program started and the cold retry share one clock).
   */
  started(): void {
    this.running = true;
    if (this.limitTimer || this.ended || this.limitMs === undefined) return;
    this.limitTimer = setTimeout(() => this.stop('timed-out'), this.limitMs);
  }

  /** The container the run uses from now on; a stop that came before it removes it at once. */
  bind(lease: ContainerLease | undefined): void {
    this.lease = lease;
    this.running = false;
    this.removing = false;
    this.removal = undefined;
    if (lease && this.reason && !this.ended) this.removeNow();
  }

  /** Stops the run for `reason` (the first reason wins; nothing once the program ended). */
  stop(reason: StopReason): void {
    if (this.reason || this.ended) return;
    this.reason = reason;
    const graceMs = reason === 'output-limit' || !this.running ? 0 : this.graceMs;
    if (graceMs === 0 || !this.lease) return this.removeNow();
    const name = this.lease.name;
    this.graceTimer = setTimeout(() => this.removeNow(), graceMs);
    void signalContainer(this.opts, name, reason === 'timed-out' ? 'SIGTERM' : 'SIGINT').then((delivered) => delivered || this.removeNow());
  }

  /** A forced cancel (second Ctrl-C): no interrupt, straight to removal. */
  force(): void {
    if (this.ended) return;
    this.reason ??= 'cancelled';
    this.removeNow();
  }

  /** Removes the container now (once the engine call that creates it has got that far). */
  removeNow(): void {
    clearTimeout(this.graceTimer);
    const lease = this.lease;
    if (this.removing || !lease) return;
    this.removing = true;
    // Still starting: the removal waits until the container exists (launcher waiting) or the CLI
    // ended. The CLI is not killed here: the engine would still create a container for a create
    // call already sent, after the removal (a hung engine is ended by the control timeout, admit.ts).
    const created = Promise.race([lease.waiting, lease.exit]);
    this.removal = scheduleRemoval(this.opts, lease.name, created);
    void this.removal.catch(() => undefined).finally(() => {
      if (!lease.ended) this.killTimer = setTimeout(() => lease.kill('SIGKILL'), ATTACH_EXIT_GRACE_MS);
    });
  }

  /** The program's exit is known: no later stop applies; timers end. */
  end(): void {
    this.ended = true;
    clearTimeout(this.limitTimer);
    clearTimeout(this.graceTimer);
    clearTimeout(this.killTimer);
  }
}
