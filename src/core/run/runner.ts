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
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { admitContainer, checkCreated } from '../admission/admit';
import { buildCreateArgv, buildRunArgv, buildTtyCreateArgv, DETACH_KEYS_LENGTH, detachKeys, type ContainerSpec, type ResolvedMount } from '../container/argv';
import { createContainer } from '../container/create';
import { engineSpec } from '../engine/engineKind';
import { engineRuntimes } from '../engine/engine';
import { diagnoseExit, diagnoseNoLauncher, launcherStopped, type Diagnosis } from './diagnose';
import { prepareControl, type DockerOptions } from '../engine/docker';
import { resolveEndpoint } from '../engine/endpoint';
import { isSandboxError, SandboxError, type SandboxErrorInfo } from '../errors';
import { ownerLabels } from '../ownership/labels';
import { newContainerName, profileSettingPath, SNIPPET_DIR } from '../layout';
import { openDirectLease, openRunLease, openTtyLease, type ContainerLease } from '../container/lease';
import { directoryAccess, resolveMounts, type PinnedMounts } from '../mounts/mounts';
import { BoundedStream, type OutputSink } from '../output/output';
import type { MountAccess } from '../mounts/mountProbe';
import { PidsWatch } from './pidsEvidence';
import { readOnlyWrite, StreamTail } from './readOnlyHint';
import { ProfileSchema, type Profile } from '../profiles/profileSchema';
import { toProfileIssues, type NamedProfile } from '../profiles/profileResolution';
import { checkProgramArgs } from './programArgs';
import { scheduleRemoval } from '../container/removals';
import type { RunOutcome, RunResult } from './result';
import { sandboxRule, signalFromExitCode, type RuleNote } from './rules';
import { snippetCode, snippetFileName, writeSnippet } from '../source/snippet';
import { StopController } from './stop';
import type { WarmPool } from './warm';
import type { InteractiveIo, TtySize } from '../interactive';
import { ResizeForwarder } from '../container/ttyResize';
import { resolvePathVariables, usesPathVariables, type RunPaths } from '../profiles/pathVariables';
import { findMasked, DEFAULT_MASK_GLOBS } from '../mounts/workspaceMask';
import { isMountContainerPath, planWorkspaceRun, type WorkspacePlan } from '../mounts/workspaceMount';

/** One run's input. */
export interface RunRequest {
  /** Profile name, for labels and messages. */
  readonly profileName: string;
  /** A validated profile (see `resolveProfiles`); validated again here, an invalid one never runs. */
  readonly profile: Profile;
  /**
   * The code to run: text (written as UTF-8) or a file's bytes, passed on unchanged except that
   * CRLF line endings become LF unless the profile's `lineEndings` is "keep" (see `snippetCode`).
   */
  readonly code: string | Uint8Array;
  /** The source file name (or untitled name); only its extension is used. */
  readonly sourceFileName?: string;
  /**
   * Receives the program's stdout/stderr bytes as they arrive (bounded, unchanged; decode for
   * display with `decodingSink` or `Utf8Decoder`), and runner notices as text (e.g. truncation).
   */
  readonly onOutput?: OutputSink;
  /**
   * Cancels the run (outcome `cancelled`): the program's process group gets SIGINT, as from a
   * terminal's Ctrl-C, and the container is removed `limits.interruptGraceSeconds` later (at
   * once when that is 0 or the program is not running yet).
   */
  readonly signal?: AbortSignal;
  /** Removes the container at once, skipping the grace period (a second Ctrl-C or Cancel). */
  readonly forceSignal?: AbortSignal;
  readonly docker?: DockerOptions;
  /** Extra host paths no mount may touch (e.g. the extension's state directory). */
  readonly protectedPaths?: readonly string[];
  /** Receives the engine argv (`docker run …`, or `docker create …` on the direct path) before it runs (for debug logs). */
  readonly onArgv?: (argv: readonly string[]) => void;
  /**
   * Direct path only (images without `sh`, local engine): parent directory for the per-run
   * snippet directory (default: the OS temp dir). Other runs create no host directory at all.
   */
  readonly tempRoot?: string;
  /**
   * A warm pool: when it holds a ready container for this profile, the run takes it (already
   * started, checked and attached: the run only sends the code) instead of starting one;
   * outcomes, bounds and cleanup are the same.
   */
  readonly warm?: WarmPool;
  /**
   * Live input (issue 11; see interactive.ts): the program reads `input` after the code, with a
   * real terminal when `tty` is set (cold path only). Without it the program's stdin is empty.
   * Refused (`failed-to-start`, nothing ran) for images without `sh`, and with `tty` for images
   * without `stty`.
   */
  readonly interactive?: InteractiveIo;
  /**
   * Where the run's document is on the host (issue 12): `${workspaceFolder}` and `${fileDirname}`
   * in mount sources (pathVariables.ts), and the folder a `workspace: "ro"` profile mounts.
   * `file`: the host path of a saved, unmodified file run (it then runs from the workspace
   * mount); leave it out for a selection or unsaved text. Runs that use any of these are cold only.
   */
  readonly paths?: RunPaths & { readonly file?: string };
  /** Globs hidden from a workspace mount (workspaceMask.ts; the user-level `sandboxRunner.maskedFiles`); default `DEFAULT_MASK_GLOBS`. */
  readonly maskGlobs?: readonly string[];
  /**
   * Program arguments (issue 12): appended to the profile's `command` argv after `${file}` was
   * replaced, on every path, never through a shell (programArgs.ts; the code frame carries them,
   * launcher.ts). At most `MAX_PROGRAM_ARGS` words and `MAX_PROGRAM_ARGS_BYTES` UTF-8 bytes, no
   * NUL: past that the run is refused (`failed-to-start`, error `invalid-arguments`, nothing ran).
   */
  readonly args?: readonly string[];
}

/**
 * Profiles whose launcher could not start (no `sh` in the image, as the profile's env, workdir
 * and mounts leave it): their runs take the direct path, where an exit 127 is the program's own.
 * Process-wide, keyed by the whole validated profile, so a profile that hides `sh` (a PATH, a
 * mount over /bin) sends only itself to the direct path, never other profiles of the image.
 */
const profilesWithoutShell = new Set<string>();

/** What one lease attempt gave: a result, or "start again cold" (a warm lease that failed early) / "no sh". */
type Attempt = RunResult | 'retry-cold' | 'no-shell';

/**
 * The summary of a result: one sentence on how it ended, then the sandbox rule behind it when
 * there is one (a fact, or a hint worded as such; see rules.ts).
 * @param facts.exitCode for `cancelled`/`timed-out`: the program's own status when it exited
 *   within the interrupt grace period, else null
 */
export function describeOutcome(
  outcome: RunOutcome,
  facts: { exitCode: number | null; durationMs: number; profile: Profile; overflowStream?: string; error?: SandboxErrorInfo; rule?: RuleNote },
): string {
  const ms = Math.round(facts.durationMs);
  const own = (signal: string) =>
    facts.exitCode === null ? '' : `the program had exited with code ${facts.exitCode} within the grace period after ${signal}; `;
  const withRule = (text: string) => (facts.rule && (outcome === 'exited' || facts.rule.key === 'limits.pids') ? `${text} ${facts.rule.text}` : text);
  switch (outcome) {
    case 'exited':
      return withRule(`Exited with code ${facts.exitCode} in ${ms} ms.`);
    case 'timed-out':
      return withRule(`Timed out after ${facts.profile.limits.timeoutSeconds} s (limits.timeoutSeconds); ${own('SIGTERM')}the container was removed.`);
    case 'cancelled':
      return withRule(`Cancelled after ${ms} ms; ${own('SIGINT')}the container was removed.`);
    case 'output-limit':
      return withRule(`Stopped because ${facts.overflowStream ?? 'output'} passed its limit of ${facts.profile.limits.outputBytes} bytes (limits.outputBytes); the container was removed.`);
    case 'oom-killed':
      return withRule(`Killed by the out-of-memory killer at the ${facts.profile.limits.memoryMiB} MiB memory limit (limits.memoryMiB).`);
    case 'failed-to-start':
    case 'engine-error':
      return facts.error ? `${facts.error.message} ${facts.error.fix}` : 'The run failed.';
  }
}

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
    return invalidProfileResult(req, issues, t0);
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

function invalidProfileResult(req: RunRequest, issues: readonly { key: string; message: string }[], t0: number): RunResult {
  const error: SandboxErrorInfo = {
    code: 'invalid-profile',
    message: `The profile "${req.profileName}" is invalid: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}.`,
    fix: 'Fix the profile in your settings and run again.',
    detail: '',
  };
  return refusedResult(error, t0);
}

/** The result of a run refused before anything started (`failed-to-start` with `error`). */
function refusedResult(error: SandboxErrorInfo, t0: number): RunResult {
  const none = { bytesKept: 0, truncated: false };
  return {
    outcome: 'failed-to-start', exitCode: null, signal: null, durationMs: performance.now() - t0,
    stdout: none, stderr: none, message: `${error.message} ${error.fix}`, containerName: newContainerName().name, error,
  };
}

/** One run: its streams, stop controller, evidence and result. */
class Run {
  private readonly opts: DockerOptions;
  private readonly code: string | Uint8Array;
  private readonly sink: OutputSink;
  private readonly streams: Record<'stdout' | 'stderr', BoundedStream>;
  private readonly stopper: StopController;
  private readonly pids = new PidsWatch();
  private name = newContainerName().name;
  /** The profile as this run uses it (see {@link Run.prepare}): mount variables resolved, module path set. */
  private profile: Profile;
  /** A `workspace: "ro"` run's plan (workspaceMount.ts), set by {@link Run.prepare}. */
  private workspace: WorkspacePlan | undefined;
  /** True when the run depends on its document's paths: never a warm container. */
  private coldOnly = false;
  private overflowStream: string | undefined;
  private cleanupError: string | undefined;
  /** Direct path only: the last stderr text, for a start failure's detail. */
  private stderrTail = '';
  /** The end of the program's stderr, for the read-only hint only (readOnlyHint.ts; never a decision). */
  private readonly errTail = new StreamTail();
  private readonly disposers: (() => Promise<void> | void)[] = [];

  constructor(private readonly req: RunRequest, profile: Profile, private readonly t0: number) {
    this.profile = profile;
    this.opts = pinCurrentContext(req.docker ?? {});
    this.code = snippetCode(req.code, profile.lineEndings);
    this.sink = req.onOutput ?? (() => undefined);
    const bound = profile.limits.outputBytes;
    this.streams = { stdout: new BoundedStream('stdout', bound, this.sink), stderr: new BoundedStream('stderr', bound, this.sink) };
    this.stopper = new StopController(this.opts, profile.limits.interruptGraceSeconds * 1000);
  }

  /** Listens for cancel and timeout, runs the attempts, and always lets go of them. */
  async execute(): Promise<RunResult> {
    if (this.req.signal?.aborted) return this.result('cancelled', null);
    const onAbort = () => this.stopper.stop('cancelled');
    const onForce = () => this.stopper.force();
    this.req.signal?.addEventListener('abort', onAbort, { once: true });
    this.req.forceSignal?.addEventListener('abort', onForce, { once: true });
    const timer = setTimeout(() => this.stopper.stop('timed-out'), this.profile.limits.timeoutSeconds * 1000);
    try {
      return await this.attempts();
    } catch (e) {
      return await this.failed(e);
    } finally {
      clearTimeout(timer);
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
    await this.checkRuntime();
    const io = this.req.interactive;
    if (io?.tty) return this.ttyRun(io, io.tty);
    const key = JSON.stringify(this.profile);
    if (!profilesWithoutShell.has(key)) {
      const warm = this.coldOnly ? undefined : this.req.warm?.take(this.named, this.req.sourceFileName);
      const first = warm ? await this.onLease(warm, []) : 'retry-cold';
      if (first !== 'retry-cold') return first === 'no-shell' ? this.direct() : first;
      const cold = await this.cold();
      if (cold !== 'no-shell' && cold !== 'retry-cold') return cold;
      profilesWithoutShell.add(key);
    }
    return this.direct();
  }

  /**
   * A profile's `runtime` must be one the engine offers (issue 25), asked before anything starts.
   * @throws SandboxError `invalid-profile` naming the runtime and the engine's list
   */
  private async checkRuntime(): Promise<void> {
    const runtime = this.profile.runtime;
    if (!runtime) return;
    const offered = await engineRuntimes(this.opts);
    if (!offered || offered.includes(runtime)) return;
    throw new SandboxError(
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
    this.coldOnly = this.profile.workspace !== 'none' || usesPathVariables(this.profile);
    let profile = resolvePathVariables(this.req.profileName, this.profile, paths);
    if (profile.workspace === 'ro') {
      if (paths.workspaceFolder === undefined) {
        throw new SandboxError(
          'invalid-mount',
          `The profile key ${profileSettingPath(this.req.profileName, 'workspace')} is "ro", but this run has no workspace folder (the file is not in an open folder, or the CLI got no --workspace), so nothing ran.`,
          'Save the file inside a workspace folder (or pass --workspace DIR to sandbox-run), or set "workspace" to "none".',
        );
      }
      this.workspace = planWorkspaceRun({ name: this.req.profileName, profile }, { ...paths, workspaceFolder: paths.workspaceFolder });
      profile = { ...profile, env: { ...profile.env, ...this.workspace.env } };
    }
    this.profile = profile;
  }

  /** The profile as this run uses it, with the name it was asked for under. */
  private get named(): NamedProfile {
    return { name: this.req.profileName, profile: this.profile };
  }

  /** Names this attempt's container (a new run id) and returns what the argv builders take for it. */
  private async containerSpec(mounts: readonly ResolvedMount[]): Promise<ContainerSpec> {
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

  /** Pins the mounts and starts `docker run -i` with the launcher waiting on stdin. */
  private async cold(): Promise<Attempt> {
    const pins = await this.pin();
    if (this.stopper.reason) return this.finish(this.stopper.reason, null);
    const argv = buildRunArgv(await this.containerSpec(pins.mounts));
    this.req.onArgv?.(argv);
    return this.onLease(openRunLease(this.opts, 'cold', this.name, argv), pins.mounts);
  }

  /**
   * A terminal run (issue 11), cold only (warm containers have no terminal): `docker create -t -i`
   * with the floor (argv.ts `buildTtyCreateArgv`; the create's warnings and the image's VOLUMEs
   * checked as on the direct path, create.ts), then `docker start -a -i` (lease.ts `openTtyLease`)
   * and the same admission, frame and exit handling as a cold run (`onLease`). Sizes the caller
   * reports before the program started go into the frame; later ones to the engine (ttyResize.ts),
   * the newest first-size difference at `ready`.
   * @throws SandboxError when the image has no `sh` or no `stty` (refused, nothing ran)
   */
  private async ttyRun(io: InteractiveIo, size: TtySize): Promise<RunResult> {
    const pins = await this.pin();
    if (this.stopper.reason) return this.finish(this.stopper.reason, null);
    const argv = buildTtyCreateArgv(await this.containerSpec(pins.mounts));
    this.req.onArgv?.(argv);
    let exists = false;
    try {
      await createContainer(this.opts, argv, this.profile.image, (e) => (exists = e));
    } catch (e) {
      if (exists) void scheduleRemoval(this.opts, this.name).catch(() => undefined);
      throw e;
    }
    let latest = size;
    let sent: TtySize | undefined;
    let live = false;
    const resizer = new ResizeForwarder(this.opts, this.name);
    const lease = openTtyLease(this.opts, this.name, detachKeys(randomBytes(DETACH_KEYS_LENGTH), lastFrameByte(this.code, this.req.args ?? [])), () => (sent = latest));
    lease.afterReady(() => {
      live = true;
      if (sent !== latest) resizer.push(latest);
    });
    const unsubscribe = io.onResize?.((s) => {
      latest = s;
      if (live) resizer.push(s);
    });
    this.disposers.push(() => {
      unsubscribe?.();
      resizer.close();
    });
    const done = await this.onLease(lease, pins.mounts);
    if (typeof done === 'string') throw ttyNeedsShell(this.profile.image);
    return done;
  }

  /**
   * Resolves and pins the profile's mounts, and a workspace run's folder with its masks
   * (workspaceMask.ts: found in the checked folder, each a read-only mount over it); released when
   * the run ends (see mounts.ts). Says in a notice where the folder is and how many entries were masked.
   * @throws SandboxError `invalid-mount` as `resolveMounts`, or for a masked path docker's
   *   `--mount` syntax cannot carry (`,` `:` `=` `"` or a line break)
   */
  private async pin(): Promise<PinnedMounts> {
    const ws = this.workspace;
    const folder = this.req.paths?.workspaceFolder;
    const request = ws && folder !== undefined ? { source: folder, target: ws.target } : undefined;
    const pins = await resolveMounts(this.named, this.req.protectedPaths, { docker: this.opts }, request);
    this.disposers.push(() => pins.dispose());
    if (!request) return pins;
    const mount = pins.mounts.at(-1)!;
    const masked = await findMasked(mount.source, this.req.maskGlobs ?? DEFAULT_MASK_GLOBS);
    const masks: ResolvedMount[] = masked.map((m) => ({ source: '/dev/null', target: `${mount.target}/${m.path}`, readOnly: true, mask: m.kind }));
    const unsafe = masks.find((m) => !isMountContainerPath(m.target));
    if (unsafe) {
      throw new SandboxError(
        'invalid-mount',
        `The workspace entry ${JSON.stringify(unsafe.target.slice(mount.target.length + 1))} must be masked, but its name holds a character docker's --mount syntax would read as a separator (, : = " or a line break), so nothing ran.`,
        'Rename that file or folder, or set the profile\'s "workspace" to "none".',
      );
    }
    this.sink('notice', `[sandbox-runner] workspace ${mount.source} mounted read-only at ${mount.target}; ${masks.length} ${masks.length === 1 ? 'entry' : 'entries'} masked (.git and sandboxRunner.maskedFiles).\n`);
    return { mounts: [...pins.mounts, ...masks], dispose: pins.dispose };
  }

  /**
   * One lease: admission while the launcher waits (cold; a warm lease was admitted by the pool),
   * the pids watch, the frame, the program's streams, the exit.
   */
  private async onLease(lease: ContainerLease, mounts: readonly ResolvedMount[]): Promise<Attempt> {
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
    lease.consume((stream, chunk) => this.onChunk(stream, chunk));
    lease.send(this.code, this.req.interactive?.input, this.req.args);
    this.stopper.running = true;
    return this.afterExit(lease, await lease.exit);
  }

  /** The launcher never waited: warm → cold once; cold → no `sh`, or a start failure. */
  private async notWaiting(lease: ContainerLease): Promise<Attempt> {
    const exit = await lease.exit;
    try {
      if (lease.launcher?.verdict === 'no-stty') throw noStty(this.profile.image);
      return lease.kind === 'warm' ? 'retry-cold' : await diagnoseNoLauncher(this.opts, lease, exit, this.profile.image);
    } finally {
      this.release(lease); // after the diagnosis: it reads the container's state
    }
  }

  /** The program's exit is known: stop outcome, launcher failure, or the engine's diagnosis. */
  private async afterExit(lease: ContainerLease, exit: Awaited<ContainerLease['exit']>): Promise<Attempt> {
    await this.pids.stop();
    if (this.stopper.reason) return this.stopped(lease, exit);
    this.stopper.end();
    const verdict = lease.launcher?.verdict;
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
  private async stopped(lease: ContainerLease, exit?: Awaited<ContainerLease['exit']>): Promise<RunResult> {
    const reason = this.stopper.reason!;
    const own = exit && !this.stopper.removing && typeof exit.exitCode === 'number' ? exit.exitCode : null;
    this.stopper.removeNow();
    this.stopper.end();
    await lease.exit;
    return this.finish(reason, own);
  }

  /** Removes the lease's container in the background (the result does not wait for it). */
  private release(lease: ContainerLease): void {
    const neverWaited = () => !(lease.launcher?.waited ?? true);
    void scheduleRemoval(this.opts, lease.name, Promise.race([lease.waiting, lease.exit]), neverWaited).catch(() => undefined);
    if (!lease.ended) void lease.exit.then(() => undefined);
  }

  /** A stop outcome: waits for the controller's removal, so "the container was removed" holds. */
  private async finish(outcome: RunOutcome, exitCode: number | null): Promise<RunResult> {
    try {
      await this.stopper.removal;
    } catch (e) {
      this.cleanupError = isSandboxError(e) ? `${e.message} ${e.fix}` : String(e);
    }
    return this.result(outcome, exitCode);
  }

  /** Program bytes: bounded, passed on; a stream over its bound stops the run. */
  private onChunk(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    if (stream === 'stderr') this.errTail.push(chunk);
    if (stream === 'stderr' && this.stderrTailWanted) this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-4000);
    if (this.streams[stream].push(chunk)) {
      this.overflowStream ??= stream;
      this.sink('notice', `\n[sandbox-runner] ${stream} passed its limit of ${this.profile.limits.outputBytes} bytes; stopping the run.\n`);
      this.stopper.stop('output-limit');
    }
  }

  private stderrTailWanted = false;

  /**
   * The direct path for images without `sh`: `docker create` with the snippet bind-mounted
   * read-only from a fresh host directory, then `docker start -a`. Local engine only, as the
   * mount probe tells (mounts.ts `directoryAccess`: the engine sees this process and the file in
   * the snippet root); any other engine is refused, saying why, before anything is written.
   */
  private async direct(): Promise<RunResult> {
    if (this.req.interactive) throw noShellInteractive(this.profile.image);
    if ((await engineSpec(this.opts)).engine === 'podman') throw noShellOnPodman(this.profile.image);
    const root = this.req.tempRoot ?? tmpdir();
    const access = await directoryAccess(root, this.profile.image, this.req.profileName, { docker: this.opts });
    if (access.kind !== 'pinned') throw noShellElsewhere(this.profile.image, access);
    const pins = await this.pin();
    const snippet = await writeSnippet(this.code, snippetFileName(this.profile, this.req.sourceFileName), root);
    this.disposers.push(() => snippet.dispose().catch(() => undefined));
    if (this.stopper.reason) return this.finish(this.stopper.reason, null);
    const argv = buildCreateArgv({ ...(await this.containerSpec(pins.mounts)), snippetHostDir: snippet.dir, snippetFileName: snippet.fileName, args: this.req.args ?? [] });
    this.req.onArgv?.(argv);
    let exists = false;
    try {
      await createContainer(this.opts, argv, this.profile.image, (e) => (exists = e));
      const snippetBind = { source: snippet.dir, target: SNIPPET_DIR, readOnly: true };
      await checkCreated(this.opts, this.name, { profile: this.profile, mounts: pins.mounts, snippetBind });
    } catch (e) {
      if (exists) void scheduleRemoval(this.opts, this.name).catch(() => undefined);
      throw e;
    }
    return this.directStart();
  }

  /** Starts the created container attached; the first output starts the pids watch. */
  private async directStart(): Promise<RunResult> {
    const lease = openDirectLease(this.opts, this.name);
    this.stopper.bind(lease);
    this.stderrTailWanted = true;
    let watching = false;
    lease.consume((stream, chunk) => {
      if (!watching) void this.pids.start(this.opts, lease.name);
      watching = true;
      this.onChunk(stream, chunk);
    });
    this.stopper.running = true;
    const exit = await lease.exit;
    const done = await this.afterExit(lease, exit);
    if (typeof done === 'string') throw new SandboxError('start-failed', 'The container could not start.', 'Check the image and the engine (docker info), then run again.');
    return done;
  }

  /** Any failure: the stop's outcome when stopped, else `failed-to-start` with the error. */
  private async failed(e: unknown): Promise<RunResult> {
    if (this.stopper.reason) return this.finish(this.stopper.reason, null);
    const error: SandboxErrorInfo = isSandboxError(e)
      ? e.toInfo()
      : { code: 'engine-error', message: `Unexpected failure: ${String(e)}.`, fix: 'Report this with the output above.', detail: '' };
    return this.result('failed-to-start', null, error);
  }

  private result(outcome: RunOutcome, exitCode: number | null, error?: SandboxErrorInfo, oomKilledChild = false): RunResult {
    const durationMs = performance.now() - this.t0;
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
      message: describeOutcome(outcome, { exitCode, durationMs, profile, overflowStream: this.overflowStream, error, rule }),
      containerName: this.name,
      ...(ran && profile.runtime ? { runtime: profile.runtime } : {}),
      ...(rule ? { rule } : {}),
      ...(error ? { error } : {}),
      ...(this.cleanupError ? { cleanupError: this.cleanupError } : {}),
    };
  }
}

/** The last byte of the code frame for `code` (its header's newline when the code is empty; the `end` line's newline with program arguments). */
function lastFrameByte(code: string | Uint8Array, args: readonly string[]): number {
  if (args.length > 0) return 0x0a;
  const bytes = typeof code === 'string' ? Buffer.from(code, 'utf8') : code;
  return bytes.length > 0 ? bytes[bytes.length - 1]! : 0x0a;
}

/** A terminal run refused: the image has no `stty`, so its terminal could not carry the code unchanged. */
function noStty(image: string): SandboxError {
  return new SandboxError(
    'start-failed',
    `The image "${image}" has no "stty", which an interactive run with a terminal needs to receive the code unchanged (the terminal would otherwise echo it and act on control bytes), so nothing ran.`,
    'Use an image with stty (coreutils or busybox) for this profile, or run it without a terminal (interactive input over a pipe).',
  );
}

/** A terminal run refused: the image has no `sh` for the launcher. */
function ttyNeedsShell(image: string): SandboxError {
  return new SandboxError(
    'start-failed',
    `The image "${image}" has no "sh", which an interactive run with a terminal needs to receive the code, so nothing ran.`,
    'Use an image with a shell (sh) and stty for this profile, or run it without interactive input.',
  );
}

/** An interactive run refused on the direct path (images without `sh`): no launcher, no stdin. */
function noShellInteractive(image: string): SandboxError {
  return new SandboxError(
    'start-failed',
    `The image "${image}" has no "sh" to receive the code over stdin, and its code runs directly without one, with no live input, so the interactive run was refused and nothing ran.`,
    'Use an image with a shell (sh) for this profile, or run it without interactive input.',
  );
}

/** The direct path refused: the image has no `sh`, and the engine is not one that sees this process and its files. */
/** The direct path on Podman: its floor is proved through the running process (podmanProof.ts), too late there. */
function noShellOnPodman(image: string): SandboxError {
  return new SandboxError(
    'start-failed',
    `The image "${image}" has no "sh" to receive the code over stdin, and on Podman the container that would run the code directly cannot be checked before the program starts (its capabilities and namespaces are proved through a running process), so nothing ran.`,
    'Use an image with a shell (sh) for this profile, or run it with the docker CLI on a local engine.',
  );
}

function noShellElsewhere(image: string, access: MountAccess & { readonly engine: string }): SandboxError {
  const why = access.kind === 'refused'
    ? `${access.engine} cannot see this machine's files to mount it instead: ${access.why}`
    : `${access.engine} does not see this process (it is not on this machine, or in another pid namespace), and the code is mounted from this machine on a local engine only`;
  return new SandboxError(
    'start-failed',
    `The image "${image}" has no "sh" to receive the code over stdin, and ${why}, so nothing ran.`,
    'Use an image with a shell (sh) for this profile, or run it on a local Docker engine.',
  );
}
