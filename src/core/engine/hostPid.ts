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
import { readdir, readFile, readlink } from 'node:fs/promises';
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

/** `comm` and parent pid of a `/proc/<pid>/stat` text (proc(5): `pid (comm) state ppid …`), or undefined. Pure. */
export function statCommAndParent(stat: string): { comm: string; ppid: number } | undefined {
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const ppid = Number(stat.slice(close + 2).split(' ')[1]);
  return Number.isInteger(ppid) && ppid > 0 ? { comm: stat.slice(open + 1, close), ppid } : undefined;
}

/** The `argv[0]` gVisor's runsc gives the sandbox (its Sentry), the process the engine reports as `State.Pid` (its `comm` is `exe`). */
export const RUNSC_SANDBOX_ARGV0 = 'runsc-sandbox';
/** The `argv[0]` of gVisor's file server (gofer), which opens every file the sandbox serves from its own mount namespace. */
export const RUNSC_GOFER_ARGV0 = 'runsc-gofer';

/** A process's `argv[0]`, parent pid and executable, or undefined when unreadable. */
async function processFacts(pid: number | string): Promise<{ argv0: string; ppid: number; exe: string } | undefined> {
  const st = statCommAndParent(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''));
  const argv0 = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0')[0] ?? '';
  const exe = await readlink(`/proc/${pid}/exe`).catch(() => '');
  return st && argv0 && exe ? { argv0, ppid: st.ppid, exe } : undefined;
}

/**
 * Under gVisor (runsc), `hostPid` (the engine's `State.Pid`, a process of this host) is the
 * sandbox: a Sentry chrooted into an empty directory, whose `/proc/<pid>/root` and mountinfo show
 * nothing of the container's files. Those are served by the container's gofer, a sibling started
 * by the same runsc (same parent: the containerd shim; same executable) that mounts the
 * container's root and its mounts in its own mount namespace and pivots into it (gVisor
 * `runsc/cmd/gofer.go`, measured on Debian's runsc 0.0~20221219). This returns that gofer's pid
 * when `hostPid` is a runsc sandbox (`argv[0]` {@link RUNSC_SANDBOX_ARGV0}); 0 when it is one but
 * no gofer of the container `id` (a sibling with `argv[0]` {@link RUNSC_GOFER_ARGV0}, the same
 * executable, and a cgroup naming the container) is found; undefined when `hostPid` is not a runsc
 * sandbox (runc: the init process itself shows the mounts). Read before any code is sent, when
 * only runsc runs in the container. Never throws.
 * @param id the container's full ID
 * @param hostPid the container's process as a pid of this host ({@link hostPidOf}), > 0
 */
export async function runscGoferPid(id: string, hostPid: number): Promise<number | undefined> {
  const self = await processFacts(hostPid);
  if (self?.argv0 !== RUNSC_SANDBOX_ARGV0) return undefined;
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((n) => /^\d+$/.test(n));
  for (const p of pids) {
    const st = await processFacts(p);
    if (st?.argv0 !== RUNSC_GOFER_ARGV0 || st.ppid !== self.ppid || st.exe !== self.exe) continue;
    if (cgroupNamesContainer(await readFile(`/proc/${p}/cgroup`, 'utf8').catch(() => ''), id)) return Number(p);
  }
  return 0;
}
