/**
 * Proof, on this host, of the floor items Podman 4.3 does not show in `podman inspect` the way the
 * Engine API does (precheck.ts): it lists the dropped default capabilities instead of `ALL`, and
 * reports its own IPC namespace as `shareable`. Read from the container's init process (catatonit,
 * `State.Pid`) while the launcher waits, before any code is sent:
 * - `/proc/<pid>/status` (proc(5)): `CapInh`, `CapPrm`, `CapEff`, `CapBnd`, `CapAmb` all zero
 *   (`--cap-drop ALL`), `NoNewPrivs: 1` (`no-new-privileges`), `Seccomp: 2` (filter mode, the
 *   runner's profile; its path is checked in `HostConfig.SecurityOpt`);
 * - `/proc/<pid>/ns/{ipc,pid,uts,cgroup,net,mnt}` (namespaces(7)): each a different namespace
 *   than this process's own.
 * Podman is daemonless: the container runs on this host, so `/proc` shows it (a Podman remote
 * client, `CONTAINER_HOST`, cannot be proved and is refused by the caller).
 */
import { readFile, readlink } from 'node:fs/promises';

/** The namespaces that must be the container's own. */
const OWN_NAMESPACES = ['ipc', 'pid', 'uts', 'cgroup', 'net', 'mnt'] as const;

/** The `/proc/<pid>/status` fields that must hold these exact values. */
const STATUS_WANT: readonly [string, RegExp, string][] = [
  ['CapInh', /^0+$/, 'no capabilities'],
  ['CapPrm', /^0+$/, 'no capabilities'],
  ['CapEff', /^0+$/, 'no capabilities'],
  ['CapBnd', /^0+$/, 'no capabilities'],
  ['CapAmb', /^0+$/, 'no capabilities'],
  ['NoNewPrivs', /^1$/, 'no-new-privileges'],
  ['Seccomp', /^2$/, 'seccomp filter'],
];

/** `Name:\tvalue` lines of `/proc/<pid>/status` as a map. */
export function parseStatus(text: string): Map<string, string> {
  return new Map(text.split('\n').flatMap((l) => {
    const at = l.indexOf(':');
    return at > 0 ? [[l.slice(0, at), l.slice(at + 1).trim()] as [string, string]] : [];
  }));
}

/**
 * Problems of the container whose init process is `pid` (empty when every item above holds).
 * An unreadable `/proc` entry is a problem: nothing is assumed.
 * @param pid host pid of the container's init process (`State.Pid`), > 0
 */
export async function podmanFloorProblems(pid: number): Promise<string[]> {
  const out: string[] = [];
  const status = parseStatus(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''));
  for (const [key, want, why] of STATUS_WANT) {
    const v = status.get(key);
    if (v === undefined || !want.test(v)) out.push(`/proc/${pid}/status ${key} is ${JSON.stringify(v ?? null)} (${why})`);
  }
  for (const ns of OWN_NAMESPACES) {
    const [theirs, ours] = await Promise.all([readlink(`/proc/${pid}/ns/${ns}`).catch(() => ''), readlink(`/proc/self/ns/${ns}`).catch(() => '')]);
    if (!theirs || !ours || theirs === ours) out.push(`the container's ${ns} namespace is not its own (${theirs || 'unreadable'})`);
  }
  return out;
}
