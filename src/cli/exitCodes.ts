/** Exit statuses of `sandbox-run` for outcomes other than a normal program exit. */
import type { RunResult } from '../core';

/** Documented exit statuses (see `sandbox-run --help` and the README). */
export const EXIT = {
  /** Bad command line, unknown or invalid profile. */
  usage: 2,
  /** The profile's compile step failed; the program never ran (sysexits EX_DATAERR: the input did not compile). */
  compileFailed: 65,
  /** Wall-clock limit expired (as timeout(1)). */
  timedOut: 124,
  /** Nothing ran: engine, image or profile problem (as `docker run`). */
  failedToStart: 125,
  /** The engine failed after the program started. */
  engineError: 126,
  /** Ctrl-C / SIGTERM (128 + SIGINT). */
  cancelled: 130,
  /** Killed by the OOM killer (128 + SIGKILL). */
  oomKilled: 137,
  /** Output bound exceeded, or the reader of our output went away (128 + SIGPIPE). */
  outputLimit: 141,
} as const;

/** The exit status of each outcome other than the program's own exit. */
const OUTCOME_EXIT: Readonly<Record<Exclude<RunResult['outcome'], 'exited'>, number>> = {
  'timed-out': EXIT.timedOut,
  cancelled: EXIT.cancelled,
  'output-limit': EXIT.outputLimit,
  'oom-killed': EXIT.oomKilled,
  'failed-to-start': EXIT.failedToStart,
  'engine-error': EXIT.engineError,
  'compile-failed': EXIT.compileFailed,
};

/** The process exit status for a result: the program's status when it exited by itself. */
export function exitCodeFor(result: RunResult): number {
  return result.outcome === 'exited' ? (result.exitCode ?? EXIT.engineError) : OUTCOME_EXIT[result.outcome];
}
