/**
 * Removing installed dependency sets (issue 22, `sandbox-run --prune-deps`): every volume with the
 * set-key label on the engine, name volumes first (so no run picks a set whose data is going),
 * then data volumes. The engine refuses to remove a volume a container uses (a run or an install
 * in progress): such a volume is kept, with the engine's reason.
 */
import { docker } from '../engine/cli';
import type { DockerOptions } from '../engine/contracts';
import { SandboxError } from '../errors';
import { DEPS_DATA_LABEL, DEPS_KEY_LABEL } from './install';

/** What a prune did. */
export interface PruneReport {
  readonly removed: readonly string[];
  readonly kept: readonly { readonly name: string; readonly reason: string }[];
}

/**
 * Removes every dependency set on the engine of `opts` that no container uses.
 * @throws SandboxError `engine-error` when the engine cannot list volumes
 */
export async function pruneDependencySets(opts: DockerOptions): Promise<PruneReport> {
  const list = async (label: string) => {
    const r = await docker(opts, ['volume', 'ls', '-q', '--filter', `label=${label}`]);
    if (r.exitCode !== 0) throw new SandboxError('engine-error', `The engine did not list its volumes: ${r.stderr.trim().slice(0, 300)}`, 'Check the engine (docker info), then run again.');
    return r.stdout.split('\n').map((s) => s.trim()).filter((s) => /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(s));
  };
  const names = await list(DEPS_DATA_LABEL);
  const data = (await list(DEPS_KEY_LABEL)).filter((v) => !names.includes(v));
  const removed: string[] = [];
  const kept: { name: string; reason: string }[] = [];
  for (const v of [...names, ...data]) {
    const r = await docker(opts, ['volume', 'rm', v]);
    if (r.exitCode === 0) removed.push(v);
    else kept.push({ name: v, reason: r.stderr.trim().split('\n')[0]!.slice(0, 200) });
  }
  return { removed, kept };
}
