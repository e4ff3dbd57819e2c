/**
 * Exit diagnosis, a step of its own: from how the attached CLI ended, what the launcher said
 * (launcher.ts) and the engine's state, how the run ended. Never reads program output.
 */
import { engineKind, initCouldNotExec } from '../engine/engineKind';
import { classifyEngineFailure, tail } from '../engine/failures';
import { dockerMissing, spawnErrno } from '../engine/cli';
import { inspectState } from '../engine/inspect';
import type { ContainerState, DockerOptions } from '../engine/contracts';
import { isSandboxError, SandboxError, type SandboxErrorInfo } from '../errors';
import type { AttachExit, ContainerLease } from '../container/lease';
import type { Profile } from '../profiles/profileSchema';
import type { RunOutcome } from './result';

/** Re-inspections of a SIGKILLed container whose `OOMKilled` flag is not set yet, and their spacing (ms). */
const OOM_RECHECKS = 4;
const OOM_RECHECK_MS = 50;
/** Podman: looks for conmon's `oom` file after a SIGKILL status (20 × 50 ms = 1 s at most). */
const PODMAN_OOM_RECHECKS = 20;

/** How a run ended, as far as the engine tells. */
export interface Diagnosis {
  readonly outcome: RunOutcome;
  readonly exitCode: number | null;
  /** A child (not the program) was killed by the OOM killer. */
  readonly oomKilledChild?: boolean;
  readonly error?: SandboxErrorInfo;
}

/**
 * The launcher never said it waits (no code was sent). `no-shell`: docker-init could not exec
 * `sh` (exit 126/127; catatonit on Podman: 1), so this profile's image needs the direct path.
 * @throws SandboxError for every other case (engine failure before start, launcher stopped)
 */
export async function diagnoseNoLauncher(opts: DockerOptions, lease: ContainerLease, exit: AttachExit, image: string): Promise<'no-shell'> {
  const errno = spawnErrno(exit);
  if (errno) throw dockerMissing(opts, errno);
  const held = lease.launcher?.heldText() ?? '';
  const state = await inspectState(opts, lease.name).catch(() => undefined);
  if (!state || !state.started || exit.exitCode === 125) throw classifyEngineFailure(held, 'start the container', image, opts);
  if (state.status === 'exited' && (await initCouldNotExec(opts, state.exitCode))) return 'no-shell';
  throw new SandboxError(
    'start-failed',
    `The sandbox launcher stopped before the program started (container ${state.status}, exit code ${state.exitCode}).`,
    'Check the image (it needs a working "sh", or none at all) and the engine (docker info), then run again.',
    tail(held),
  );
}

/** The launcher got the code but no program started (`no-command`, or it stopped while receiving it). */
export function launcherStopped(lease: ContainerLease, profile: Profile, exit: AttachExit): SandboxError {
  const held = tail(lease.launcher?.heldText() ?? '');
  if (lease.launcher?.verdict === 'no-command') {
    return new SandboxError(
      'start-failed',
      `The profile's command "${profile.command[0]}" was not found in the image "${profile.image}", so nothing ran.`,
      'Check that the command exists in the image (e.g. python3 in a Python image), or fix the profile\'s "command".',
      held,
    );
  }
  return new SandboxError(
    'start-failed',
    `The sandbox launcher stopped before the program started (exit code ${exit.exitCode ?? 'unknown'}).`,
    'Check the image (it needs a working "sh" and "dd") and the engine (docker info), then run again.',
    held,
  );
}

/**
 * The program ran (or the direct path started): its outcome from the CLI's exit and the engine's
 * state. An exit 0 needs no inspect (the attached CLI exits with the container's status).
 * @param stderrTail direct path only: the last stderr text, the engine's words on a failed start
 */
export async function diagnoseExit(opts: DockerOptions, lease: ContainerLease, exit: AttachExit, stderrTail: string): Promise<Diagnosis> {
  if (exit.exitCode === 0 && !exit.failed) return { outcome: 'exited', exitCode: 0 };
  let state: ContainerState;
  try {
    state = await inspectState(opts, lease.name);
  } catch (e) {
    return { outcome: 'engine-error', exitCode: null, error: statusUnreadable(e) };
  }
  if (!state.started) {
    throw new SandboxError(
      'start-failed',
      `The container could not start (state "${state.status}"): ${state.error || 'no reason given by the engine'}.`,
      'Check that the profile\'s command exists in the image and that the image runs as a non-root user.',
      tail(stderrTail),
    );
  }
  if (state.status !== 'exited') return { outcome: 'engine-error', exitCode: null, error: connectionLost(lease, exit, state) };
  state = await recheckOom(opts, lease.name, state);
  // OOM-killed is the outcome only when the program itself died of it (SIGKILL); a child killed
  // by the OOM killer leaves the program's own status, with the memory rule named beside it.
  if (state.oomKilled && state.exitCode === 137) return { outcome: 'oom-killed', exitCode: 137 };
  return { outcome: 'exited', exitCode: state.exitCode, oomKilledChild: state.oomKilled };
}

/**
 * The engine learns of an OOM kill from a separate event that can land just after the exit: look
 * again briefly. Podman's signal is conmon's `oom` file, which can land later under load (measured:
 * a warm run's missed the 200 ms window once), so Podman gets {@link PODMAN_OOM_RECHECKS} looks.
 * Only a SIGKILL status (137) without the flag waits at all.
 */
async function recheckOom(opts: DockerOptions, name: string, first: ContainerState): Promise<ContainerState> {
  let state = first;
  if (state.exitCode !== 137 || state.oomKilled) return state;
  const rechecks = (await engineKind(opts).catch(() => 'docker')) === 'podman' ? PODMAN_OOM_RECHECKS : OOM_RECHECKS;
  for (let i = 0; i < rechecks && state.exitCode === 137 && !state.oomKilled; i++) {
    await new Promise((r) => setTimeout(r, OOM_RECHECK_MS));
    state = await inspectState(opts, name).catch(() => state);
  }
  return state;
}

function statusUnreadable(e: unknown): SandboxErrorInfo {
  const info = isSandboxError(e) ? e.toInfo() : undefined;
  return {
    code: info?.code ?? 'engine-error',
    message: `The program's status could not be read: ${info?.message ?? String(e)}`,
    fix: info?.fix ?? 'Check the Docker engine (docker info) and run again.',
    detail: info?.detail ?? '',
  };
}

/** The attached CLI ended while the program still ran (engine connection lost, CLI killed): its exit code is not the program's. */
function connectionLost(lease: ContainerLease, exit: AttachExit, state: ContainerState): SandboxErrorInfo {
  const how = exit.signal ? `was killed by ${exit.signal}` : `ended with status ${exit.exitCode ?? 'unknown'}`;
  const call = lease.kind === 'direct' || lease.kind === 'tty' ? 'docker start' : 'docker run';
  return {
    code: 'engine-error',
    message: `The connection to the program was lost: "${call}" ${how} while the container was ${state.status}.`,
    fix: 'Check the Docker engine (docker info) and run again; the container was removed.',
    detail: '',
  };
}
