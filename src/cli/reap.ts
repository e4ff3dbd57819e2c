/** `sandbox-run --reap`: the orphan sweep (core reaper.ts) on the engine in use, reported line by line. */
import { engineTarget, isSandboxError, reapOrphans, targetText, type DockerOptions } from '../core';
import { EXIT } from './exitCodes';
import { row, say } from './messages';
import { pruneDependencySets } from '../core/deps/prune';

/**
 * Removes the sandbox containers (and mount anchor folders) of dead runs on the engine of `opts`:
 * one `removed\tNAME` / `kept\tNAME\tREASON` row per container on stdout, a count on stderr.
 * @returns 0, or {@link EXIT.failedToStart} when the engine could not be asked (its message said)
 */
export async function reap(opts: DockerOptions): Promise<number> {
  let report;
  try {
    report = await reapOrphans({ docker: opts });
  } catch (e) {
    if (!isSandboxError(e)) throw e;
    say(`${e.message} ${e.fix}`);
    return EXIT.failedToStart;
  }
  for (const name of report.removed) row(`removed\t${name}`);
  for (const dir of report.removedAnchors ?? []) row(`removed\t${dir}`);
  for (const volume of report.removedVolumes ?? []) row(`removed\t${volume}`);
  for (const k of report.kept) row(`kept\t${k.name}\t${k.reason}`);
  const anchors = (report.removedAnchors?.length ? ` and ${report.removedAnchors.length} mount anchor folder(s)` : '') +
    (report.removedVolumes?.length ? ` and ${report.removedVolumes.length} unpublished dependency volume(s)` : '');
  say(`removed ${report.removed.length} orphaned container(s)${anchors}, kept ${report.kept.length} (engine ${targetText(engineTarget(opts))}).`);
  return 0;
}

/**
 * `sandbox-run --prune-deps` (issue 22): removes the installed dependency sets on the engine of
 * `opts` (core deps/prune.ts), one `removed\tVOLUME` / `kept\tVOLUME\tREASON` row each, a count on stderr.
 * @returns 0, or {@link EXIT.failedToStart} when the engine could not be asked
 */
export async function pruneDeps(opts: DockerOptions): Promise<number> {
  let report;
  try {
    report = await pruneDependencySets(opts);
  } catch (e) {
    if (!isSandboxError(e)) throw e;
    say(`${e.message} ${e.fix}`);
    return EXIT.failedToStart;
  }
  for (const name of report.removed) row(`removed\t${name}`);
  for (const k of report.kept) row(`kept\t${k.name}\t${k.reason}`);
  say(`removed ${report.removed.length} dependency volume(s), kept ${report.kept.length} in use (engine ${targetText(engineTarget(opts))}).`);
  return 0;
}
