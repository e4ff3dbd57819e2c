/**
 * Which sandbox rule ended or broke a run, and which profile key changes it (SECURITY.md, "The
 * floor"). Evidence decides the wording: what the engine or the kernel reported (the timeout and
 * output bound the runner enforced itself, the OOM flag, refused forks in the pids cgroup) is
 * stated as a fact; an exit status alone is something the program controls (`exit 153` looks
 * exactly like death by SIGXFSZ), so a rule read from it is worded as a hint. Nothing here reads
 * program output; the one piece of evidence taken from it (readOnlyHint.ts: a failed write to a
 * read-only file system in the program's last error lines) only ever gives a hint.
 */
import { SANDBOX_HOME } from '../layout';
import type { Profile } from '../profiles/profileSchema';
import type { ReadOnlyWrite } from './readOnlyHint';
import type { RuleNote, RunOutcome } from './result';

/** What the runner observed beyond the exit status (never program output). */
export interface RunEvidence {
  /** Forks or threads the pids cgroup refused during the run (`pids.events` max). */
  readonly refusedForks?: number;
  /** The engine's OOM flag was set, although the program itself exited with another status. */
  readonly oomKilledChild?: boolean;
  /**
   * The read-only place the program's last error lines name (readOnlyHint.ts): program text, so
   * it only words a hint, after a non-zero exit; `workspaceTarget` tells the workspace mount apart.
   */
  readonly readOnlyWrite?: ReadOnlyWrite;
  /** The container path of a `workspace: "ro"` run's folder, if any. */
  readonly workspaceTarget?: string;
}

/**
 * The hint for a failed write to a read-only place (issue 25): which rule, where writing works,
 * and the profile key that changes it. Never quotes the program's text.
 */
function readOnlyNote(w: ReadOnlyWrite, profile: Profile, workspaceTarget?: string): RuleNote {
  const lead = 'The program\'s last error names a write to a read-only file system (a hint from its output):';
  const places = `write under /tmp or HOME (${SANDBOX_HOME})`;
  if (w.kind === 'root') {
    return {
      key: 'mounts',
      certain: false,
      text: `${lead} the root filesystem is read-only; ${places} or the working directory (${profile.workdir}), or mount a folder (the profile's mounts, "mode": "rw").`,
    };
  }
  if (w.target === workspaceTarget) {
    return { key: 'workspace', certain: false, text: `${lead} the workspace folder is mounted read-only at ${w.target} (the profile's "workspace": "ro"); ${places}, or mount a folder (the profile's mounts, "mode": "rw").` };
  }
  return { key: 'mounts', certain: false, text: `${lead} the mount at ${w.target} is read-only; set its "mode" to "rw" in the profile's mounts, or ${places}.` };
}

/**
 * Linux's signal numbers 1–31 (x86, Arm; `signal(7)`), index = number − 1. The container runs on
 * Linux whatever the client OS, so its 128+N statuses are read with this table, never with
 * `os.constants.signals`, which is the client's: on macOS 7 is SIGEMT and 10 SIGBUS, on Windows
 * only a few signals exist and SIGABRT is 22 (issue 15, "Exit statuses map the same way").
 */
const LINUX_SIGNALS: readonly NodeJS.Signals[] = [
  'SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGILL', 'SIGTRAP', 'SIGABRT', 'SIGBUS', 'SIGFPE', 'SIGKILL', 'SIGUSR1', 'SIGSEGV',
  'SIGUSR2', 'SIGPIPE', 'SIGALRM', 'SIGTERM', 'SIGSTKFLT', 'SIGCHLD', 'SIGCONT', 'SIGSTOP', 'SIGTSTP', 'SIGTTIN',
  'SIGTTOU', 'SIGURG', 'SIGXCPU', 'SIGXFSZ', 'SIGVTALRM', 'SIGPROF', 'SIGWINCH', 'SIGIO', 'SIGPWR', 'SIGSYS',
];

/** Name of the Linux signal N for a container's 128+N exit status (N from 1 to 31), or null; the same on every client OS. */
export function signalFromExitCode(code: number | null): NodeJS.Signals | null {
  if (code === null || code <= 128 || code > 128 + LINUX_SIGNALS.length) return null;
  return LINUX_SIGNALS[code - 129] ?? null;
}

/** The usual sandbox cause of a death by signal, as a hint (the status alone proves nothing). */
function signalCause(signal: NodeJS.Signals, profile: Profile): { key: string; text: string } | undefined {
  const l = profile.limits;
  switch (signal) {
    case 'SIGXFSZ':
      return {
        key: 'limits.fileSizeMiB',
        text: `the file-size limit limits.fileSizeMiB (${l.fileSizeMiB} MiB, also the largest /dev/shm block) is the usual cause`,
      };
    case 'SIGBUS':
      return {
        key: 'limits.shmMiB',
        text: `running out of shared memory (/dev/shm is limits.shmMiB, ${l.shmMiB} MiB) is the usual cause in the sandbox`,
      };
    case 'SIGKILL':
      return { key: 'limits.memoryMiB', text: `the memory limit limits.memoryMiB (${l.memoryMiB} MiB) is a usual cause, though the engine reported no OOM kill` };
    default:
      return undefined;
  }
}

/**
 * The rule behind a result, or undefined for a run the sandbox did not end or break.
 * @param exitCode the program's status (for `cancelled`/`timed-out`: when it exited within the grace period)
 */
export function sandboxRule(outcome: RunOutcome, exitCode: number | null, profile: Profile, evidence: RunEvidence = {}): RuleNote | undefined {
  const l = profile.limits;
  if (evidence.refusedForks && evidence.refusedForks > 0) {
    return {
      key: 'limits.pids',
      certain: true,
      text: `The process limit limits.pids (${l.pids}, threads count too) refused ${evidence.refusedForks} new process${evidence.refusedForks === 1 ? '' : 'es'} or thread${evidence.refusedForks === 1 ? '' : 's'} during the run.`,
    };
  }
  if (evidence.oomKilledChild && outcome === 'exited') {
    return {
      key: 'limits.memoryMiB',
      certain: true,
      text: `The memory limit limits.memoryMiB (${l.memoryMiB} MiB, no swap) killed a process of the run (the engine reported an OOM kill); the program's own exit status stands.`,
    };
  }
  switch (outcome) {
    case 'timed-out':
      return { key: 'limits.timeoutSeconds', certain: true, text: `The wall-clock limit limits.timeoutSeconds (${l.timeoutSeconds} s) ended the run.` };
    case 'output-limit':
      return { key: 'limits.outputBytes', certain: true, text: `The output bound limits.outputBytes (${l.outputBytes} bytes per stream) ended the run.` };
    case 'oom-killed':
      return { key: 'limits.memoryMiB', certain: true, text: `The memory limit limits.memoryMiB (${l.memoryMiB} MiB, no swap) ended the run: the engine reported an OOM kill.` };
    case 'exited': {
      if (evidence.readOnlyWrite && exitCode !== 0 && exitCode !== null) return readOnlyNote(evidence.readOnlyWrite, profile, evidence.workspaceTarget);
      const signal = signalFromExitCode(exitCode);
      if (!signal) return undefined;
      const cause = signalCause(signal, profile);
      return {
        key: cause?.key,
        certain: false,
        text: `Exit ${exitCode} is how a process killed by ${signal} ends${cause ? `; ${cause.text}` : ''}.`,
      };
    }
    default:
      return undefined;
  }
}
