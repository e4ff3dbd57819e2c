/**
 * Owner labels put on every container (isolation.md, "Ownership and orphans"), so that
 * containers can be listed with `docker ps -a --filter label=sandbox-runner=1` and an orphan's
 * owner can be checked for liveness (see `reaper.ts`).
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** The product label key; its value is always "1". */
export const PRODUCT_LABEL = 'sandbox-runner';
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
   * The kernel's boot id (`/proc/sys/kernel/random/boot_id`, random(4)): pids and start times
   * only compare within one boot of one machine, and two machines may share a host name.
   */
  ownerBoot: `${PRODUCT_LABEL}.owner-boot`,
  host: `${PRODUCT_LABEL}.host`,
  runId: `${PRODUCT_LABEL}.run-id`,
  profile: `${PRODUCT_LABEL}.profile`,
} as const;

/** The `docker ps --filter` value selecting this product's containers. */
export const PRODUCT_FILTER = `label=${PRODUCT_LABEL}=1`;

/** This process's pid namespace, e.g. `pid:[4026531836]`, or "unknown" where /proc is unavailable. */
export function currentPidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return 'unknown';
  }
}

/**
 * Field 22 (`starttime`, clock ticks since boot) of a `/proc/<pid>/stat` line, or undefined when
 * the line is malformed. Field 2 (`comm`) may hold spaces and parentheses, so fields are counted
 * after the last ")" (proc(5)).
 */
export function statStartTime(statLine: string): string | undefined {
  const close = statLine.lastIndexOf(')');
  if (close < 0) return undefined;
  // After ")" come field 3 (state), 4 (ppid), …: field 22 is the 20th.
  const value = statLine.slice(close + 1).trim().split(/\s+/)[19];
  return value && /^\d+$/.test(value) ? value : undefined;
}

/**
 * Field 3 (`state`, e.g. "R", "S", "Z" for a zombie) of a `/proc/<pid>/stat` line, or undefined.
 */
export function statState(statLine: string): string | undefined {
  const close = statLine.lastIndexOf(')');
  if (close < 0) return undefined;
  return statLine.slice(close + 1).trim().split(/\s+/)[0] || undefined;
}

let selfStart: string | undefined;
/** This process's start time in clock ticks since boot (cached; it never changes), or "unknown". */
export function currentStartTime(): string {
  if (selfStart === undefined) {
    try {
      selfStart = statStartTime(readFileSync('/proc/self/stat', 'utf8')) ?? 'unknown';
    } catch {
      selfStart = 'unknown';
    }
  }
  return selfStart;
}

let bootId: string | undefined;
/** This machine's boot id (cached), or "unknown" where /proc is unavailable. */
export function currentBootId(): string {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || 'unknown';
    } catch {
      bootId = 'unknown';
    }
  }
  return bootId;
}

/**
 * The labels for one run, owned by this process.
 * @param runId unique run id (also the container name suffix)
 * @param profileName the profile the run uses
 */
export function ownerLabels(runId: string, profileName: string): Record<string, string> {
  return {
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
