/**
 * Owner labels put on every container (SECURITY.md, "The floor"; the orphan sweep), so that
 * containers can be listed with `docker ps -a --filter label=sandbox-runner=1` and an orphan's
 * owner can be checked for liveness (see `reaper.ts`) on any engine, local or remote.
 *
 * Which client host made a container is recorded as the kernel's boot id plus the owner's pid
 * namespace (`owner-boot`, `owner-pidns`), with the host name beside them for people:
 *  - the boot id (`/proc/sys/kernel/random/boot_id`, random(4)) is 128 random bits the kernel
 *    draws at each boot. Two machines or VMs run different kernels and so never share it by
 *    chance, and it cannot be cloned with a disk image (a devcontainer shares its host's kernel,
 *    and so its boot id; the pid namespace below tells them apart). Pids and start times only compare
 *    within one boot, so it is exactly the scope in which the liveness data means something;
 *  - the pid namespace inode tells apart containers sharing one kernel (a devcontainer and its
 *    host share the boot id but not the pid namespace); it is unique within a boot;
 *  - `/etc/machine-id` is not used: it survives reboots (so it proves nothing about pids), and
 *    cloned VM and container images share it;
 *  - the host name is not proof: many machines are called "localhost" or "vm", and the initial
 *    pid namespace has the same inode on every Linux machine.
 * So a sweep on a shared engine removes only containers whose boot id and pid namespace are this
 * process's, and whose owner pid is provably dead here; other clients' containers stay.
 */
import { hostname } from 'node:os';
import { processLease } from './ownerLease';
import { currentBootId, currentPidNamespace, currentStartTime } from '../engine/procLiveness';

/** The product label key; its value is always "1". */
export const PRODUCT_LABEL = 'sandbox-runner';
/** Label on a set's volumes: the set key (64 hex digits). */
export const DEPS_KEY_LABEL = `${PRODUCT_LABEL}.deps-key`;
/** Label on a published name volume: the data volume holding the set. */
export const DEPS_DATA_LABEL = `${PRODUCT_LABEL}.deps-data`;
/** Label on a published name volume: the set's installed size in KiB, as the install measured it (LRU pruning, deps/prune.ts). */
export const DEPS_KIB_LABEL = `${PRODUCT_LABEL}.deps-kib`;
/** Label keys set on every container. */
export const LABELS = {
  product: PRODUCT_LABEL,
  ownerPid: `${PRODUCT_LABEL}.owner-pid`,
  ownerPidNamespace: `${PRODUCT_LABEL}.owner-pidns`,
  /**
   * The owner's start time: field 22 (`starttime`) of `/proc/<pid>/stat`, in clock ticks since
   * boot (proc(5)). A live pid with another start time is a different process (pid reuse).
   */
  ownerStart: `${PRODUCT_LABEL}.owner-start`,
  /**
   * The kernel's boot id (`/proc/sys/kernel/random/boot_id`, random(4)): the proof of the client
   * host (see the module comment). Pids and start times only compare within one boot of one
   * machine, and two machines may share a host name. Without it an owner is never judged dead.
   */
  ownerBoot: `${PRODUCT_LABEL}.owner-boot`,
  /** The client's host name (`os.hostname()`): shown to people, checked, but not proof on its own. */
  host: `${PRODUCT_LABEL}.host`,
  /**
   * The owner's lease id (ownerLease.ts): 32 hex digits naming `<state dir>/owners/<id>.lease`
   * on the client host. Proves liveness on every OS; absent when the state directory is unusable.
   */
  ownerLease: `${PRODUCT_LABEL}.owner-lease`,
  /** The client host id (ownerLease.ts, `<state dir>/host-id`): 32 hex digits, random per user and machine. */
  clientHost: `${PRODUCT_LABEL}.client-host`,
  runId: `${PRODUCT_LABEL}.run-id`,
  profile: `${PRODUCT_LABEL}.profile`,
} as const;

/** The `docker ps --filter` value selecting this product's containers. */
export const PRODUCT_FILTER = `label=${PRODUCT_LABEL}=1`;

/** Label marking a container as a warm one not yet taken by a run (value "1"; set by warm.ts only). */
export const WARM_LABEL = `${PRODUCT_LABEL}.warm`;

/**
 * The labels for one run, owned by this process. Opens this process's owner lease at the first
 * call (ownerLease.ts `processLease`); without one (state directory unusable) the lease labels
 * are left out and the sweep judges by /proc alone, as before leases.
 * @param runId unique run id (also the container name suffix)
 * @param profileName the profile the run uses
 */
export function ownerLabels(runId: string, profileName: string): Record<string, string> {
  const lease = processLease();
  return {
    ...(lease ? { [LABELS.ownerLease]: lease.id, [LABELS.clientHost]: lease.hostId } : {}),
    [LABELS.product]: '1',
    [LABELS.ownerPid]: String(process.pid),
    [LABELS.ownerPidNamespace]: currentPidNamespace(),
    [LABELS.ownerStart]: currentStartTime(),
    [LABELS.ownerBoot]: currentBootId(),
    [LABELS.host]: hostname(),
    [LABELS.runId]: runId,
    [LABELS.profile]: profileName,
  };
}
