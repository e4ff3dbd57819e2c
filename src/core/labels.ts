/**
 * Owner labels put on every container (isolation.md, "Ownership and orphans"), so that
 * containers can be listed with `docker ps -a --filter label=sandbox-runner=1` and an orphan's
 * owner can be checked for liveness.
 */
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** The product label key; its value is always "1". */
export const PRODUCT_LABEL = 'sandbox-runner';
/** Label keys set on every container. */
export const LABELS = {
  product: PRODUCT_LABEL,
  ownerPid: `${PRODUCT_LABEL}.owner-pid`,
  ownerPidNamespace: `${PRODUCT_LABEL}.owner-pidns`,
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
 * The labels for one run, owned by this process.
 * @param runId unique run id (also the container name suffix)
 * @param profileName the profile the run uses
 */
export function ownerLabels(runId: string, profileName: string): Record<string, string> {
  return {
    [LABELS.product]: '1',
    [LABELS.ownerPid]: String(process.pid),
    [LABELS.ownerPidNamespace]: currentPidNamespace(),
    [LABELS.host]: hostname(),
    [LABELS.runId]: runId,
    [LABELS.profile]: profileName,
  };
}
