/**
 * The core runner: one snippet, one fresh container, streamed bounded output, a timeout and
 * cancel, and a typed result. Flow: validate the profile → a container lease (lease.ts): a warm
 * one from the pool, or `docker run -i` with the launcher waiting on stdin → the pre-code checks
 * while it waits (admit.ts) → the pids watch → the code frame over stdin (launcher.ts) → the
 * program's streams → exit diagnosis (diagnose.ts) → removal in the background (removals.ts).
 * One retry rule: a warm lease that failed before the program started → cold, once. Images
 * without `sh` run on the direct path (create + start, the snippet bind-mounted read-only), on a
 * local engine only. Stops (cancel, timeout, output bound, forced cancel) go through one
 * controller (stop.ts). Interactive runs (interactive.ts) pass live input after the frame; with a
 * terminal they take their own cold path (`docker create -t -i` + `docker start -a -i`, same
 * floor and checks). No `vscode` import here.
 */
import { performance } from 'node:perf_hooks';
import { buildRunArgv } from '../container/argv';
import { prepareControl } from '../engine/control';
import { engineRuntimes } from '../engine/engine';
import { isSandboxError, SandboxError } from '../errors';
import { profileSettingPath } from '../layout';
import { openRunLease } from '../container/lease';
import { ProfileSchema } from '../profiles/profileSchema';
import { RUNSC_MIN_PIDS, runscPidsProblem } from '../profiles/limits';
import { toProfileIssues } from '../profiles/profileResolution';
import { checkProgramArgs } from '../admission/programArgs';
import type { RunResult } from './result';
import { resolvePathVariables, usesPathVariables } from '../profiles/pathVariables';
import { applyWorkspace } from '../mounts/workspaceMount';
import { runDirect } from './directPath';
import { invalidProfileResult, refusedResult } from './outcome';
import type { RunRequest } from './request';
import { RunSession, type Attempt } from './session';
import { runTerminal } from './terminalPath';

/**
 * Profiles whose launcher could not start (no `sh` in the image, as the profile's env, workdir
 * and mounts leave it): their runs take the direct path, where an exit 127 is the program's own.
 * Process-wide, keyed by the whole validated profile, so a profile that hides `sh` (a PATH, a
 * mount over /bin) sends only itself to the direct path, never other profiles of the image.
 */
const profilesWithoutShell = new Set<string>();

/**
 * Runs `req.code` in a new container with the isolation floor and returns how it ended.
 * Never throws for run failures (they are results: `failed-to-start`, `engine-error`).
 * The result resolves once the program's exit is known; the container's removal (`docker rm -f -v`)
 * goes on in the background (await it with `awaitRemovals`, removals.ts). `cleanupError` is set
 * only when a removal that ended the run (a stop: cancel, timeout, output bound) failed before the
 * result; a background removal's failure is returned by `awaitRemovals`.
 */
export async function runInSandbox(req: RunRequest): Promise<RunResult> {
  const t0 = performance.now();
  // Defence in depth: the argv builder trusts its profile, so a caller that skipped validation
  // (or mutated a validated profile, e.g. network "host") must not reach docker with it.
  const checked = ProfileSchema.safeParse(req.profile);
  if (!checked.success) {
    const issues = toProfileIssues(profileSettingPath(req.profileName), checked.error);
    return invalidProfileResult(req.profileName, issues, t0);
  }
  let args: string[];
  try {
    args = checkProgramArgs(req.args ?? []);
  } catch (e) {
    if (!isSandboxError(e)) throw e;
    return refusedResult(e.toInfo(), t0);
  }
  return new Run({ ...req, args }, checked.data, t0).execute();
}

/** One run: the session (session.ts) and the order of its attempts. */
class Run extends RunSession {
  /** Listens for cancel and timeout, runs the attempts, and always lets go of them. */
  async execute(): Promise<RunResult> {
    if (this.req.signal?.aborted) return this.result('cancelled', null);
    const onAbort = () => this.stopper.stop('cancelled');
    const onForce = () => this.stopper.force();
    this.req.signal?.addEventListener('abort', onAbort, { once: true });
    this.req.forceSignal?.addEventListener('abort', onForce, { once: true });
    try {
      return await this.attempts();
    } catch (e) {
      return await this.failed((await this.runtimeNotOffered(e)) ?? e);
    } finally {
      this.stopper.end();
      this.req.signal?.removeEventListener('abort', onAbort);
      this.req.forceSignal?.removeEventListener('abort', onForce);
      for (const dispose of this.disposers.splice(0)) await dispose();
    }
  }

  /** Warm lease first; "warm failed before the program started → cold once"; no `sh` → direct. A terminal run: its own cold path only. */
  private async attempts(): Promise<RunResult> {
    prepareControl(this.opts); // the first control call's one-time work overlaps `docker run`
    this.prepare();
    this.checkRuntimePids();
    const io = this.req.interactive;
    if (io?.tty) return runTerminal(this, io, io.tty);
    const key = JSON.stringify(this.profile);
    if (!profilesWithoutShell.has(key)) {
      const warm = this.coldOnly ? undefined : await this.req.warm?.takeWhenReady(this.named, this.req.sourceFileName, this.req.signal);
      const first = warm ? await this.onLease(warm, []) : 'retry-cold';
      if (first !== 'retry-cold') return first === 'no-shell' ? runDirect(this) : first;
      const cold = await this.cold();
      if (cold !== 'no-shell' && cold !== 'retry-cold') return cold;
      profilesWithoutShell.add(key);
    }
    return runDirect(this);
  }

  /**
   * Under gVisor a profile's pids limit must leave room for gVisor's own threads (limits.ts
   * `RUNSC_MIN_PIDS`): checked before anything starts (no engine call).
   * @throws SandboxError `invalid-profile` naming the pids limit
   */
  private checkRuntimePids(): void {
    const runtime = this.profile.runtime;
    const pids = runtime ? runscPidsProblem(runtime, this.profile.limits.pids) : undefined;
    if (pids) throw new SandboxError('invalid-profile', pids, `Set limits.pids to ${RUNSC_MIN_PIDS} or more in this profile, or run it without "runtime": "runsc".`);
  }

  /**
   * After a run failed: when its profile asks for a `runtime` (issue 25) the engine does not offer
   * (its `GET /info` list), the error naming the runtime and that list instead of the engine's own
   * words. Asked only after a failure: the engine refuses a container with an unknown runtime at
   * create (nothing starts), and the list costs a `GET /info` (20–60 ms) that a run under gVisor
   * paid before every start (`npm run bench` gvisor_cold_ratio).
   * @returns undefined when the profile names no runtime, `e` is no SandboxError, or the engine
   *   offers the runtime (or does not say which it offers)
   */
  private async runtimeNotOffered(e: unknown): Promise<SandboxError | undefined> {
    const runtime = this.profile.runtime;
    if (!runtime || !isSandboxError(e) || e.code === 'invalid-profile' || this.stopper.reason) return undefined;
    const offered = await engineRuntimes(this.opts);
    if (!offered || offered.includes(runtime)) return undefined;
    return new SandboxError(
      'invalid-profile',
      `The profile asks for the OCI runtime "${runtime}", which this engine does not offer (it offers: ${offered.join(', ')}), so nothing ran.`,
      'Register the runtime with the engine (for gVisor: runsc in the daemon\'s "runtimes", see docs/engines.md), or remove "runtime" from the profile.',
    );
  }

  /**
   * The document's paths applied (issue 12): mount sources' `${workspaceFolder}`/`${fileDirname}`
   * resolved (pathVariables.ts), and for `workspace: "ro"` the plan (workspaceMount.ts) with its
   * module-path variable added to the profile's env. Limits are untouched.
   * @throws SandboxError `invalid-mount` for a variable or workspace this run has no path for, or a collision
   */
  private prepare(): void {
    const paths = this.req.paths ?? {};
    this.coldOnly = this.profile.workspace !== 'none' || usesPathVariables(this.profile) || this.req.dependencySet !== undefined;
    const applied = applyWorkspace({ name: this.req.profileName, profile: resolvePathVariables(this.req.profileName, this.profile, paths) }, paths);
    this.workspace = applied.plan;
    let profile = applied.profile;
    const deps = this.req.dependencySet;
    if (deps) {
      // A path variable the profile or workspace plan already set keeps its entries, after the set's.
      const env = { ...profile.env };
      for (const [k, v] of Object.entries(deps.env)) env[k] = env[k] ? `${v}:${env[k]}` : v;
      profile = { ...profile, env };
    }
    this.profile = profile;
  }

  /** Pins the mounts and starts `docker run -i` with the launcher waiting on stdin. */
  private async cold(): Promise<Attempt> {
    const pins = await this.pin();
    if (this.stopper.reason) return this.finish(this.stopper.reason, null);
    const argv = buildRunArgv(await this.containerSpec(pins.mounts));
    this.req.onArgv?.(argv);
    return this.onLease(openRunLease(this.opts, 'cold', this.name, argv), pins.mounts);
  }
}
