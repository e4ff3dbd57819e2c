/**
 * The orphan sweep (SECURITY.md, "Ownership and orphans"): containers whose owning process is
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
 *
 * Labels alone do not prove the product made a container: an image's Dockerfile `LABEL`s are
 * copied onto every container made from it. So a container is only removed when its name is the
 * one the product gives (`sandbox-runner-<run-id label>`, a UUID: a name is chosen by whoever
 * creates the container, never by the image), and its image carries no product label.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { containerName, RUN_ID, SNIPPET_DIR, SNIPPET_HOST_DIR_PREFIX } from '../layout';
import { inspectContainer, inspectImage, listContainers, removeContainer, type DockerOptions } from '../engine/docker';
import { ENGINE_DIR_NAME } from '../engine/docker';
import { isSandboxError } from '../errors';
import { ANCHOR_NAME, anchorRoots } from '../mounts/mounts';
import { LABELS, PRODUCT_LABEL } from './labels';
import { currentBootId, currentPidNamespace, currentStartTime, procEvidenceOff, statStartTime, statState } from '../engine/procLiveness';
import { hostIdIn, leaseLiveness, leasePathFor, OWNER_ID, processLease, readLeaseFile, removeOldLeaseFiles, type LeaseFile } from './ownerLease';
import { stateDir } from './stateDir';

/** A snippet directory's path as snippet.ts `writeSnippet` makes it: `…/sandbox-runner-XXXXXX`. */
const SNIPPET_HOST_DIR = new RegExp(`/${SNIPPET_HOST_DIR_PREFIX}[A-Za-z0-9]{6}$`);

/** Options of {@link reapOrphans} and {@link removeOwnContainers}. */
export interface ReapOptions {
  readonly docker?: DockerOptions;
  /** Replaces the liveness probe of this machine (tests). */
  readonly probe?: ProcessProbe;
  /** Replaces this client's view of owner leases (tests). */
  readonly leases?: LeaseView;
}

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

/** One container the sweep left in place, and why. */
export interface KeptContainer {
  readonly name: string;
  /** One sentence, e.g. "its owner (pid 4242) is still running". */
  readonly reason: string;
}

/** What a sweep did. */
export interface ReapReport {
  /** Names of the containers removed. */
  readonly removed: string[];
  /** Pin anchor directories of dead runs that were removed (absolute paths; see mounts.ts). */
  readonly removedAnchors?: string[];
  /** Engine work directories (docker.ts) of dead processes that were removed. */
  readonly removedEngineDirs?: string[];
  /** Containers left in place, each with the reason. */
  readonly kept: KeptContainer[];
}

/** A product container as listed by `docker ps`, with its owner labels ("" when missing). */
export interface OwnedContainer {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
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

const LABEL_KEYS = [
  LABELS.ownerPid, LABELS.host, LABELS.ownerPidNamespace, LABELS.ownerBoot, LABELS.ownerStart, LABELS.runId, LABELS.ownerLease, LABELS.clientHost,
] as const;

/**
 * Why a listed container is not provably one the product created, or undefined when it is: its
 * name must be exactly `sandbox-runner-<run-id>` for its own run-id label, a UUID (runner.ts and
 * warm.ts name every container so). Labels can come from the image; the name cannot.
 */
export function notProductNamed(c: OwnedContainer): string | undefined {
  const runId = (c.labels[LABELS.runId] ?? '').trim();
  if (!RUN_ID.test(runId)) return 'its run-id label is missing or not a run id, so it may not be this product\'s container';
  if (c.name !== containerName(runId)) {
    return `its name is not sandbox-runner-<run id> for its run-id label, so its labels may come from its image, not from this product`;
  }
  return undefined;
}

/** Whether a container's image carries any product label (then the container's labels prove nothing). */
async function imageCarriesProductLabels(opts: DockerOptions, name: string): Promise<boolean | undefined> {
  const image = (await inspectContainer(opts, name).catch(() => undefined))?.Image;
  if (typeof image !== 'string' || !image) return undefined;
  const inspected = await inspectImage(opts, image).catch(() => undefined);
  if (!inspected) return undefined;
  const labels = inspected.Config?.Labels;
  return Object.keys(labels ?? {}).some((k) => k === LABELS.product || k.startsWith(`${LABELS.product}.`));
}

/** Keeps the candidates whose image carries product labels (or cannot be read), with the reason. */
async function withoutImageLabelled(opts: DockerOptions, candidates: readonly OwnedContainer[], kept: KeptContainer[]): Promise<OwnedContainer[]> {
  const out: OwnedContainer[] = [];
  for (const c of candidates) {
    const labelled = await imageCarriesProductLabels(opts, c.name);
    if (labelled === false) out.push(c);
    else {
      kept.push({
        name: c.name,
        reason: labelled ? 'its image carries the product\'s labels, so its labels may come from the image, not from this product' : 'its image could not be inspected',
      });
    }
  }
  return out;
}

/**
 * Lists product containers (any state) with their owner labels.
 * @param filter an extra `label=KEY=VALUE` filter (as for `docker ps --filter`; default: none
 *   beyond the product label)
 * @throws SandboxError when the engine cannot be reached
 */
export async function listOwnedContainers(opts: DockerOptions, filter?: string): Promise<OwnedContainer[]> {
  if (filter && !filter.startsWith('label=')) throw new Error(`listOwnedContainers takes label filters only, not "${filter}"`);
  const filters = [`${PRODUCT_LABEL}=1`, ...(filter ? [filter.slice('label='.length)] : [])];
  return (await listContainers(opts, filters, LABEL_KEYS)).map((c) => ({
    name: c.name,
    labels: Object.fromEntries(LABEL_KEYS.map((k) => [k, c.labels[k] ?? ''])),
  }));
}

/** The host directory a container has bind-mounted at {@link SNIPPET_DIR}, or undefined. */
async function snippetDirOf(opts: DockerOptions, name: string): Promise<string | undefined> {
  const mounts = (await inspectContainer(opts, name).catch(() => undefined))?.Mounts ?? [];
  const source = mounts.find((m) => m.Destination === SNIPPET_DIR)?.Source;
  return typeof source === 'string' && source ? source : undefined;
}

/**
 * Deletes a dead run's snippet directory (see `snippet.ts`), but only when it is exactly what
 * `writeSnippet` makes: a real directory named `sandbox-runner-XXXXXX` directly in the OS temp
 * directory, holding nothing but `main[.ext]`. Anything else is left alone.
 */
export function removeStaleSnippetDir(dir: string): boolean {
  try {
    if (!SNIPPET_HOST_DIR.test(dir) || dirname(dir) !== realpathSync(tmpdir())) return false;
    if (!lstatSync(dir).isDirectory()) return false;
    if (!readdirSync(dir).every((f) => /^main(\.[A-Za-z0-9_+-]{1,16})?$/.test(f))) return false;
    rmSync(dir, { recursive: true, force: true });
    return true;
  } catch {
    return false;
  }
}

async function removeAll(opts: DockerOptions, chosen: readonly OwnedContainer[], kept: KeptContainer[]): Promise<string[]> {
  const removed: string[] = [];
  // A few at a time: each `docker rm -f` may wait for the container's processes to end.
  const queue = [...chosen];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      try {
        const snippetDir = await snippetDirOf(opts, c.name);
        await removeContainer(opts, c.name);
        removed.push(c.name);
        // The dead owner could not delete its snippet directory; with the container gone, nothing uses it.
        if (snippetDir) removeStaleSnippetDir(snippetDir);
      } catch (e) {
        kept.push({ name: c.name, reason: `it could not be removed: ${isSandboxError(e) ? e.message : String(e)}` });
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return removed.sort();
}

/**
 * Removes product containers whose owner process is provably gone (see the module comment);
 * keeps every other one and says why. Meant for activation, periodically, and `sandbox-run --reap`.
 * @returns the removed names and the kept containers with reasons
 * @throws SandboxError when the engine cannot be reached or listed
 */
export async function reapOrphans(opts: ReapOptions = {}): Promise<ReapReport> {
  const dockerOpts = opts.docker ?? {};
  const probe = opts.probe ?? localProbe();
  const listed = await listOwnedContainers(dockerOpts);
  // After the listing: a lease refreshed while the engine answered is seen as refreshed.
  const leases = opts.leases ?? localLeaseView();
  const { picked: orphans, kept } = pickByOwner(listed, 'dead', probe, leases);
  const removed = await removeAll(dockerOpts, await withoutImageLabelled(dockerOpts, orphans, kept), kept);
  const own = processLease();
  if (!opts.leases && own) removeOldLeaseFiles(own.dir, Date.now(), own.clockTrusted());
  return {
    removed,
    removedAnchors: removeStaleAnchors(probe),
    removedEngineDirs: removeStaleEngineDirs(probe),
    kept: kept.sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/**
 * Removes the engine work directories (docker.ts `engineWorkDir`) of processes that are provably
 * gone, judged by the owner pid and start time in the name as the pin anchors are. Only a real
 * directory holding nothing but container subdirectories (empty, or conmon's `oom` file) and
 * `seccomp-N.json` files is removed; anything else is left alone.
 * @param root where the directories are (default: the OS temp dir, where docker.ts makes them)
 * @returns the removed directories
 */
export function removeStaleEngineDirs(probe: ProcessProbe = localProbe(), root: string = tmpdir()): string[] {
  const ours = (dir: string, f: string) => {
    const path = join(dir, f);
    if (/^seccomp-\d+\.json$/.test(f)) return lstatSync(path).isFile();
    return /^sandbox-runner-[A-Za-z0-9_.-]+$/.test(f) && lstatSync(path).isDirectory() && readdirSync(path).every((g) => g === 'oom');
  };
  return removeDeadOwnerDirs(root, ENGINE_DIR_NAME, (dir) => readdirSync(dir).every((f) => ours(dir, f)), probe).sort();
}

/**
 * Removes the real directories directly in `root` whose name `pattern` matches (group 1: the
 * owner pid, group 2: its start time), whose owner is provably gone ({@link localOwnerDead}), and
 * whose entries are all ours (`holdsOnlyOurs`, which may throw: the directory is then kept). An
 * unreadable `root` and directories gone meanwhile are skipped.
 * @returns the removed directories
 */
function removeDeadOwnerDirs(root: string, pattern: RegExp, holdsOnlyOurs: (dir: string) => boolean, probe: ProcessProbe): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m || !localOwnerDead(m[1]!, m[2]!, probe)) continue;
    const dir = join(root, name);
    try {
      if (!lstatSync(dir).isDirectory() || !holdsOnlyOurs(dir)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}

/**
 * Whether the owner a local directory's name records (pid and start time; same host, boot and pid
 * namespace as this process, as the directory is on this machine) is provably gone, judged as a
 * container's owner is judged by its labels ({@link ownerLiveness}).
 */
function localOwnerDead(pid: string, start: string, probe: ProcessProbe): boolean {
  const labels = {
    [LABELS.ownerPid]: pid, [LABELS.ownerStart]: start, [LABELS.host]: probe.host,
    [LABELS.ownerPidNamespace]: probe.pidNamespace, [LABELS.ownerBoot]: probe.bootId,
  };
  return ownerLiveness(labels, probe).state === 'dead';
}

/**
 * Removes the pin anchor directories (mounts.ts) of runs whose owner is provably gone, judged by
 * the owner pid and start time in the name as a container's owner is judged by its labels (same
 * host, boot and pid namespace as this process: the directory is local). Only a real directory
 * holding nothing but the anchor's links (32 hex digits) is removed; anything else is left alone.
 * @returns the removed directories
 */
export function removeStaleAnchors(probe: ProcessProbe = localProbe(), roots: readonly string[] = anchorRoots()): string[] {
  const onlyLinks = (dir: string) => readdirSync(dir).every((f) => /^[0-9a-f]{32}$/.test(f) && lstatSync(join(dir, f)).isSymbolicLink());
  return roots.flatMap((root) => removeDeadOwnerDirs(root, ANCHOR_NAME, onlyLinks, probe)).sort();
}

/**
 * Splits listed containers by their owner: `picked` are those named as the product names them
 * ({@link notProductNamed}) whose owner's liveness ({@link containerLiveness}) is `wanted`;
 * every other one is `kept`, with the reason (the name's, else the liveness's).
 */
function pickByOwner(
  listed: readonly OwnedContainer[], wanted: OwnerLiveness['state'], probe: ProcessProbe, leases: LeaseView,
): { picked: OwnedContainer[]; kept: KeptContainer[] } {
  const picked: OwnedContainer[] = [];
  const kept: KeptContainer[] = [];
  for (const c of listed) {
    const notOurs = notProductNamed(c);
    const live = containerLiveness(c.labels, probe, leases);
    if (notOurs) kept.push({ name: c.name, reason: notOurs });
    else if (live.state === wanted) picked.push(c);
    else kept.push({ name: c.name, reason: live.reason });
  }
  return { picked, kept };
}

/**
 * Removes every container owned by this process (its lease id, or the same pid, host, boot, pid
 * namespace and start time), in any state: for shutdown (the extension's `deactivate`). Runs still in progress end
 * as if cancelled by the engine.
 * @returns the removed names; containers of another process with our pid are kept, with the reason
 * @throws SandboxError when the engine cannot be reached or listed
 */
export async function removeOwnContainers(opts: ReapOptions = {}): Promise<ReapReport> {
  const dockerOpts = opts.docker ?? {};
  const probe = opts.probe ?? localProbe();
  const leases = opts.leases ?? localLeaseView();
  const listed = await listOwnedContainers(dockerOpts, `label=${LABELS.ownerPid}=${probe.selfPid}`);
  const { picked: mine, kept } = pickByOwner(listed, 'self', probe, leases);
  const removed = await removeAll(dockerOpts, await withoutImageLabelled(dockerOpts, mine, kept), kept);
  return { removed, kept: kept.sort((a, b) => a.name.localeCompare(b.name)) };
}
