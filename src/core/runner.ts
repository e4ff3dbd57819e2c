/**
 * The core runner: one snippet, one fresh container, streamed bounded output, a timeout and
 * cancel, and a typed result. Flow: validate mounts → write snippet → `docker create` (with the
 * image's VOLUME check in parallel) → `docker start -a` (streamed; the launcher's preamble is read
 * off stderr, see launcher.ts) → `docker inspect` (exit code, OOMKilled; skipped when the program
 * exited 0) → `docker rm -f -v`. Cancel and timeout first interrupt the program's process group
 * (SIGINT, SIGTERM) and remove the container after `limits.interruptGraceSeconds`; a forced
 * cancel and an output overflow remove it at once. Removal (`docker rm -f -v`) ends every process
 * in the container. No `vscode` import here.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { buildCreateArgv } from './argv';
import { createContainer } from './create';
import { engineKind, engineSpec } from './engineKind';
import {
  dockerBinary, dockerMissing, inspectState, removeContainer, signalContainer, spawnErrno, spawnOptions, tail, type DockerOptions,
} from './docker';
import { isSandboxError, SandboxError, type SandboxErrorInfo } from './errors';
import { ownerLabels } from './labels';
import { PreambleReader } from './launcher';
import { resolveMounts, type PinnedMounts } from './mounts';
import { BoundedStream, type OutputSink } from './output';
import { PidsWatch } from './pidsEvidence';
import { ProfileSchema, type Profile } from './profile';
import { PROFILES_SETTING, toProfileIssues } from './profiles';
import type { RunOutcome, RunResult } from './result';
import { sandboxRule, signalFromExitCode, type RuleNote } from './rules';
import { snippetCode, snippetFileName, writeSnippet, type SnippetFile } from './snippet';
import type { WarmPool } from './warm';

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
  /** Receives the `docker create` argv before it runs (for debug logs). */
  readonly onArgv?: (argv: readonly string[]) => void;
  /** Parent directory for the per-run snippet directory (default: the OS temp dir). */
  readonly tempRoot?: string;
  /**
   * A warm pool: when it holds a ready container for this profile, the run takes it (the code
   * goes over stdin) instead of creating one; outcomes, bounds and cleanup are the same.
   */
  readonly warm?: WarmPool;
}

type StopReason = 'timed-out' | 'cancelled' | 'output-limit';

/** Re-inspections of a SIGKILLed container whose `OOMKilled` flag is not set yet, and their spacing (ms). */
const OOM_RECHECKS = 4;
const OOM_RECHECK_MS = 50;

/** Grace for `docker start -a` to exit after its container was removed, ms. */
const ATTACH_EXIT_GRACE_MS = 5000;

/**
 * Profiles whose cold launcher could not start (no `sh` in the image, as the profile's env, workdir
 * and mounts leave it): their cold runs exec the command directly, where an exit 127 is the
 * program's own. Process-wide, keyed by the whole validated profile, so a profile that hides `sh`
 * (a PATH, a mount over /bin) sends only itself to the direct path, never other profiles of the image.
 */
const profilesWithoutShell = new Set<string>();

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
 * Never throws for run failures (they are results: `failed-to-start`, `engine-error`); the
 * container and the snippet directory are gone when the promise resolves, whatever the outcome,
 * unless the engine itself became unreachable (`cleanupError` is then set).
 */
export async function runInSandbox(req: RunRequest): Promise<RunResult> {
  const t0 = performance.now();
  // Defence in depth: the argv builder trusts its profile, so a caller that skipped validation
  // (or mutated a validated profile, e.g. network "host") must not reach docker with it.
  const checked = ProfileSchema.safeParse(req.profile);
  const runId = randomUUID();
  let name = `sandbox-runner-${runId}`;
  if (!checked.success) {
    const issues = toProfileIssues(`${PROFILES_SETTING}.${req.profileName}`, checked.error);
    const error: SandboxErrorInfo = {
      code: 'invalid-profile',
      message: `The profile "${req.profileName}" is invalid: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}.`,
      fix: 'Fix the profile in your settings and run again.',
      detail: '',
    };
    const none = { bytesKept: 0, truncated: false };
    return {
      outcome: 'failed-to-start', exitCode: null, signal: null, durationMs: performance.now() - t0,
      stdout: none, stderr: none, message: `${error.message} ${error.fix}`, containerName: name, error,
    };
  }
  const profile: Profile = checked.data;
  const code = snippetCode(req.code, profile.lineEndings);
  const opts = req.docker ?? {};
  const sink: OutputSink = req.onOutput ?? (() => undefined);
  const streams = {
    stdout: new BoundedStream('stdout', profile.limits.outputBytes, sink),
    stderr: new BoundedStream('stderr', profile.limits.outputBytes, sink),
  };
  /** Direct runs only: the last stderr text, for a start failure's detail. */
  let stderrTail = '';

  let stopReason: StopReason | undefined;
  let overflowStream: string | undefined;
  let programEnded = false;
  // Whether the container exists, settled once that is known (create finished, or it never will
  // be made). A stop before that point waits for it, so a container created after a cancel or a
  // timeout is still removed.
  let settleCreated: (exists: boolean) => void = () => undefined;
  const created = new Promise<boolean>((resolve) => (settleCreated = resolve));
  let removal: Promise<void> | undefined;
  let removing = false;
  let running = false;
  let cleanupError: string | undefined;
  let snippet: SnippetFile | undefined;
  const pids = new PidsWatch();
  let oomKilledChild = false;
  // Open descriptors pinning the checked mount sources; held until the run ends (see mounts.ts).
  let pins: PinnedMounts | undefined;

  const remove = () => {
    removal ??= created.then(async (exists) => {
      if (exists) await removeContainer(opts, name);
    });
    return removal;
  };
  let attachProc: { kill(signal: NodeJS.Signals): boolean } | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const removeNow = () => {
    clearTimeout(graceTimer);
    if (removing) return;
    removing = true;
    remove()
      .catch(() => undefined) // the error is collected again by `finish`
      .finally(() => {
        // With its container gone the attached CLI ends by itself; force it after a grace period.
        if (attachProc) killTimer = setTimeout(() => attachProc?.kill('SIGKILL'), ATTACH_EXIT_GRACE_MS);
      });
  };
  // Cancel and timeout interrupt first, as a terminal would (the program may clean up), then
  // remove; an output overflow, a program not running yet, or a zero grace remove at once.
  const stop = (reason: StopReason) => {
    if (stopReason || programEnded) return;
    stopReason = reason;
    const graceMs = reason === 'output-limit' || !running ? 0 : profile.limits.interruptGraceSeconds * 1000;
    if (graceMs === 0) return removeNow();
    graceTimer = setTimeout(removeNow, graceMs);
    void signalContainer(opts, name, reason === 'timed-out' ? 'SIGTERM' : 'SIGINT').then((delivered) => delivered || removeNow());
  };

  const result = (outcome: RunOutcome, exitCode: number | null, error?: SandboxErrorInfo): RunResult => {
    const durationMs = performance.now() - t0;
    const ran = outcome !== 'failed-to-start' && outcome !== 'engine-error';
    const rule = ran ? sandboxRule(outcome, exitCode, profile, { refusedForks: pids.refusedForks, oomKilledChild }) : undefined;
    return {
      outcome,
      exitCode,
      signal: ran ? signalFromExitCode(exitCode) : null,
      durationMs,
      stdout: { bytesKept: streams.stdout.bytesKept, truncated: streams.stdout.truncated },
      stderr: { bytesKept: streams.stderr.bytesKept, truncated: streams.stderr.truncated },
      message: describeOutcome(outcome, { exitCode, durationMs, profile, overflowStream, error, rule }),
      containerName: name,
      ...(rule ? { rule } : {}),
      ...(error ? { error } : {}),
      ...(cleanupError ? { cleanupError } : {}),
    };
  };

  if (req.signal?.aborted) return result('cancelled', null);
  const onAbort = () => stop('cancelled');
  // Forced: no interrupt (no `docker kill` racing the removal), straight to removal.
  const onForce = () => {
    if (programEnded) return;
    stopReason ??= 'cancelled';
    removeNow();
  };
  req.signal?.addEventListener('abort', onAbort, { once: true });
  req.forceSignal?.addEventListener('abort', onForce, { once: true });
  const timer = setTimeout(() => stop('timed-out'), profile.limits.timeoutSeconds * 1000);
  // A retry runs the same request again (its own timer and listeners): this attempt lets go first.
  const retry = async (next: RunRequest) => {
    programEnded = true;
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onAbort);
    req.forceSignal?.removeEventListener('abort', onForce);
    settleCreated(false);
    await remove().catch(() => undefined);
    return runInSandbox(next);
  };

  const finish = async (outcome: RunOutcome, exitCode: number | null, error?: SandboxErrorInfo) => {
    // Every path reaches here after `docker create` settled, or without ever starting it.
    settleCreated(false);
    try {
      await remove();
    } catch (e) {
      cleanupError = isSandboxError(e) ? `${e.message} ${e.fix}` : String(e);
    }
    return result(outcome, exitCode, error);
  };

  try {
    const warm = req.warm?.take(req.profileName, profile, req.sourceFileName);
    // The launcher's preamble tells whether the program started; images without `sh` run direct.
    const shellKey = JSON.stringify(profile);
    const preamble = warm || !profilesWithoutShell.has(shellKey) ? new PreambleReader() : undefined;
    let attachArgs: string[];
    if (warm) {
      // Warm path: the container is running, blocked in the launcher until its stdin closes.
      name = warm.name;
      settleCreated(true);
      // Podman's warm containers wait unstarted (see WarmContainer.started).
      attachArgs = warm.started === false ? ['start', '--attach', '--interactive', name] : ['attach', '--sig-proxy=false', name];
    } else {
      pins = await resolveMounts(req.profileName, profile, req.protectedPaths, { docker: opts });
      snippet = await writeSnippet(code, snippetFileName(profile, req.sourceFileName), req.tempRoot);
      const argv = buildCreateArgv({
        name,
        profile,
        snippetHostDir: snippet.dir,
        snippetFileName: snippet.fileName,
        mounts: pins.mounts,
        labels: ownerLabels(runId, req.profileName),
        launcher: preamble !== undefined,
        ...(await engineSpec(opts)),
      });
      req.onArgv?.(argv);

      // Stopped while the mounts were checked or the snippet written: create nothing.
      if (stopReason) return await finish(stopReason, null);
      // A failed create or check while stopped ends as the stop (see the catch below); the
      // container, if it exists, is removed by `finish`.
      await createContainer(opts, argv, profile.image, settleCreated);
      if (stopReason) return await finish(stopReason, null);

      attachArgs = ['start', '--attach', name];
    }
    const attach = execa(dockerBinary(opts), attachArgs, { ...spawnOptions(opts, attachArgs), stdin: warm ? 'pipe' : 'ignore', buffer: false });
    running = true;
    if (warm) {
      attach.stdin?.on('error', () => undefined); // EPIPE when the container was removed meanwhile
      attach.stdin?.end(code);
    }
    const onChunk = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      // Only a run without the launcher needs a text tail (the engine's words when it never
      // started); with it, the preamble reader keeps those apart from program output.
      if (stream === 'stderr' && !preamble) stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4000);
      if (streams[stream].push(chunk)) {
        overflowStream = stream;
        sink('notice', `\n[sandbox-runner] ${stream} passed its limit of ${profile.limits.outputBytes} bytes; stopping the run.\n`);
        stop('output-limit');
      }
    };
    // Without the launcher there is no preamble: the first output shows the program is running.
    let watching = false;
    const watchOnOutput = () => {
      if (preamble || watching) return;
      watching = true;
      void pids.start(opts, name);
    };
    attach.stdout?.on('data', (chunk: Buffer) => {
      watchOnOutput();
      onChunk('stdout')(chunk);
    });
    attach.stderr?.on('data', (chunk: Buffer) => {
      watchOnOutput();
      if (!preamble) return onChunk('stderr')(chunk);
      const before = preamble.verdict;
      const program = preamble.push(chunk);
      // The program is starting: watch its pids cgroup while it lives (evidence for limits.pids).
      if (before === 'pending' && preamble.verdict === 'ready') void pids.start(opts, name, warm?.pid);
      if (program.length > 0) onChunk('stderr')(program);
    });
    attachProc = attach;
    const attached = await attach;
    attachProc = undefined;
    clearTimeout(killTimer);
    preamble?.end();
    await pids.stop();
    // Stopped, but the program ended within the grace period: its own status is worth showing.
    const ownStatus = stopReason && !removing && typeof attached.exitCode === 'number' ? attached.exitCode : null;
    if (!stopReason) programEnded = true;

    if (stopReason) return await finish(stopReason, ownStatus);
    const errno = spawnErrno(attached);
    if (errno) throw dockerMissing(opts, errno);
    const launcherText = tail(preamble?.heldText() ?? '');
    if (preamble?.verdict === 'no-command') {
      throw new SandboxError(
        'start-failed',
        `The profile's command "${profile.command[0]}" was not found in the image "${profile.image}", so nothing ran.`,
        'Check that the command exists in the image (e.g. python3 in a Python image), or fix the profile\'s "command".',
        launcherText,
      );
    }
    if (preamble?.verdict === 'absent') {
      // The launcher never said "ready": no code ran, whatever the streams held (the init
      // process's or the CLI's own words, e.g. a warm container removed behind the pool's back).
      if (warm) return await retry({ ...req, warm: undefined });
      const state = await inspectState(opts, name);
      // Podman's init (catatonit) exits 1 when it cannot exec, where docker-init (tini) exits 126/127.
      const initFailed = [126, 127, ...((await engineKind(opts)) === 'podman' ? [1] : [])];
      if (state.started && state.status === 'exited' && initFailed.includes(state.exitCode)) {
        // docker-init could not exec `sh`: run this profile's command directly from now on.
        profilesWithoutShell.add(shellKey);
        return await retry(req);
      }
      if (state.started) {
        throw new SandboxError(
          'start-failed',
          `The sandbox launcher stopped before the program started (container ${state.status}, exit code ${state.exitCode}).`,
          'Check the image (it needs a working "sh", or none at all) and the engine (docker info), then run again.',
          launcherText,
        );
      }
    }
    // The attached CLI exits with the container's own status; 0 means the program started and
    // exited 0, so `docker inspect` (start failure, OOM kill) has nothing to add: skip it (~15 ms).
    if (attached.exitCode === 0 && !attached.failed) return await finish('exited', 0);

    let state;
    try {
      state = await inspectState(opts, name);
    } catch (e) {
      const info = isSandboxError(e) ? e.toInfo() : undefined;
      return await finish('engine-error', null, {
        code: info?.code ?? 'engine-error',
        message: `The program's status could not be read: ${info?.message ?? String(e)}`,
        fix: info?.fix ?? 'Check the Docker engine (docker info) and run again.',
        detail: info?.detail ?? '',
      });
    }
    if (!state.started) {
      throw new SandboxError(
        'start-failed',
        `The container could not start (state "${state.status}"): ${state.error || 'no reason given by the engine'}.`,
        'Check that the profile\'s command exists in the image and that the image runs as a non-root user.',
        preamble ? launcherText : tail(stderrTail),
      );
    }
    if (state.status !== 'exited') {
      // The attached CLI ended while the program still ran (engine connection lost, CLI killed):
      // its exit code is not the program's. The container is removed below.
      const how = attached.signal ? `was killed by ${attached.signal}` : `ended with status ${attached.exitCode ?? 'unknown'}`;
      return await finish('engine-error', null, {
        code: 'engine-error',
        message: `The connection to the program was lost: "docker ${attachArgs.slice(0, 2).join(' ')}" ${how} while the container was ${state.status}.`,
        fix: 'Check the Docker engine (docker info) and run again; the container was removed.',
        detail: '',
      });
    }
    // The engine learns of an OOM kill from a separate event that can land just after the exit:
    // for a SIGKILL status, look again briefly before calling it a plain exit.
    for (let i = 0; i < OOM_RECHECKS && state.exitCode === 137 && !state.oomKilled; i++) {
      await new Promise((r) => setTimeout(r, OOM_RECHECK_MS));
      state = await inspectState(opts, name).catch(() => state!);
    }
    // OOM-killed is the outcome only when the program itself died of it (SIGKILL); a child killed
    // by the OOM killer leaves the program's own status, with the memory rule named beside it.
    if (state.oomKilled && state.exitCode === 137) return await finish('oom-killed', state.exitCode);
    oomKilledChild = state.oomKilled;
    return await finish('exited', state.exitCode);
  } catch (e) {
    if (stopReason) return await finish(stopReason, null);
    const error: SandboxErrorInfo = isSandboxError(e)
      ? e.toInfo()
      : { code: 'engine-error', message: `Unexpected failure: ${String(e)}.`, fix: 'Report this with the output above.', detail: '' };
    return await finish('failed-to-start', null, error);
  } finally {
    clearTimeout(timer);
    clearTimeout(graceTimer);
    req.signal?.removeEventListener('abort', onAbort);
    req.forceSignal?.removeEventListener('abort', onForce);
    await snippet?.dispose().catch(() => undefined);
    await pins?.dispose();
  }
}
