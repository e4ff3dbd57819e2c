/**
 * The liveness policy of the orphan sweep (SECURITY.md, "Ownership and orphans"): when is a
 * container's (or a host folder's) owner provably gone. Only `dead` allows a removal (reaper.ts,
 * hostDirs.ts).
 *
 * The sweep: containers whose owning process is
 * provably gone are removed; everything else is left alone. It works on the engine in use
 * (`DockerOptions`: local, remote over ssh/tcp, or shared by several clients), and judges owners
 * from the client side: "provably gone" needs the owner to have run on this client host, in this
 * boot and in this pid namespace (labels `owner-boot`, `owner-pidns`, `host`; see labels.ts for
 * why the boot id is the proof), and then either no process has its pid (`kill(pid, 0)` fails
 * with ESRCH), or the process with that pid is a zombie, or it started at another time
 * (`owner-start`, pid reuse). Unknown liveness (another client host or boot, another pid
 * namespace, /proc unreadable, labels missing or malformed, including containers made before the
 * boot label existed) is never "dead": another client's containers on a shared engine stay.
 *
 * Owner leases (ownerLease.ts) decide on every OS, /proc or not. A container carrying the
 * `owner-lease` and `client-host` labels is judged by {@link containerLiveness}, in this order:
 *  1. either label malformed (not 32 hex digits) → unknown; nothing is read from disk for it;
 *  2. client host id ≠ this user's host id (`<state dir>/host-id`) → unknown: another client host
 *     (or another user of this machine) owns it; the engine host never decides (remote engines);
 *  3. lease id = this process's lease → self;
 *  4. the /proc fast path, where /proc is usable and the owner ran in this boot and pid namespace
 *     ({@link ownerLiveness}): a gone pid, a zombie or a reused pid is dead at once; a live pid
 *     with the labelled start time is alive, whatever the lease file says (proof of life wins);
 *  5. otherwise the lease file decides: missing → dead; mtime older than 6 refresh periods →
 *     dead (unless this sweeper was itself just suspended → unknown); else alive.
 * Containers without those labels (made before leases, or when the state directory was unusable)
 * keep the /proc rule above. `SANDBOX_RUNNER_NO_PROC=1` (procLiveness.ts `procEvidenceOff`, tests only)
 * turns step 4 and the /proc rule off, as on macOS and Windows.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { LABELS } from './labels';
import { currentBootId, currentPidNamespace, currentStartTime, procEvidenceOff, statStartTime, statState } from '../engine/procLiveness';
import { hostIdIn, leaseLiveness, leasePathFor, OWNER_ID, processLease, readLeaseFile, type LeaseFile } from './ownerLease';
import { stateDir } from '../stateDir';

/** How this client sees owner leases (ownerLease.ts); the default reads the state directory. */
export interface LeaseView {
  /** This user's client host id (32 hex digits), or undefined when the state directory is unusable. */
  readonly hostId: string | undefined;
  /** This process's own lease id, or undefined. */
  readonly selfLeaseId: string | undefined;
  /** The sweeper's clock, ms since the epoch. */
  readonly nowMs: number;
  /** False right after this process was suspended (ownerLease.ts `clockTrusted`). */
  readonly clockTrusted: boolean;
  /** Reads the lease file of a validated id. */
  read(id: string): LeaseFile;
}

/** This process's lease view: its lease (opened here if needed), host id and state directory. */
export function localLeaseView(): LeaseView {
  const lease = processLease();
  let dir: string | undefined;
  let hostId: string | undefined;
  try {
    dir = lease?.dir ?? stateDir();
    hostId = lease?.hostId ?? hostIdIn(dir);
  } catch {
    hostId = undefined;
  }
  const nowMs = Date.now();
  return {
    hostId,
    selfLeaseId: lease?.id,
    nowMs,
    clockTrusted: lease?.clockTrusted(nowMs) ?? true,
    read: (id) => {
      const path = dir === undefined ? undefined : leasePathFor(dir, id);
      return path === undefined ? { kind: 'unreadable', why: 'no state directory or not a lease id' } : readLeaseFile(path);
    },
  };
}

/** How this machine sees processes; the default reads /proc and uses `kill(pid, 0)`. */
export interface ProcessProbe {
  readonly host: string;
  /** This process's pid namespace (`readlink /proc/self/ns/pid`), or "unknown". */
  readonly pidNamespace: string;
  /** This boot's id (`/proc/sys/kernel/random/boot_id`), or "unknown". */
  readonly bootId: string;
  /** This process's pid and start time (clock ticks since boot), to recognise our own containers. */
  readonly selfPid: number;
  readonly selfStart: string;
  /** "absent" when no process has this pid (ESRCH); "present" otherwise (EPERM counts: it exists). */
  exists(pid: number): 'absent' | 'present' | 'unknown';
  /** The `/proc/<pid>/stat` line, or undefined when it cannot be read. */
  stat(pid: number): string | undefined;
}

/** True when /proc shows this process under its own pid (so /proc/<pid> means our pid namespace). */
function procIsOurs(): boolean {
  try {
    return readFileSync('/proc/self/stat', 'utf8').startsWith(`${process.pid} (`);
  } catch {
    return false;
  }
}

/** The probe of this process: host name, /proc and `process.kill(pid, 0)`. */
export function localProbe(): ProcessProbe {
  if (procEvidenceOff()) {
    return { host: hostname(), pidNamespace: 'unknown', bootId: 'unknown', selfPid: process.pid, selfStart: 'unknown', exists: () => 'unknown', stat: () => undefined };
  }
  return {
    host: hostname(),
    // A /proc mounted from another pid namespace would answer for other processes: then unknown.
    pidNamespace: procIsOurs() ? currentPidNamespace() : 'unknown',
    bootId: currentBootId(),
    selfPid: process.pid,
    selfStart: currentStartTime(),
    exists(pid) {
      try {
        process.kill(pid, 0);
        return 'present';
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        return code === 'ESRCH' ? 'absent' : code === 'EPERM' ? 'present' : 'unknown';
      }
    },
    stat(pid) {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}

/** Liveness of a container's owner: only `dead` allows removal. */
export type OwnerLiveness =
  | { readonly state: 'dead'; readonly reason: string }
  | { readonly state: 'alive' | 'self' | 'unknown'; readonly reason: string };

/**
 * Decides whether the owner of a container is provably gone.
 * @param labels the container's labels (missing ones as "" or absent)
 * @param probe this machine's view of processes
 */
export function ownerLiveness(labels: Readonly<Record<string, string | undefined>>, probe: ProcessProbe): OwnerLiveness {
  const get = (key: string) => (labels[key] ?? '').trim();
  const pidText = get(LABELS.ownerPid);
  const host = get(LABELS.host);
  const pidns = get(LABELS.ownerPidNamespace);
  const boot = get(LABELS.ownerBoot);
  const start = get(LABELS.ownerStart);
  const unknown = (why: string): OwnerLiveness => ({ state: 'unknown', reason: `its owner's liveness is unknown: ${why}` });

  if (!/^[1-9]\d{0,9}$/.test(pidText) || Number(pidText) > 4194304) return unknown(`the owner-pid label is missing or malformed ("${pidText}")`);
  const pid = Number(pidText);
  if (!host) return unknown('the host label is missing');
  if (host !== probe.host) return unknown(`it was started on host "${host}", this is "${probe.host}"`);
  if (!pidns || pidns === 'unknown') return unknown('the owner-pidns label is missing');
  if (probe.pidNamespace === 'unknown') return unknown('this process cannot read its own pid namespace (/proc unavailable)');
  if (pidns !== probe.pidNamespace) return unknown(`its owner ran in pid namespace ${pidns}, this process is in ${probe.pidNamespace}`);
  // The boot id is what proves the owner ran on this client host (labels.ts): without it, a host
  // name and the initial pid namespace's inode (the same on every Linux machine) match any other
  // client of a shared engine that has the same host name.
  if (!boot || boot === 'unknown') return unknown('the owner-boot label is missing, so its client host cannot be proven to be this one');
  if (probe.bootId === 'unknown') return unknown('this machine\'s boot id cannot be read');
  if (boot !== probe.bootId) return unknown(`its owner ran under another boot or client host (boot id ${boot})`);
  const hasStart = /^\d+$/.test(start);

  if (pid === probe.selfPid && (!hasStart || start === probe.selfStart)) {
    return { state: 'self', reason: `it belongs to this process (pid ${pid})` };
  }
  const exists = probe.exists(pid);
  if (exists === 'absent') return { state: 'dead', reason: `its owner (pid ${pid}) is gone` };
  if (exists === 'unknown') return unknown(`pid ${pid} could not be checked`);

  const line = probe.stat(pid);
  if (line === undefined) return unknown(`/proc/${pid}/stat cannot be read`);
  const state = statState(line);
  const actualStart = statStartTime(line);
  if (hasStart && actualStart !== undefined && actualStart !== start) {
    return { state: 'dead', reason: `its owner (pid ${pid}, started at tick ${start}) is gone; pid ${pid} now belongs to a process started at tick ${actualStart}` };
  }
  if (state === 'Z' || state === 'X') {
    if (!hasStart || actualStart === start) return { state: 'dead', reason: `its owner (pid ${pid}) has exited (zombie)` };
  }
  if (!hasStart) return { state: 'alive', reason: `a process with its owner's pid ${pid} is running (no start-time label to tell pid reuse apart)` };
  if (actualStart === undefined) return unknown(`/proc/${pid}/stat could not be parsed`);
  return { state: 'alive', reason: `its owner (pid ${pid}) is still running` };
}

/**
 * Decides a container's owner liveness from the lease labels, with /proc as a fast path (see
 * the module comment for the order); without lease labels, {@link ownerLiveness} alone.
 * @param labels the container's labels (missing ones as "" or absent)
 */
export function containerLiveness(labels: Readonly<Record<string, string | undefined>>, probe: ProcessProbe, leases: LeaseView): OwnerLiveness {
  // Exactly as written (no trimming): anything but 32 hex digits is not an id.
  const leaseId = labels[LABELS.ownerLease] ?? '';
  const host = labels[LABELS.clientHost] ?? '';
  if (!leaseId && !host) return ownerLiveness(labels, probe);
  const unknown = (why: string): OwnerLiveness => ({ state: 'unknown', reason: `its owner's liveness is unknown: ${why}` });
  if (!OWNER_ID.test(leaseId)) return unknown('the owner-lease label is missing or not a lease id');
  if (!OWNER_ID.test(host)) return unknown('the client-host label is missing or not a host id');
  if (!leases.hostId) return unknown('this client\'s host id cannot be read (state directory unusable)');
  if (host !== leases.hostId) return unknown(`its owner ran on another client host (host id ${host})`);
  if (leaseId === leases.selfLeaseId) return { state: 'self', reason: 'it belongs to this process (its lease)' };
  const proc = ownerLiveness(labels, probe);
  if (proc.state !== 'unknown') return proc;
  return leaseLiveness(leases.read(leaseId), leases.nowMs, leases.clockTrusted);
}

/**
 * Whether the owner a local directory's name records (pid and start time; same host, boot and pid
 * namespace as this process, as the directory is on this machine) is provably gone, judged as a
 * container's owner is judged by its labels ({@link ownerLiveness}).
 */
export function localOwnerDead(pid: string, start: string, probe: ProcessProbe): boolean {
  const labels = {
    [LABELS.ownerPid]: pid, [LABELS.ownerStart]: start, [LABELS.host]: probe.host,
    [LABELS.ownerPidNamespace]: probe.pidNamespace, [LABELS.ownerBoot]: probe.bootId,
  };
  return ownerLiveness(labels, probe).state === 'dead';
}
