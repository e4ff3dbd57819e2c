/**
 * The extension's containers that belong to a set of processes, found through core's owner labels
 * (src/core/ownership/labels.ts: `sandbox-runner=1`, `owner-pid`, `owner-pidns`, `profile`,
 * `sandbox-runner.warm`): listed to report what an extension host left, removed when a host killed
 * by a timeout could not remove them itself.
 */
import { execFile } from 'node:child_process';
import { LABELS, PRODUCT_FILTER, WARM_LABEL } from '../../../src/core/ownership/labels';
import { currentPidNamespace } from '../../../src/core/engine/procLiveness';

/** One of the extension's containers, as `docker ps` lists it. */
export interface OwnedContainer {
  readonly name: string;
  readonly ownerPid: number;
  /** `sandbox-runner.profile` */
  readonly profile: string;
  /** True for a warm container not yet taken by a run (label `sandbox-runner.warm=1`). */
  readonly warm: boolean;
  /** e.g. "Up 3 seconds", "Created" */
  readonly status: string;
}

/** Runs the docker CLI (15 s limit); its stdout, or "" when it failed. */
function dockerCli(args: string[]): Promise<string> {
  return new Promise<string>((resolve) => execFile('docker', args, { timeout: 15_000 }, (err, stdout) => resolve(err ? '' : String(stdout))));
}

/** The `docker ps --format` template: name, owner pid, owner pid namespace, profile, warm, status (tab-separated). */
const FORMAT = ['{{.Names}}', ...[LABELS.ownerPid, LABELS.ownerPidNamespace, LABELS.profile, WARM_LABEL].map((l) => `{{.Label "${l}"}}`), '{{.Status}}'].join('\t');

/**
 * The extension's containers (label `sandbox-runner=1`, any state) whose owner is one of `pids`
 * in this pid namespace (or whose namespace label is "unknown").
 */
export async function containersOwnedBy(pids: ReadonlySet<number>): Promise<OwnedContainer[]> {
  if (pids.size === 0) return [];
  const pidns = currentPidNamespace();
  const listing = await dockerCli(['ps', '-a', '--filter', PRODUCT_FILTER, '--format', FORMAT]);
  return listing
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([name, pid, ns]) => name && pids.has(Number(pid)) && (ns === pidns || ns === 'unknown'))
    .map(([name, pid, , profile, warm, status]) => ({ name: name!, ownerPid: Number(pid), profile: profile ?? '', warm: warm === '1', status: status ?? '' }));
}

/**
 * Removes the extension's containers (label `sandbox-runner=1`) whose owner is one of `pids` in
 * this pid namespace: what an extension host killed by a timeout could not remove itself.
 * @returns the names removed
 */
export async function removeContainersOwnedBy(pids: ReadonlySet<number>): Promise<string[]> {
  const names = (await containersOwnedBy(pids)).map((c) => c.name);
  if (names.length) await dockerCli(['rm', '-f', '-v', ...names]);
  return names;
}
