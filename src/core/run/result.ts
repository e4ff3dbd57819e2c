/**
 * The typed result of a run. UIs switch on `outcome`; nothing parses `message`.
 */
import type { SandboxErrorInfo } from '../errors';

/**
 * How a run ended.
 * - `exited`: the program ended by itself; `exitCode` is its status.
 * - `timed-out`: the wall-clock limit expired; the container was removed.
 * - `cancelled`: the caller's AbortSignal fired; the container was removed.
 * - `output-limit`: stdout or stderr passed its byte bound; the container was removed.
 * - `oom-killed`: the kernel's OOM killer ended a process (docker `State.OOMKilled`).
 * - `failed-to-start`: nothing ran: a preflight check or `docker create/start` failed (`error` says why).
 * - `engine-error`: the program started, but the engine failed before its status could be read.
 * - `compile-failed`: the profile's `compile` step exited non-zero (issue 23); `exitCode` is the
 *   compiler's status and the program never ran.
 */
export type RunOutcome =
  | 'exited'
  | 'timed-out'
  | 'cancelled'
  | 'output-limit'
  | 'oom-killed'
  | 'failed-to-start'
  | 'engine-error'
  | 'compile-failed';

/** Per-stream byte counts. */
export interface StreamStats {
  /** Bytes delivered to the sink (at most the bound). */
  readonly bytesKept: number;
  /** True when the stream passed its bound and the rest was discarded. */
  readonly truncated: boolean;
}

/** Everything known about a finished run. */
export interface RunResult {
  readonly outcome: RunOutcome;
  /**
   * The program's exit status (`State.ExitCode`), or null when it never ran or was removed while
   * running. For `cancelled` and `timed-out`: set when the program exited by itself within the
   * interrupt grace period (`limits.interruptGraceSeconds`).
   */
  readonly exitCode: number | null;
  /**
   * The signal the 128+N status names (the init process, `--init`, reports a child killed by
   * signal N that way); null otherwise. A program can exit with such a status itself, so this is
   * what the status says, not proof.
   */
  readonly signal: NodeJS.Signals | null;
  /** The sandbox rule that ended or broke the run and the profile key that changes it, when there is one. */
  readonly rule?: RuleNote;
  /**
   * For a profile with `compile` (issue 23): the step the run ended in, `compile` (the compiler
   * was running or failed) or `run` (the program had started). Absent for other profiles and for
   * runs that never reached the compile step.
   */
  readonly phase?: 'compile' | 'run';
  /** Wall-clock milliseconds from the call to the result (container removal included). */
  readonly durationMs: number;
  readonly stdout: StreamStats;
  readonly stderr: StreamStats;
  /** Human summary in one sentence, e.g. "Exited with code 0 in 312 ms." */
  readonly message: string;
  /** The container name used (it no longer exists when the result is returned). */
  readonly containerName: string;
  /**
   * The OCI runtime the run's container used when the profile named one (e.g. "runsc"; the
   * pre-code checks proved the container has it, precheck.ts); absent: the engine's default.
   */
  readonly runtime?: string;
  /** Set for `failed-to-start` and `engine-error`. */
  readonly error?: SandboxErrorInfo;
  /** Set when the container could not be removed (e.g. the engine went away); the orphan sweep retries. */
  readonly cleanupError?: string;
}

/** A sandbox rule named for a run (rules.ts `sandboxRule` decides it). */
export interface RuleNote {
  /** The profile key that changes the rule, e.g. `limits.fileSizeMiB`; absent for a signal alone. */
  readonly key?: string;
  /** True when the engine, the kernel or the runner showed it; false for a hint from the exit status. */
  readonly certain: boolean;
  /** One or two sentences for the summary line and the footer. */
  readonly text: string;
}
