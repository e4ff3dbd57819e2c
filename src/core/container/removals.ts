/**
 * Container removal off the critical path: a run's result is reported once the program's exit is
 * known, and `docker rm -f -v` goes on in the background, tracked here. The CLI awaits
 * {@link awaitRemovals} before it exits, the extension's deactivate awaits it, and so do the
 * engine suites before counting leftovers. One registry per process (kept on `globalThis`, so
 * every bundled copy of this module shares it). A removal that fails is kept as a failure and
 * returned by `awaitRemovals`; the orphan sweep (reaper.ts) removes such containers later.
 */
import { removeContainer } from '../engine/containerOps';
import type { DockerOptions } from '../engine/contracts';

/** A removal that failed: the container name and the error text (message and fix). */
export interface RemovalFailure {
  readonly name: string;
  readonly error: string;
}

interface Registry {
  readonly pending: Map<string, Promise<void>>;
  readonly failures: RemovalFailure[];
}

const KEY = Symbol.for('sandbox-runner.removals');
const registry: Registry = ((globalThis as { [KEY]?: Registry })[KEY] ??= { pending: new Map(), failures: [] });

/**
 * Removes a container in the background (once per name while one is in flight).
 * @param after removal starts once this settles (e.g. the engine call that creates the container)
 * @param mayNotExist true when the container may never have been created (the launcher never said
 *   it waits): an unreachable engine is then not recorded as a failed removal
 * @returns the removal, which rejects with the engine's error (callers may ignore it: the failure is kept)
 */
export function scheduleRemoval(
  opts: DockerOptions, name: string, after: Promise<unknown> = Promise.resolve(), mayNotExist: () => boolean = () => false,
): Promise<void> {
  const existing = registry.pending.get(name);
  if (existing) return existing;
  const removal = after.catch(() => undefined).then(() => removeContainer(opts, name));
  registry.pending.set(name, removal);
  removal.then(
    () => registry.pending.delete(name),
    (e: unknown) => {
      registry.pending.delete(name);
      const err = e as { code?: string; message?: string; fix?: string };
      if (mayNotExist() && unreachable(err)) return;
      registry.failures.push({ name, error: err.fix ? `${err.message} ${err.fix}` : String(e) });
    },
  );
  return removal;
}

/**
 * An engine that cannot be reached (or a docker context that does not exist): when the container may
 * never have been created, that removal failure is no failure to report (the orphan sweep removes
 * the container if it did come to exist: it carries the owner labels).
 */
function unreachable(err: { code?: string; message?: string }): boolean {
  return err.code === 'daemon-unreachable' || /Failed to initialize|context not found/i.test(err.message ?? '');
}

/** Names of containers whose removal is in flight. */
export function pendingRemovals(): string[] {
  return [...registry.pending.keys()];
}

/**
 * Resolves once no removal is in flight (also those scheduled meanwhile).
 * @returns the removals that failed since the last call (then forgotten)
 */
export async function awaitRemovals(): Promise<RemovalFailure[]> {
  while (registry.pending.size > 0) await Promise.allSettled([...registry.pending.values()]);
  return registry.failures.splice(0);
}
