/**
 * The core runner: one snippet, one fresh container, streamed bounded output, a timeout and
 * cancel, and a typed result. Flow: validate mounts → write snippet → `docker create` (with the
 * image's VOLUME check in parallel) → `docker start -a` (streamed) → `docker inspect` (exit code,
 * OOMKilled; skipped when the program exited 0) → `docker rm -f -v`. Timeout, cancel and output
 * overflow all take the same path: `docker rm -f -v`, which ends every process in the container.
 * No `vscode` import here.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:os';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { buildCreateArgv } from './argv';
import { createContainer } from './create';
import {
  dockerBinary, dockerMissing, inspectState, removeContainer, spawnErrno, spawnOptions, tail, type DockerOptions,
} from './docker';
import { isSandboxError, SandboxError, type SandboxErrorInfo } from './errors';
import { ownerLabels } from './labels';
import { resolveMounts, type PinnedMounts } from './mounts';
import { BoundedStream, type OutputSink } from './output';
import { ProfileSchema, type Profile } from './profile';
import { PROFILES_SETTING, toProfileIssues } from './profiles';
import type { RunOutcome, RunResult } from './result';
import { snippetFileName, writeSnippet, type SnippetFile } from './snippet';
import type { WarmPool } from './warm';

/** One run's input. */
export interface RunRequest {
  /** Profile name, for labels and messages. */
  readonly profileName: string;
  /** A validated profile (see `resolveProfiles`); validated again here, an invalid one never runs. */
  readonly profile: Profile;
  /** The code to run: text (written as UTF-8) or a file's bytes, passed on unchanged. */
  readonly code: string | Uint8Array;
  /** The source file name (or untitled name); only its extension is used. */
  readonly sourceFileName?: string;
  /** Receives stdout/stderr text as it arrives, and runner notices (e.g. truncation). */
  readonly onOutput?: OutputSink;
  /** Cancels the run: the container is removed and the outcome is `cancelled`. */
  readonly signal?: AbortSignal;
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

/** How long the warm path holds stderr back before the attach is known to be good, ms. */
const HOLD_STDERR_MS = 250;

/** Grace for `docker start -a` to exit after its container was removed, ms. */
const ATTACH_EXIT_GRACE_MS = 5000;

/** Name of the signal N for a 128+N exit status, or null. */
export function signalFromExitCode(code: number | null): NodeJS.Signals | null {
  if (code === null || code <= 128 || code > 128 + 64) return null;
  const n = code - 128;
  const entry = Object.entries(constants.signals).find(([, v]) => v === n);
  return entry ? (entry[0] as NodeJS.Signals) : null;
}

/** The one-sentence summary of a result. */
export function describeOutcome(
  outcome: RunOutcome,
  facts: { exitCode: number | null; durationMs: number; profile: Profile; overflowStream?: string; error?: SandboxErrorInfo },
): string {
  const ms = Math.round(facts.durationMs);
  switch (outcome) {
    case 'exited':
      return `Exited with code ${facts.exitCode} in ${ms} ms.`;
    case 'timed-out':
      return `Timed out after ${facts.profile.limits.timeoutSeconds} s; the container was removed.`;
    case 'cancelled':
      return `Cancelled after ${ms} ms; the container was removed.`;
    case 'output-limit':
      return `Stopped because ${facts.overflowStream ?? 'output'} passed its limit of ${facts.profile.limits.outputBytes} bytes; the container was removed.`;
    case 'oom-killed':
      return `Killed by the out-of-memory killer at the ${facts.profile.limits.memoryMiB} MiB memory limit.`;
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
  const opts = req.docker ?? {};
  const sink: OutputSink = req.onOutput ?? (() => undefined);
  const streams = {
    stdout: new BoundedStream('stdout', profile.limits.outputBytes, sink),
    stderr: new BoundedStream('stderr', profile.limits.outputBytes, sink),
  };
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
  let cleanupError: string | undefined;
  let snippet: SnippetFile | undefined;
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
  const stop = (reason: StopReason) => {
    if (stopReason || programEnded) return;
    stopReason = reason;
    remove()
      .catch(() => undefined) // the error is collected again by `finish`
      .finally(() => {
        // With its container gone the attached CLI ends by itself; force it after a grace period.
        if (attachProc) killTimer = setTimeout(() => attachProc?.kill('SIGKILL'), ATTACH_EXIT_GRACE_MS);
      });
  };

  const result = (outcome: RunOutcome, exitCode: number | null, error?: SandboxErrorInfo): RunResult => {
    const durationMs = performance.now() - t0;
    return {
      outcome,
      exitCode,
      signal: outcome === 'exited' || outcome === 'oom-killed' ? signalFromExitCode(exitCode) : null,
      durationMs,
      stdout: { bytesKept: streams.stdout.bytesKept, truncated: streams.stdout.truncated },
      stderr: { bytesKept: streams.stderr.bytesKept, truncated: streams.stderr.truncated },
      message: describeOutcome(outcome, { exitCode, durationMs, profile, overflowStream, error }),
      containerName: name,
      ...(error ? { error } : {}),
      ...(cleanupError ? { cleanupError } : {}),
    };
  };

  if (req.signal?.aborted) return result('cancelled', null);
  const onAbort = () => stop('cancelled');
  req.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop('timed-out'), profile.limits.timeoutSeconds * 1000);

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
    let attachArgs: string[];
    if (warm) {
      // Warm path: the container is running, blocked in the launcher until its stdin closes.
      name = warm.name;
      settleCreated(true);
      attachArgs = ['attach', '--sig-proxy=false', name];
    } else {
      pins = await resolveMounts(req.profileName, profile, req.protectedPaths);
      snippet = await writeSnippet(req.code, snippetFileName(profile, req.sourceFileName), req.tempRoot);
      const argv = buildCreateArgv({
        name,
        profile,
        snippetHostDir: snippet.dir,
        snippetFileName: snippet.fileName,
        mounts: pins.mounts,
        labels: ownerLabels(runId, req.profileName),
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
    const attach = execa(dockerBinary(opts), attachArgs, { ...spawnOptions(opts), stdin: warm ? 'pipe' : 'ignore', buffer: false });
    if (warm) {
      attach.stdin?.on('error', () => undefined); // EPIPE when the container was removed meanwhile
      attach.stdin?.end(req.code);
    }
    const onChunk = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (stream === 'stderr') stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4000);
      if (streams[stream].push(chunk)) {
        overflowStream = stream;
        sink('notice', `\n[sandbox-runner] ${stream} passed its limit of ${profile.limits.outputBytes} bytes; stopping the run.\n`);
        stop('output-limit');
      }
    };
    // Warm path: a warm container removed behind our back (docker rm, engine restart) makes the
    // CLI print "No such container", which is not program output. Hold stderr until stdout flows,
    // HOLD_STDERR_MS pass, or the CLI exits; then either deliver it or retry on the cold path.
    let held: Buffer[] | undefined = warm ? [] : undefined;
    const release = () => {
      const chunks = held;
      held = undefined;
      for (const c of chunks ?? []) onChunk('stderr')(c);
    };
    const holdTimer = warm ? setTimeout(release, HOLD_STDERR_MS) : undefined;
    attach.stdout?.on('data', (chunk: Buffer) => {
      release();
      onChunk('stdout')(chunk);
    });
    attach.stderr?.on('data', (chunk: Buffer) => (held ? held.push(chunk) : onChunk('stderr')(chunk)));
    attachProc = attach;
    const attached = await attach;
    attachProc = undefined;
    clearTimeout(killTimer);
    clearTimeout(holdTimer);
    if (held && !stopReason && attached.exitCode !== 0 && /no such container/i.test(Buffer.concat(held).toString('utf8'))) {
      held = undefined;
      return await runInSandbox({ ...req, warm: undefined });
    }
    release();
    if (!stopReason) programEnded = true;
    streams.stdout.end();
    streams.stderr.end();

    if (stopReason) return await finish(stopReason, null);
    const errno = spawnErrno(attached);
    if (errno) throw dockerMissing(opts, errno);
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
        tail(stderrTail),
      );
    }
    // With --init, a command missing from the image is reported by docker-init (tini), or on the
    // warm path by the launcher in the same words, not by the engine.
    const execFailure = /^\[FATAL (?:tini \(\d+\)|sandbox-runner)\] exec (.*) failed: (.*)$/m.exec(stderrTail);
    if (warm && execFailure && execFailure[1] === 'sh') {
      // The image cannot run the warm launcher: remember that, and run this code on the cold path.
      await remove().catch(() => undefined);
      req.warm?.markColdOnly(profile.image, `docker-init could not exec sh: ${execFailure[2]}`);
      return await runInSandbox({ ...req, warm: undefined });
    }
    if (execFailure && (state.exitCode === 126 || state.exitCode === 127)) {
      throw new SandboxError(
        'start-failed',
        `The container started but could not run the profile's command "${execFailure[1]}": ${execFailure[2]}.`,
        'Check that the profile\'s command exists in the image (e.g. python3 in a Python image).',
        `state: ${state.status}, exit code ${state.exitCode}; ${tail(stderrTail)}`,
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
        detail: tail(stderrTail),
      });
    }
    // The engine learns of an OOM kill from a separate event that can land just after the exit:
    // for a SIGKILL status, look again briefly before calling it a plain exit.
    for (let i = 0; i < OOM_RECHECKS && state.exitCode === 137 && !state.oomKilled; i++) {
      await new Promise((r) => setTimeout(r, OOM_RECHECK_MS));
      state = await inspectState(opts, name).catch(() => state!);
    }
    if (state.oomKilled) return await finish('oom-killed', state.exitCode);
    return await finish('exited', state.exitCode);
  } catch (e) {
    if (stopReason) return await finish(stopReason, null);
    const error: SandboxErrorInfo = isSandboxError(e)
      ? e.toInfo()
      : { code: 'engine-error', message: `Unexpected failure: ${String(e)}.`, fix: 'Report this with the output above.', detail: '' };
    return await finish('failed-to-start', null, error);
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onAbort);
    await snippet?.dispose().catch(() => undefined);
    await pins?.dispose();
  }
}
