/**
 * Warm start: per profile, one container created and started ahead of time with exactly the
 * cold path's isolation floor, limits and owner labels, blocked in a constant launcher that waits
 * for the code on standard input (see `WARM_LAUNCHER` in argv.ts). A run takes it (it is removed
 * from the pool at once, so it never serves a second run), attaches, writes the code and closes
 * stdin; a replacement is started in the background. Idle containers expire; a changed profile
 * (image, limits, anything) discards its container. Profiles whose launcher cannot run (no
 * `sh`/`cat` in the image as the profile leaves it) fall back to the cold path, reported once
 * through `onLog`.
 */
import { randomUUID } from 'node:crypto';
import { buildCreateArgv, SNIPPET_DIR, type ResolvedMount } from './argv';
import { createContainer } from './create';
import { docker, inspectState, removeContainer, type DockerOptions } from './docker';
import { engineSpec, type EngineSpec } from './engineKind';
import { isSandboxError } from './errors';
import { LABELS, ownerLabels } from './labels';
import { resolveMounts } from './mounts';
import type { Profile } from './profile';
import { snippetFileName } from './snippet';

/** A started container waiting for its code. */
export interface WarmContainer {
  readonly name: string;
  /** The in-container snippet file name it will write (e.g. `main.py`). */
  readonly fileName: string;
  /** The host pid of its init process when it was prepared (0 when unknown), for the pids evidence. */
  readonly pid: number;
  /**
   * False on Podman: the container is created but not started, and the run starts it attached
   * (`start --attach --interactive`). Podman 4.3's `attach` to a running container appends a
   * newline of its own to stdout and exits 0 whatever the program's status (measured), so the
   * code cannot go over an `attach` there.
   */
  readonly started?: boolean;
}

/** Options of a {@link WarmPool}. */
export interface WarmPoolOptions {
  readonly docker?: DockerOptions;
  /** An unused warm container is removed after this many ms (default 5 minutes). */
  readonly idleMs?: number;
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
}

/** Label marking a container as a warm one (not yet taken by a run). */
export const WARM_LABEL = `${LABELS.product}.warm`;

/** Identity of a profile for the pool: any change to it discards the warm container. */
export function warmKey(profileName: string, profile: Profile): string {
  return JSON.stringify([profileName, profile]);
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

  /** Starts preparing a warm container for the profile unless one is ready or on its way. */
  prepare(profileName: string, profile: Profile): void {
    if (this.disposed || this.coldOnly.has(JSON.stringify(profile))) return;
    const key = warmKey(profileName, profile);
    const existing = this.slots.get(profileName);
    if (existing?.key === key) return;
    if (existing) this.discard(existing);
    const slot: Slot = { key, profileName, ready: Promise.resolve(undefined) };
    const ready = this.create(profileName, profile).then(
      (container) => {
        if (!container) return undefined;
        if (this.slots.get(profileName) !== slot || this.disposed) {
          this.track(removeContainer(this.options.docker ?? {}, container.name).catch(() => undefined));
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
  async ready(profileName: string, profile: Profile): Promise<boolean> {
    const slot = this.slots.get(profileName);
    if (!slot || slot.key !== warmKey(profileName, profile)) return false;
    return (await slot.ready) !== undefined;
  }

  /**
   * Takes the profile's ready container for one run, or undefined (cold path) when none is ready
   * or its snippet file name differs. A replacement is prepared in the background.
   */
  take(profileName: string, profile: Profile, sourceFileName?: string): WarmContainer | undefined {
    const slot = this.slots.get(profileName);
    const key = warmKey(profileName, profile);
    let taken: WarmContainer | undefined;
    if (slot?.container && slot.key === key && slot.container.fileName === snippetFileName(profile, sourceFileName)) {
      taken = slot.container;
      clearTimeout(slot.idleTimer);
      this.slots.delete(profileName);
    }
    this.prepare(profileName, profile);
    return taken;
  }

  /**
   * Sends this profile to the cold path from now on (the launcher cannot run with it: no `sh` in
   * the image, or none the profile's env, workdir and mounts leave visible); logged once. Keyed by
   * the whole profile, so a profile that hides `sh` never turns warm start off for the image's others.
   */
  markColdOnly(profileName: string, profile: Profile, why: string): void {
    const key = JSON.stringify(profile);
    if (this.coldOnly.has(key)) return;
    this.coldOnly.add(key);
    this.log(`profile ${profileName} cannot run the warm launcher in image ${profile.image} (${why}); it uses the cold path`);
    const slot = this.slots.get(profileName);
    if (slot?.key === warmKey(profileName, profile)) this.discard(slot);
  }

  /** Names of the warm containers ready and waiting (not taken by any run). */
  idleNames(): string[] {
    return [...this.slots.values()].flatMap((s) => (s.container ? [s.container.name] : []));
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
    const opts = this.options.docker ?? {};
    this.track(slot.ready.then((c) => (c ? removeContainer(opts, c.name) : undefined)).catch(() => undefined));
  }

  /** Creates and starts one warm container; undefined when this image cannot be warmed. */
  private async create(profileName: string, profile: Profile): Promise<WarmContainer | undefined> {
    const runId = randomUUID();
    const name = `sandbox-runner-${runId}`;
    const fileName = snippetFileName(profile);
    // The pinned mount sources stay open until `docker start` returned (the engine mounted them).
    const pins = await resolveMounts(profileName, profile, this.options.protectedPaths, { docker: this.options.docker });
    try {
      return await this.createPinned(profile, name, fileName, profileName, runId, pins.mounts);
    } finally {
      await pins.dispose();
    }
  }

  /** {@link create} with the mounts resolved and pinned. */
  private async createPinned(
    profile: Profile, name: string, fileName: string, profileName: string, runId: string, mounts: readonly ResolvedMount[],
  ): Promise<WarmContainer | undefined> {
    const opts = this.options.docker ?? {};
    // A CLI that cannot even say its version fails the create below with its own error.
    let engine: EngineSpec;
    try {
      engine = await engineSpec(opts);
    } catch (e) {
      if (!isSandboxError(e) || e.code !== 'limits-unsupported') engine = { engine: 'docker' };
      else throw new Error(e.message);
    }
    const argv = buildCreateArgv({
      name,
      profile,
      snippetHostDir: SNIPPET_DIR,
      snippetFileName: fileName,
      mounts,
      labels: { ...ownerLabels(runId, profileName), [WARM_LABEL]: '1' },
      delivery: 'stdin',
      ...engine,
    });
    let created = false;
    const fail = async (why: string) => {
      if (created) await removeContainer(opts, name).catch(() => undefined);
      throw new Error(why);
    };
    // The same checks as the cold path (image VOLUMEs, limits the engine dropped).
    try {
      await createContainer(opts, argv, profile.image, (exists) => (created = exists));
    } catch (e) {
      return fail(isSandboxError(e) ? e.message : String(e));
    }
    if (engine.engine === 'podman') return { name, fileName, pid: 0, started: false };
    const start = await docker(opts, ['start', name]);
    if (start.exitCode !== 0) return fail(start.stderr.trim());
    // The launcher blocks on stdin; a container that already stopped could not run it (no sh/cat).
    const state = await inspectState(opts, name);
    if (state.status !== 'running') {
      await removeContainer(opts, name).catch(() => undefined);
      this.markColdOnly(profileName, profile, `the launcher stopped at once with status ${state.exitCode}`);
      return undefined;
    }
    return { name, fileName, pid: state.pid };
  }
}
