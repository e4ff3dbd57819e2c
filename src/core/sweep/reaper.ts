/**
 * The container sweep (SECURITY.md, "Ownership and orphans"): product containers whose owning
 * process is provably gone (liveness.ts decides) are removed; everything else is left alone, with
 * the reason. It works on the engine in use (`DockerOptions`: local, remote over ssh/tcp, or
 * shared by several clients). A sweep also removes the host folders of dead owners (hostDirs.ts).
 *
 * Labels alone do not prove the product made a container: an image's Dockerfile `LABEL`s are
 * copied onto every container made from it. So a container is only removed when its name is the
 * one the product gives (`sandbox-runner-<run-id label>`, a UUID: a name is chosen by whoever
 * creates the container, never by the image), and its image carries no product label.
 *
 * Every engine call about one container is time-boxed ({@link SWEEP_CALL_TIMEOUT_MS}): a container
 * the engine cannot answer about (a hung runtime, e.g. a gVisor container whose start never
 * returned, blocks its inspect and removal in dockerd) is kept, with that reason, and the sweep
 * goes on with the others instead of waiting the full control timeout on each of its calls.
 */
import { containerName, RUN_ID, SNIPPET_DIR } from '../layout';
import { inspectContainer, inspectImage } from '../engine/inspect';
import { listContainers, removeContainer } from '../engine/containerOps';
import type { DockerOptions } from '../engine/contracts';
import { isSandboxError } from '../errors';
import { byCodeUnits } from '../textOrder';
import { LABELS, PRODUCT_LABEL } from '../ownership/labels';
import { processLease, removeOldLeaseFiles } from '../ownership/ownerLease';
import { containerLiveness, localLeaseView, localProbe, type LeaseView, type OwnerLiveness, type ProcessProbe } from '../ownership/liveness';
import { removeStaleAnchors, removeStaleEngineDirs, removeStaleSnippetDir } from './hostDirs';
import { sweepUnpublishedSets } from './depVolumes';

/** Options of {@link reapOrphans} and {@link removeOwnContainers}. */
export interface ReapOptions {
  readonly docker?: DockerOptions;
  /** Replaces the liveness probe of this machine (tests). */
  readonly probe?: ProcessProbe;
  /** Replaces this client's view of owner leases (tests). */
  readonly leases?: LeaseView;
  /** Longest wait for each engine call about one container, ms (default {@link SWEEP_CALL_TIMEOUT_MS}). */
  readonly callTimeoutMs?: number;
}

/**
 * Longest wait for one engine call about one container during a sweep, ms. Far above what a
 * healthy engine needs (inspect and `rm -f` answer within a second here, a few under load) and far
 * below the 60 s control timeout that each of a hung container's four calls would otherwise wait.
 */
export const SWEEP_CALL_TIMEOUT_MS = 15_000;

/** Thrown by {@link answered} when the engine did not answer about one container in time. */
class NoAnswer extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** The time box of one sweep: the calls' engine options and the limit, ms. */
interface Boxed {
  readonly opts: DockerOptions;
  readonly ms: number;
}

/**
 * The engine options of a sweep's per-container calls: their own control timeout a little past the
 * box, so that the box (the sweep's verdict) always ends first and the call is still aborted soon after.
 */
function boxed(opts: DockerOptions, ms: number): Boxed {
  return { opts: { ...opts, controlTimeoutMs: ms + 2_000 }, ms };
}

/**
 * `call`'s result, or {@link NoAnswer} when the engine gave none within the box.
 * @throws NoAnswer after `box.ms`; whatever `call` throws before that
 */
async function answered<T>(box: Boxed, call: (opts: DockerOptions) => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswer(`the engine did not answer about it within ${Math.round(box.ms / 1000)} s, so it was left in place`)), box.ms);
  });
  try {
    return await Promise.race([call(box.opts), late]);
  } finally {
    clearTimeout(timer);
  }
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
  /** Unpublished dependency data volumes of dead owners that were removed (issue 22, depVolumes.ts). */
  readonly removedVolumes?: string[];
  /** Containers left in place, each with the reason. */
  readonly kept: KeptContainer[];
}

/** A product container as listed by `docker ps`, with its owner labels ("" when missing). */
export interface OwnedContainer {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
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

/**
 * Whether a container's image carries any product label (then the container's labels prove nothing).
 * @throws NoAnswer when the engine did not answer in time
 */
async function imageCarriesProductLabels(box: Boxed, name: string): Promise<boolean | undefined> {
  const container = await answered(box, (o) => inspectContainer(o, name).catch(rethrowNoAnswer));
  const image = container?.Image;
  if (typeof image !== 'string' || !image) return undefined;
  const inspected = await answered(box, (o) => inspectImage(o, image).catch(rethrowNoAnswer));
  if (!inspected) return undefined;
  const labels = inspected.Config?.Labels;
  return Object.keys(labels ?? {}).some((k) => k === LABELS.product || k.startsWith(`${LABELS.product}.`));
}

/** An engine failure is "cannot be read" (undefined); a {@link NoAnswer} stays one. */
function rethrowNoAnswer(e: unknown): undefined {
  if (e instanceof NoAnswer) throw e;
  return undefined;
}

/** Keeps the candidates whose image carries product labels (or cannot be read, or got no answer), with the reason. */
async function withoutImageLabelled(box: Boxed, candidates: readonly OwnedContainer[], kept: KeptContainer[]): Promise<OwnedContainer[]> {
  const out: OwnedContainer[] = [];
  for (const c of candidates) {
    let labelled: boolean | undefined;
    try {
      labelled = await imageCarriesProductLabels(box, c.name);
    } catch (e) {
      if (!(e instanceof NoAnswer)) throw e;
      kept.push({ name: c.name, reason: e.reason });
      continue;
    }
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

/**
 * The host directory a container has bind-mounted at {@link SNIPPET_DIR}, or undefined.
 * @throws NoAnswer when the engine did not answer in time
 */
async function snippetDirOf(box: Boxed, name: string): Promise<string | undefined> {
  const mounts = (await answered(box, (o) => inspectContainer(o, name).catch(rethrowNoAnswer)))?.Mounts ?? [];
  const source = mounts.find((m) => m.Destination === SNIPPET_DIR)?.Source;
  return typeof source === 'string' && source ? source : undefined;
}

/** Removes `chosen`, four at a time; each one that fails or gets no answer in time is kept, with the reason. */
async function removeAll(box: Boxed, chosen: readonly OwnedContainer[], kept: KeptContainer[]): Promise<string[]> {
  const removed: string[] = [];
  // A few at a time: each `docker rm -f` may wait for the container's processes to end.
  const queue = [...chosen];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      try {
        const snippetDir = await snippetDirOf(box, c.name);
        await answered(box, (o) => removeContainer(o, c.name));
        removed.push(c.name);
        // The dead owner could not delete its snippet directory; with the container gone, nothing uses it.
        if (snippetDir) removeStaleSnippetDir(snippetDir);
      } catch (e) {
        kept.push({ name: c.name, reason: e instanceof NoAnswer ? e.reason : `it could not be removed: ${isSandboxError(e) ? e.message : String(e)}` });
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return removed.sort();
}

/**
 * Removes product containers whose owner process is provably gone (see the module comment);
 * keeps every other one and says why. Meant for activation, periodically, and `sandbox-run --reap`.
 * A container the engine does not answer about within `opts.callTimeoutMs` (per call) is kept.
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
  const box = boxed(dockerOpts, opts.callTimeoutMs ?? SWEEP_CALL_TIMEOUT_MS);
  const removed = await removeAll(box, await withoutImageLabelled(box, orphans, kept), kept);
  const own = processLease();
  if (!opts.leases && own) removeOldLeaseFiles(own.dir, Date.now(), own.clockTrusted());
  // Issue 22: unpublished dependency volumes of dead owners, in the same time box (never fails the sweep).
  const volumes = await answered(box, (o) => sweepUnpublishedSets(o, probe, leases)).catch(() => ({ removed: [] }));
  return {
    removed,
    removedVolumes: volumes.removed,
    removedAnchors: removeStaleAnchors(probe),
    removedEngineDirs: removeStaleEngineDirs(probe),
    kept: kept.sort((a, b) => byCodeUnits(a.name, b.name)),
  };
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
  const box = boxed(dockerOpts, opts.callTimeoutMs ?? SWEEP_CALL_TIMEOUT_MS);
  const removed = await removeAll(box, await withoutImageLabelled(box, mine, kept), kept);
  return { removed, kept: kept.sort((a, b) => byCodeUnits(a.name, b.name)) };
}
