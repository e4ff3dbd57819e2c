/**
 * The container's init process as a process of this host, or none. An engine reports
 * `State.Pid` in its own pid namespace: for an engine on this host in this pid namespace it is a
 * pid of ours, but for a remote engine, an engine in a namespace of its own (a rootless or
 * nested engine, the suites' engine 2) or one a dev container reaches through the host's socket,
 * the same number names some other process here, or none. Whatever reads the container from this
 * host's `/proc` (mountProof.ts, pidsEvidence.ts) therefore takes the pid only when the fact holds
 * on this host: `/proc/<pid>/cgroup` (cgroup(7)) names the container's full ID, as the cgroup of
 * every Docker and Podman container does (`/docker/<id>`, `docker-<id>.scope`,
 * `libpod-<id>.scope`). A pid reused after the container ended fails the same check.
 */
import { readFile } from 'node:fs/promises';
import type { DockerOptions } from './contracts';
import { inspectContainer } from './inspect';

/** A full container ID as Docker and Podman report it (`Id`): 64 lowercase hex digits. */
const FULL_ID = /^[0-9a-f]{64}$/;

/**
 * True when a `/proc/<pid>/cgroup` text names the container `id` (a full ID, else false) as a
 * whole word of hex digits in a cgroup path. Pure.
 */
export function cgroupNamesContainer(procCgroup: string, id: string): boolean {
  if (!FULL_ID.test(id)) return false;
  return procCgroup.split('\n').some((line) => {
    const path = /^\d+:[^:]*:(\/.*)$/.exec(line.trim())?.[1] ?? '';
    const at = path.indexOf(id);
    return at >= 0 && !/[0-9a-f]/.test(path[at - 1] ?? '') && !/[0-9a-f]/.test(path[at + id.length] ?? '');
  });
}

/**
 * `statePid` when it is, on this host, a process of the container `id` (see the module comment),
 * else 0 (not Linux, no such process, another process, unreadable `/proc`). Never throws.
 * @param id the container's full ID (inspect `Id`)
 * @param statePid the engine's `State.Pid` (0 or less: not running)
 */
export async function hostPidOf(id: string, statePid: number): Promise<number> {
  if (process.platform !== 'linux' || !Number.isInteger(statePid) || statePid <= 0) return 0;
  const text = await readFile(`/proc/${statePid}/cgroup`, 'utf8').catch(() => '');
  return cgroupNamesContainer(text, id) ? statePid : 0;
}

/**
 * The running container `name`'s init process as a pid of this host, or 0 (see {@link hostPidOf}).
 * @throws SandboxError when the container does not exist or the engine fails
 */
export async function containerHostPid(opts: DockerOptions, name: string): Promise<number> {
  const c = await inspectContainer(opts, name);
  return hostPidOf(String(c.Id ?? ''), c.State?.Pid ?? 0);
}
