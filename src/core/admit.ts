/**
 * Admission of a started container, while its launcher waits and before any code is sent: the
 * engine's view of it (inspect.ts) must match what was asked for (precheck.ts), its pinned mount
 * sources must be the checked directories, seen through its init process on this host
 * (mountProof.ts; the pid is taken only when it is this host's, hostPid.ts), and no engine warning may say
 * a limit was dropped (engineFlags.ts, a second signal beside `HostConfig`). A container that fails
 * is refused; the caller removes it without ever sending the code.
 */
import type { ResolvedMount } from './argv';
import { CONTROL_TIMEOUT_MS, type DockerOptions } from './docker';
import { SandboxError } from './errors';
import { discardedLimits, limitsDiscardedError } from './engineFlags';
import { hostPidOf } from './hostPid';
import { inspectContainer, inspectImage } from './inspect';
import type { ContainerLease } from './lease';
import { mountSourceProblems } from './mountProof';
import { containerProblems, containerRefusedError, type Expected, type Problem } from './precheck';
import type { Profile } from './profile';

/**
 * Waits for the launcher, then checks the container.
 * @returns false when the launcher never said it waits (the CLI ended first; see diagnose.ts),
 *   true when the container may receive the code (`lease.pid` is then its init process as a pid
 *   of this host, or 0 when the engine's pid is not one: a remote engine, another pid namespace)
 * @throws SandboxError `limits-unsupported`, `image-has-volumes` or `container-refused`; an engine
 *   error from inspect
 */
export async function admitContainer(opts: DockerOptions, lease: ContainerLease, profile: Profile, mounts: readonly ResolvedMount[]): Promise<boolean> {
  if (!(await waitForLauncher(opts, lease))) return false;
  const container = await inspectContainer(opts, lease.name);
  const image = await inspectImage(opts, container.Image ?? profile.image);
  const problems: Problem[] = containerProblems(container, image, { profile, mounts });
  const statePid = container.State?.Pid ?? 0;
  const pid = await hostPidOf(String(container.Id ?? ''), statePid);
  if (problems.length === 0 && pid > 0) {
    for (const text of await mountSourceProblems(pid, mounts)) problems.push({ code: 'container-refused', text });
  } else if (problems.length === 0 && mounts.some((m) => m.pinned !== undefined)) {
    // Pinned only for an engine that resolved this process's descriptors: its container must be visible here to be proved.
    problems.push({ code: 'container-refused', text: `the container's process (pid ${statePid} on the engine) is not a process of this host, so its pinned mounts cannot be proved` });
  }
  if (problems.length > 0) throw containerRefusedError(problems, profile.image);
  const dropped = discardedLimits(lease.launcher?.heldText() ?? '');
  if (dropped.length > 0) throw limitsDiscardedError(dropped);
  lease.pid = pid;
  return true;
}

/**
 * The launcher's `waiting` marker, within the control timeout (`opts.controlTimeoutMs`): an engine
 * that accepts the call but never starts the container must not hang the run.
 * @throws SandboxError `engine-error` after the timeout (the CLI process is killed)
 */
async function waitForLauncher(opts: DockerOptions, lease: ContainerLease): Promise<boolean> {
  const ms = opts.controlTimeoutMs ?? CONTROL_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), ms)));
  const first = await Promise.race([lease.waiting, timeout]).finally(() => clearTimeout(timer));
  if (first !== 'timeout') return first;
  lease.kill('SIGKILL');
  throw new SandboxError(
    'engine-error',
    `"docker run" did not answer within ${Math.round(ms / 1000)} s.`,
    'Check that the Docker engine is healthy (docker info) and try again.',
  );
}

/**
 * The direct path's check of a created (not started) container: the same pure checks as
 * {@link admitContainer} (no mount proof: nothing runs yet to look through).
 * @throws SandboxError as {@link admitContainer}
 */
export async function checkCreated(opts: DockerOptions, name: string, expected: Expected): Promise<void> {
  const container = await inspectContainer(opts, name);
  const image = await inspectImage(opts, container.Image ?? expected.profile.image);
  const problems = containerProblems(container, image, expected);
  if (problems.length > 0) throw containerRefusedError(problems, expected.profile.image);
}
