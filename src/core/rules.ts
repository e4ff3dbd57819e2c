/**
 * Which sandbox rule ended or broke a run, and which profile key changes it (SECURITY.md, "The
 * floor"). Evidence decides the wording: what the engine or the kernel reported (the timeout and
 * output bound the runner enforced itself, the OOM flag, refused forks in the pids cgroup) is
 * stated as a fact; an exit status alone is something the program controls (`exit 153` looks
 * exactly like death by SIGXFSZ), so a rule read from it is worded as a hint. Nothing here reads
 * program output.
 */
import { constants } from 'node:os';
import type { Profile } from './profile';
import type { RunOutcome } from './result';

/** A sandbox rule named for a run. */
export interface RuleNote {
  /** The profile key that changes the rule, e.g. `limits.fileSizeMiB`; absent for a signal alone. */
  readonly key?: string;
  /** True when the engine, the kernel or the runner showed it; false for a hint from the exit status. */
  readonly certain: boolean;
  /** One or two sentences for the summary line and the footer. */
  readonly text: string;
}

/** What the runner observed beyond the exit status (never program output). */
export interface RunEvidence {
  /** Forks or threads the pids cgroup refused during the run (`pids.events` max). */
  readonly refusedForks?: number;
  /** The engine's OOM flag was set, although the program itself exited with another status. */
  readonly oomKilledChild?: boolean;
}

/** Name of the signal N for a 128+N exit status, or null. */
export function signalFromExitCode(code: number | null): NodeJS.Signals | null {
  if (code === null || code <= 128 || code > 128 + 64) return null;
  const n = code - 128;
  const entry = Object.entries(constants.signals).find(([, v]) => v === n);
  return entry ? (entry[0] as NodeJS.Signals) : null;
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
