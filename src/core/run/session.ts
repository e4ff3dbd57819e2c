/**
 * One run's shared machinery, driven by the three paths (runner.ts: warm and cold leases;
 * directPath.ts: images without `sh`; terminalPath.ts: interactive runs with a terminal): the
 * bounded streams, the stop controller, the pids watch, the mount pins, admission and the exit
 * of a lease, background removal and the typed result. Internal to run/: its members are public
 * to those paths only (the barrel does not export it).
 */
import { performance } from 'node:perf_hooks';
import { admitContainer } from '../admission/admit';
import { type ContainerSpec, type ResolvedMount } from '../container/argv';
import { engineSpec } from '../engine/podman/engineSpec';
import { diagnoseExit, diagnoseNoLauncher, launcherStopped, type Diagnosis } from './diagnose';
import type { DockerOptions } from '../engine/contracts';
import { resolveEndpoint } from '../engine/endpoint';
import { isSandboxError, SandboxError, type SandboxErrorInfo } from '../errors';
import { ownerLabels } from '../ownership/labels';
import { newContainerName } from '../layout';
import { type ContainerLease } from '../container/lease';
import type { LauncherVerdict } from '../container/launcher';
import { type PinnedMounts } from '../mounts/mounts';
import { pinMounts } from '../mounts/workspacePins';
import { BoundedStream, type OutputSink } from '../output/output';
import { PidsWatch } from './pidsEvidence';
import { readOnlyWrite, StreamTail } from './readOnlyHint';
import { type Profile } from '../profiles/profileSchema';
import { type NamedProfile } from '../profiles/profileResolution';
import { scheduleRemoval } from '../container/removals';
import type { RunOutcome, RunResult } from './result';
import { sandboxRule, signalFromExitCode } from './rules';
import { snippetCode, snippetFileName } from '../source/snippet';
import { StopController } from './stop';
import type { RunRequest } from './request';
import { describeOutcome } from './outcome';
import { type FolderPlan } from '../mounts/workspaceMount';

/**
 * Test seams (engine suite only; never set by the product): `beforeCode` runs after admission,
 * just before the code is sent, so a test can make the container's start-up "slow" at will and
 * prove the wall-clock limit times the program only (stop.ts `started`).
 */
export const runTestHooks: { beforeCode?: () => Promise<void> } = {};

/** What one lease attempt gave: a result, or "start again cold" (a warm lease that failed early) / "no sh". */
export type Attempt = RunResult | 'retry-cold' | 'no-shell';

/**
 * `opts` with the docker config's current context frozen for one run: the CLI resolves it once,
 * when `docker run` starts, but every later control call (the pre-code checks, the removal)
 * resolves again (endpoint.ts), so a `docker context use` while the run is in flight would send
 * them to another engine and leave the container where it ran. Options that already name a host
 * or context, and endpoints from the environment (fixed for the process), are returned as they are.
 */
export function pinCurrentContext(opts: DockerOptions): DockerOptions {
  if (opts.host || opts.context) return opts;
  const endpoint = resolveEndpoint(opts);
  if (endpoint?.source !== 'config-context') return opts;
  return { ...opts, context: endpoint.context ?? 'default' };
}

/** One run: its streams, stop controller, evidence and result. */
export class RunSession {
  readonly opts: DockerOptions;
  readonly code: string | Uint8Array;
  readonly sink: OutputSink;
  readonly streams: Record<'stdout' | 'stderr', BoundedStream>;
  readonly stopper: StopController;
  readonly pids = new PidsWatch();
  name = newContainerName().name;
  /** The profile as this run uses it (runner.ts `Run.prepare`): mount variables resolved, module path set. */
  profile: Profile;
  /** A `workspace: "ro"` run's plan (workspaceMount.ts), set by runner.ts `Run.prepare`. */
  workspace: FolderPlan | undefined;
  /** True when the run depends on its document's paths: never a warm container. */
  coldOnly = false;
  overflowStream: string | undefined;
  cleanupError: string | undefined;
  /** Direct path only: the last stderr text, for a start failure's detail. */
  stderrTail = '';
  /** The end of the program's stderr, for the read-only hint only (readOnlyHint.ts; never a decision). */
  private readonly errTail = new StreamTail();
  readonly disposers: (() => Promise<void> | void)[] = [];

  constructor(readonly req: RunRequest, profile: Profile, readonly t0: number) {
    this.profile = profile;
    this.opts = pinCurrentContext(req.docker ?? {});
    this.code = snippetCode(req.code, profile.lineEndings);
    this.sink = req.onOutput ?? (() => undefined);
    const bound = profile.limits.outputBytes;
    this.streams = { stdout: new BoundedStream('stdout', bound, this.sink), stderr: new BoundedStream('stderr', bound, this.sink) };
    this.stopper = new StopController(this.opts, profile.limits.interruptGraceSeconds * 1000, profile.limits.timeoutSeconds * 1000);
  }

  /** The profile as this run uses it, with the name it was asked for under. */
  get named(): NamedProfile {
    return { name: this.req.profileName, profile: this.profile };
  }

  /** Names this attempt's container (a new run id) and returns what the argv builders take for it. */
  async containerSpec(mounts: readonly ResolvedMount[]): Promise<ContainerSpec> {
    const { runId, name } = newContainerName();
    this.name = name;
    return {
      name, profile: this.profile, snippetFileName: snippetFileName(this.profile, this.req.sourceFileName),
      mounts, labels: ownerLabels(runId, this.req.profileName),
      ...(await engineSpec(this.opts)),
      ...(this.workspace?.workdir !== undefined ? { workdir: this.workspace.workdir } : {}),
      ...(this.workspace?.programFile !== undefined ? { programFile: this.workspace.programFile } : {}),
    };
  }
  /**
   * Resolves and pins the profile's mounts, and a workspace run's folder with its masks
   * (workspacePins.ts, as a session's), then the dependency set's volume first; released when the
   * run ends (see mounts.ts).
   * @throws SandboxError `invalid-mount` as workspacePins.ts `pinMounts`
   */
  async pin(): Promise<PinnedMounts> {
    const pins = await pinMounts(this.named, this.req.protectedPaths, { docker: this.opts }, this.workspace, this.req.maskGlobs, (text) => this.sink('notice', text));
    this.disposers.push(() => pins.dispose());
    const deps = this.req.dependencySet;
    // First: a workspace run's folder mount and its masks stay last.
    return deps ? { ...pins, mounts: [{ source: deps.dataVolume, volume: deps.dataVolume, target: deps.target, readOnly: true }, ...pins.mounts] } : pins;
  }

  /**
   * One lease: admission while the launcher waits (cold; a warm lease was admitted by the pool),
   * the pids watch, the frame, the program's streams, the exit.
   */
  async onLease(lease: ContainerLease, mounts: readonly ResolvedMount[]): Promise<Attempt> {
    this.name = lease.name;
    this.stopper.bind(lease);
    let admitted: boolean;
    try {
      admitted = lease.kind === 'warm' ? !lease.ended : await admitContainer(this.opts, lease, this.profile, mounts);
    } catch (e) {
      this.release(lease);
      throw e;
    }
    if (this.stopper.reason) return this.stopped(lease);
    if (!admitted) return this.notWaiting(lease);
    await this.pids.start(this.opts, lease.name, lease.pid);
    await runTestHooks.beforeCode?.();
    if (this.stopper.reason) return this.stopped(lease);
    this.verdictOf = () => lease.launcher?.verdict;
    lease.consume((stream, chunk) => this.onChunk(stream, chunk));
    lease.send(this.code, this.req.interactive?.input, this.req.args);
    this.stopper.started();
    return this.afterExit(lease, await lease.exit);
  }

  /** The launcher never waited: warm → cold once; cold → no `sh`, or a start failure. */
  async notWaiting(lease: ContainerLease): Promise<Attempt> {
    const exit = await lease.exit;
    try {
      if (lease.launcher?.verdict === 'no-stty') throw noStty(this.profile.image);
      return lease.kind === 'warm' ? 'retry-cold' : await diagnoseNoLauncher(this.opts, lease, exit, this.profile.image);
    } finally {
      this.release(lease); // after the diagnosis: it reads the container's state
    }
  }

  /** The program's exit is known: stop outcome, launcher failure, or the engine's diagnosis. */
  async afterExit(lease: ContainerLease, exit: Awaited<ContainerLease['exit']>): Promise<Attempt> {
    await this.pids.stop();
    if (this.stopper.reason) return this.stopped(lease, exit);
    this.stopper.end();
    const verdict = lease.launcher?.verdict;
    if (verdict === 'compile-failed') {
      this.release(lease);
      return this.result('compile-failed', typeof exit.exitCode === 'number' ? exit.exitCode : null);
    }
    if (lease.launcher && verdict !== 'ready') {
      try {
        if (lease.kind === 'warm' && verdict === 'absent') return 'retry-cold';
        if (!lease.launcher.waited) return await diagnoseNoLauncher(this.opts, lease, exit, this.profile.image);
        throw launcherStopped(lease, this.profile, exit);
      } finally {
        this.release(lease);
      }
    }
    let d: Diagnosis;
    try {
      d = await diagnoseExit(this.opts, lease, exit, this.stderrTail);
    } finally {
      this.release(lease);
    }
    return this.result(d.outcome, d.exitCode, d.error, d.oomKilledChild);
  }

  /** A stopped run: its removal (started by the controller, or now) ends it; the program's own status when it exited within the grace. */
  async stopped(lease: ContainerLease, exit?: Awaited<ContainerLease['exit']>): Promise<RunResult> {
    const reason = this.stopper.reason!;
    const own = exit && !this.stopper.removing && typeof exit.exitCode === 'number' ? exit.exitCode : null;
    this.stopper.removeNow();
    this.stopper.end();
    await lease.exit;
    return this.finish(reason, own);
  }

  /** Removes the lease's container in the background (the result does not wait for it). */
  release(lease: ContainerLease): void {
    const neverWaited = () => !(lease.launcher?.waited ?? true);
    void scheduleRemoval(this.opts, lease.name, Promise.race([lease.waiting, lease.exit]), neverWaited).catch(() => undefined);
    if (!lease.ended) void lease.exit.then(() => undefined);
  }

  /** A stop outcome: waits for the controller's removal, so "the container was removed" holds. */
  async finish(outcome: RunOutcome, exitCode: number | null): Promise<RunResult> {
    try {
      await this.stopper.removal;
    } catch (e) {
      this.cleanupError = isSandboxError(e) ? `${e.message} ${e.fix}` : String(e);
    }
    return this.result(outcome, exitCode);
  }

  /** Program bytes: bounded, passed on; a stream over its bound stops the run. */
  onChunk(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    if (stream === 'stderr') this.errTail.push(chunk);
    if (stream === 'stderr' && this.stderrTailWanted) this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-4000);
    if (this.streams[stream].push(chunk)) {
      this.overflowStream ??= stream;
      this.sink('notice', `\n[sandbox-runner] ${stream} passed its limit of ${this.profile.limits.outputBytes} bytes; stopping the run.\n`);
      this.stopper.stop('output-limit');
    }
  }

  stderrTailWanted = false;
  /** The launcher's verdict of the lease whose program this run started (for {@link runPhase}). */
  verdictOf: () => LauncherVerdict | undefined = () => undefined;
  /** Any failure: the stop's outcome when stopped, else `failed-to-start` with the error. */
  async failed(e: unknown): Promise<RunResult> {
    if (this.stopper.reason) return this.finish(this.stopper.reason, null);
    const error: SandboxErrorInfo = isSandboxError(e)
      ? e.toInfo()
      : { code: 'engine-error', message: `Unexpected failure: ${String(e)}.`, fix: 'Report this with the output above.', detail: '' };
    return this.result('failed-to-start', null, error);
  }

  result(outcome: RunOutcome, exitCode: number | null, error?: SandboxErrorInfo, oomKilledChild = false): RunResult {
    const durationMs = performance.now() - this.t0;
    const phase = runPhase(this.profile, this.verdictOf());
    const ran = outcome !== 'failed-to-start' && outcome !== 'engine-error';
    const profile = this.profile;
    const workspaceTarget = this.workspace?.target;
    const readOnly = outcome === 'exited' && exitCode ? readOnlyWrite(this.errTail.text(), profile, workspaceTarget) : undefined;
    const rule = ran ? sandboxRule(outcome, exitCode, profile, { refusedForks: this.pids.refusedForks, oomKilledChild, readOnlyWrite: readOnly, workspaceTarget }) : undefined;
    const s = this.streams;
    return {
      outcome, exitCode, signal: ran ? signalFromExitCode(exitCode) : null, durationMs,
      stdout: { bytesKept: s.stdout.bytesKept, truncated: s.stdout.truncated },
      stderr: { bytesKept: s.stderr.bytesKept, truncated: s.stderr.truncated },
      message: describeOutcome(outcome, { exitCode, durationMs, profile, overflowStream: this.overflowStream, error, rule, phase }),
      containerName: this.name,
      ...(phase ? { phase } : {}),
      ...(ran && profile.runtime ? { runtime: profile.runtime } : {}),
      ...(rule ? { rule } : {}),
      ...(error ? { error } : {}),
      ...(this.cleanupError ? { cleanupError: this.cleanupError } : {}),
    };
  }
}

/** The step a run of a profile with `compile` ended in, from its launcher's verdict (issue 23); undefined otherwise. */
function runPhase(profile: Profile, verdict: LauncherVerdict | undefined): 'compile' | 'run' | undefined {
  if (!profile.compile) return undefined;
  if (verdict === 'compiling' || verdict === 'compile-failed') return 'compile';
  return verdict === 'ready' ? 'run' : undefined;
}

/** A terminal run refused: the image has no `stty`, so its terminal could not carry the code unchanged. */
function noStty(image: string): SandboxError {
  return new SandboxError(
    'start-failed',
    `The image "${image}" has no "stty", which an interactive run with a terminal needs to receive the code unchanged (the terminal would otherwise echo it and act on control bytes), so nothing ran.`,
    'Use an image with stty (coreutils or busybox) for this profile, or run it without a terminal (interactive input over a pipe).',
  );
}
