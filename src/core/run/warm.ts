/**
 * Warm start: per profile, one container started ahead of time with exactly the cold path's
 * argv (`docker run -i`, the isolation floor, limits and owner labels, plus the warm label), its
 * launcher waiting for the code on stdin (launcher.ts), checked as a cold run is (admit.ts), and
 * its attached CLI process held open (a pre-attached lease, lease.ts). A run takes it (it leaves
 * the pool at once, so it never serves a second run) and only writes the code frame; its
 * replacement starts once the run's program exited, after {@link REFILL_AFTER_MS} of a longer run,
 * or at once when another run asks for it. Idle containers expire (the process is killed, the
 * container removed); a changed profile (image, limits, anything) discards its container.
 * Profiles whose launcher cannot run (no `sh` in the image as the profile leaves it) fall back
 * to the cold path, reported once through `onLog`.
 */
import { admitContainer } from '../admission/admit';
import { buildRunArgv } from '../container/argv';
import { engineSpec, initCouldNotExec } from '../engine/podman/engineSpec';
import { inspectState } from '../engine/inspect';
import type { DockerOptions } from '../engine/contracts';
import { ownerLabels, WARM_LABEL } from '../ownership/labels';
import { newContainerName } from '../layout';
import { openRunLease, type ContainerLease } from '../container/lease';
import { resolveMounts } from '../mounts/mounts';
import { usesPathVariables } from '../profiles/pathVariables';
import type { NamedProfile } from '../profiles/profileResolution';
import { scheduleRemoval } from '../container/removals';
import { snippetFileName } from '../source/snippet';

/**
 * The longest a replacement for a taken container waits for the run's exit (ms). A container
 * starting beside a short run delays that run's exit report: on the 2-CPU bench engine, warm
 * `echo ok` took 174 ms with the replacement started at once and 113 ms with it started after
 * the exit (the engine's floor, a raw pre-started container: 100–109 ms); python 263 → 145 ms.
 */
export const REFILL_AFTER_MS = 1000;

/** A started, checked, attached container waiting for its code. */
export interface WarmContainer {
  readonly lease: ContainerLease;
  /** The in-container snippet file name it will write (e.g. `main.py`). */
  readonly fileName: string;
}

/** Options of a {@link WarmPool}. */
export interface WarmPoolOptions {
  readonly docker?: DockerOptions;
  /** An unused warm container is removed after this many ms (default 5 minutes). */
  readonly idleMs?: number;
  /** The longest a taken container's replacement waits for the run's exit (ms; default {@link REFILL_AFTER_MS}). */
  readonly refillAfterMs?: number;
  /** Extra host paths no mount may touch. */
  readonly protectedPaths?: readonly string[];
  /** Diagnostics (fallbacks, failures); never the code. */
  readonly onLog?: (message: string) => void;
}

interface Slot {
  readonly key: string;
  readonly profileName: string;
  /** Resolves with the ready container, or undefined when preparation failed. */
  readonly ready: Promise<WarmContainer | undefined>;
  container?: WarmContainer;
  idleTimer?: NodeJS.Timeout;
  /** Ends a deferred preparation's wait (no-op once it started). */
  readonly startNow: () => void;
}

/** Identity of a profile for the pool: any change to it discards the warm container. */
export function warmKey({ name, profile }: NamedProfile): string {
  return JSON.stringify([name, profile]);
}

export class WarmPool {
  private readonly slots = new Map<string, Slot>();
  private readonly coldOnly = new Set<string>();
  private readonly pending = new Set<Promise<unknown>>();
  private disposed = false;
  private readonly idleMs: number;

  constructor(private readonly options: WarmPoolOptions = {}) {
    this.idleMs = options.idleMs ?? 5 * 60_000;
  }

  private log(message: string): void {
    this.options.onLog?.(message);
  }

  /**
   * Starts preparing a warm container for the profile unless one is ready or on its way. Never
   * for a profile whose mounts depend on the run (`workspace: "ro"`, `${workspaceFolder}` or
   * `${fileDirname}` sources, issue 12): a warm container starts before the file is known, so
   * those runs always take the cold path.
   * @param after the container starts once this settles, {@link REFILL_AFTER_MS} passed, or a
   *   run asks for it ({@link takeWhenReady}); omitted: at once
   */
  prepare(named: NamedProfile, after?: Promise<unknown>): void {
    const { name: profileName, profile } = named;
    if (this.disposed || this.coldOnly.has(JSON.stringify(profile))) return;
    if (profile.workspace !== 'none' || usesPathVariables(profile)) return;
    const key = warmKey(named);
    const existing = this.slots.get(profileName);
    if (existing?.key === key) return;
    if (existing) this.discard(existing);
    const gate = deferral(after, this.options.refillAfterMs ?? REFILL_AFTER_MS);
    const slot: Slot = { key, profileName, ready: Promise.resolve(undefined), startNow: gate.startNow };
    const ready = gate.started.then(() => (this.slots.get(profileName) === slot && !this.disposed ? this.create(named) : undefined)).then(
      (container) => {
        if (!container) return undefined;
        if (this.slots.get(profileName) !== slot || this.disposed) {
          this.track(this.removeLease(container.lease));
          return undefined;
        }
        slot.container = container;
        slot.idleTimer = setTimeout(() => {
          this.log(`warm container for profile ${profileName} expired after ${this.idleMs} ms idle`);
          this.discard(slot);
        }, this.idleMs);
        slot.idleTimer.unref?.();
        return container;
      },
      (e: unknown) => {
        this.log(`warm start for profile ${profileName} failed: ${String(e)}`);
        if (this.slots.get(profileName) === slot) this.slots.delete(profileName);
        return undefined;
      },
    );
    (slot as { ready: Promise<WarmContainer | undefined> }).ready = ready;
    this.slots.set(profileName, slot);
    this.track(ready);
  }

  /** Resolves once the profile's warm container is ready (true) or could not be made (false). */
  async ready(named: NamedProfile): Promise<boolean> {
    const slot = this.slots.get(named.name);
    if (!slot || slot.key !== warmKey(named)) return false;
    return (await slot.ready) !== undefined;
  }

  /**
   * Takes the profile's ready container for one run, or undefined (cold path) when none is ready
   * or its snippet file name differs. A replacement is prepared in the background.
   */
  take(named: NamedProfile, sourceFileName?: string): ContainerLease | undefined {
    const { name: profileName, profile } = named;
    const slot = this.slots.get(profileName);
    const key = warmKey(named);
    let taken: ContainerLease | undefined;
    if (slot?.container && slot.key === key && slot.container.fileName === snippetFileName(profile, sourceFileName)) {
      taken = slot.container.lease.ended ? undefined : slot.container.lease;
      clearTimeout(slot.idleTimer);
      this.slots.delete(profileName);
      if (!taken) this.track(this.removeLease(slot.container.lease));
    }
    this.prepare(named, taken?.exit);
    return taken;
  }

  /**
   * {@link take}, but when the profile's container is still being prepared (same profile, not yet
   * ready), waits for it first, or until `signal` aborts: a cold container started instead would
   * race the one being prepared for the engine, which already has a head start (an agent calling
   * again right after a call, a user running twice). A preparation that fails ends the wait (the
   * run goes cold); an aborted wait returns undefined.
   */
  async takeWhenReady(named: NamedProfile, sourceFileName?: string, signal?: AbortSignal): Promise<ContainerLease | undefined> {
    const slot = this.slots.get(named.name);
    if (slot && !slot.container && slot.key === warmKey(named) && !signal?.aborted) {
      slot.startNow();
      let onAbort = (): void => undefined;
      const aborted = new Promise<void>((resolve) => (onAbort = resolve));
      signal?.addEventListener('abort', onAbort, { once: true });
      await Promise.race([slot.ready, aborted]).finally(() => signal?.removeEventListener('abort', onAbort));
    }
    return signal?.aborted ? undefined : this.take(named, sourceFileName);
  }

  /**
   * Sends this profile to the cold path from now on (the launcher cannot run with it: no `sh` in
   * the image, or none the profile's env, workdir and mounts leave visible); logged once. Keyed by
   * the whole profile, so a profile that hides `sh` never turns warm start off for the image's others.
   */
  markColdOnly(named: NamedProfile, why: string): void {
    const key = JSON.stringify(named.profile);
    if (this.coldOnly.has(key)) return;
    this.coldOnly.add(key);
    this.log(`profile ${named.name} cannot run the warm launcher in image ${named.profile.image} (${why}); it uses the cold path`);
    const slot = this.slots.get(named.name);
    if (slot?.key === warmKey(named)) this.discard(slot);
  }

  /** Names of the warm containers ready and waiting (not taken by any run). */
  idleNames(): string[] {
    return [...this.slots.values()].flatMap((s) => (s.container ? [s.container.lease.name] : []));
  }

  /** Resolves once no preparation or removal is in flight. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Removes every warm container (deactivate); resolves when they are gone. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const slot of [...this.slots.values()]) this.discard(slot);
    await this.settled();
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private discard(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    if (this.slots.get(slot.profileName) === slot) this.slots.delete(slot.profileName);
    slot.startNow(); // a deferred preparation out of the pool creates nothing
    this.track(slot.ready.then((c) => (c ? this.removeLease(c.lease) : undefined)).catch(() => undefined));
  }

  /** Kills a lease's attached CLI and removes its container. */
  private async removeLease(lease: ContainerLease): Promise<void> {
    lease.kill('SIGKILL');
    await scheduleRemoval(this.options.docker ?? {}, lease.name, Promise.race([lease.waiting, lease.exit])).catch(() => undefined);
  }

  /**
   * Starts one warm container and admits it; undefined when this image cannot be warmed. The
   * pinned mount sources stay open until the container was checked (the engine mounted them).
   */
  private async create(named: NamedProfile): Promise<WarmContainer | undefined> {
    const { name: profileName, profile } = named;
    const opts = this.options.docker ?? {};
    const { runId, name } = newContainerName();
    const fileName = snippetFileName(profile);
    const engine = await engineSpec(opts);
    const pins = await resolveMounts(named, this.options.protectedPaths, { docker: opts });
    const lease = (() => {
      try {
        const labels = { ...ownerLabels(runId, profileName), [WARM_LABEL]: '1' };
        return openRunLease(opts, 'warm', name, buildRunArgv({ name, profile, snippetFileName: fileName, mounts: pins.mounts, labels, ...engine }));
      } catch (e) {
        void pins.dispose();
        throw e;
      }
    })();
    try {
      if (await admitContainer(opts, lease, profile, pins.mounts)) return { lease, fileName };
    } catch (e) {
      await this.removeLease(lease);
      throw e;
    } finally {
      await pins.dispose();
    }
    await this.noLauncher(named, lease);
    return undefined;
  }

  /** The launcher never waited: no `sh` (this profile goes cold), or a failure (thrown). */
  private async noLauncher(named: NamedProfile, lease: ContainerLease): Promise<void> {
    const exit = await lease.exit;
    const state = await inspectState(this.options.docker ?? {}, lease.name).catch(() => undefined);
    await this.removeLease(lease);
    if (state?.started && state.status === 'exited' && (await initCouldNotExec(this.options.docker ?? {}, state.exitCode))) {
      this.markColdOnly(named, `the launcher stopped at once with status ${state.exitCode}`);
      return;
    }
    throw new Error(`the container did not start (exit ${exit.exitCode ?? 'unknown'}): ${lease.launcher?.heldText().trim() ?? ''}`);
  }
}

/** A gate that opens when `after` settles, after `ms`, or on `startNow`; open at once without `after`. */
function deferral(after: Promise<unknown> | undefined, ms: number): { started: Promise<void>; startNow: () => void } {
  if (!after) return { started: Promise.resolve(), startNow: () => undefined };
  let startNow = (): void => undefined;
  let timer: NodeJS.Timeout | undefined;
  const asked = new Promise<void>((resolve) => {
    startNow = resolve;
    timer = setTimeout(resolve, ms);
    timer.unref?.();
  });
  const started = Promise.race([after.then(() => undefined, () => undefined), asked]).finally(() => clearTimeout(timer));
  return { started, startNow: () => startNow() };
}
