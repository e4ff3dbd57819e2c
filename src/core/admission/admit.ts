/**
 * Admission of a started container, while its launcher waits and before any code is sent: the
 * engine's view of it (inspect.ts) must match what was asked for (precheck.ts), its pinned mount
 * sources must be the checked directories, seen through its init process on this host (under
 * gVisor through its gofer; mountProof.ts; the pid is taken only when it is
 * this host's, hostPid.ts), and no engine warning may say
 * a limit was dropped (engineFlags.ts, a second signal beside `HostConfig`). A container that fails
 * is refused; the caller removes it without ever sending the code.
 */
import type { ResolvedMount } from '../container/argv';
import { CONTROL_TIMEOUT_MS, type DockerOptions } from '../engine/contracts';
import { SandboxError } from '../errors';
import { discardedLimits, limitsDiscardedError } from '../engine/engineFlags';
import { hostPidOf } from '../engine/hostPid';
import { inspectContainer, inspectImageCached } from '../engine/inspect';
import type { ContainerLease } from '../container/lease';
import { mountProofProblems } from './mountProof';
import { engineSpec } from '../engine/podman/engineSpec';
import { podmanFloorProblems } from '../engine/podman/podmanProof';
import { containerProblems, containerRefusedError, type Expected, type Problem } from './precheck';
import type { Profile } from '../profiles/profileSchema';

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
  const image = await inspectImageCached(opts, container.Image ?? profile.image);
  const engine = await engineSpec(opts);
  const problems: Problem[] = containerProblems(container, image, { profile, mounts, engine });
  const statePid = container.State?.Pid ?? 0;
  const pid = await hostPidOf(String(container.Id ?? ''), statePid);
  if (problems.length === 0 && pid > 0) {
    for (const text of await mountProofProblems(String(container.Id ?? ''), pid, mounts)) problems.push({ code: 'container-refused', text });
  } else if (problems.length === 0 && mounts.some((m) => m.pinned !== undefined)) {
    // Pinned only for an engine that resolved this process's descriptors: its container must be visible here to be proved.
    problems.push({ code: 'container-refused', text: `the container's process (pid ${statePid} on the engine) is not a process of this host, so its pinned mounts cannot be proved` });
  }
  if (problems.length === 0 && engine.engine === 'podman') problems.push(...(await podmanHostProblems(opts, pid)));
  if (problems.length > 0) throw containerRefusedError(problems, profile.image);
  // Podman prints the engine's "… discarded" text as a bare line (engineFlags.ts `bareLines`).
  const dropped = discardedLimits(lease.launcher?.heldText() ?? '', { bareLines: engine.engine === 'podman' });
  if (dropped.length > 0) throw limitsDiscardedError(dropped);
  lease.pid = pid;
  return true;
}

/**
 * Podman: the floor items its inspect cannot show (podmanProof.ts), read from this host's /proc.
 * A Podman that runs elsewhere (remote client: `CONTAINER_HOST`/`CONTAINER_CONNECTION`) or a
 * container whose pid is not a process of this host (hostPid.ts) cannot be proved, so it is refused.
 */
async function podmanHostProblems(opts: DockerOptions, pid: number): Promise<Problem[]> {
  const env = { ...process.env, ...opts.env };
  if (pid <= 0 || env.CONTAINER_HOST || env.CONTAINER_CONNECTION) {
    return [{ code: 'limits-unsupported', text: 'Podman\'s container could not be inspected on this host (capabilities, namespaces)' }];
  }
  return (await podmanFloorProblems(pid)).map((text) => ({ code: 'limits-unsupported', text }));
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
 * {@link admitContainer} (no mount proof: nothing runs yet to look through). On Podman always
 * refused: the floor items Podman's inspect cannot show need a running process (podmanProof.ts).
 * @throws SandboxError as {@link admitContainer}
 */
export async function checkCreated(opts: DockerOptions, name: string, expected: Expected): Promise<void> {
  const container = await inspectContainer(opts, name);
  const image = await inspectImageCached(opts, container.Image ?? expected.profile.image);
  const engine = await engineSpec(opts);
  const problems = containerProblems(container, image, { ...expected, engine });
  // Podman's capabilities and namespaces are proved only through a running process (podmanProof.ts);
  // a created container has none, and starting it runs the program: refused.
  if (engine.engine === 'podman') problems.push({ code: 'limits-unsupported', text: 'Podman\'s capabilities and namespaces cannot be proved before the program starts (image without sh)' });
  if (problems.length > 0) throw containerRefusedError(problems, expected.profile.image);
}
