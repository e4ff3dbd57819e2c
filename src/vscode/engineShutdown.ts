/**
 * The engine bundle's part of deactivate (extension.ts), kept here so the activation bundle only
 * calls it: every session of this window (notebooks' and the agent tool's, core session.ts
 * `closeAllSessions`) is closed, the removals in flight are awaited, anything of this window
 * still there is removed, and the owner lease goes last (a clean exit: its containers are gone).
 */
import type { DockerOptions } from '../core';
import { awaitRemovals } from '../core/container/removals';
import { closeProcessLease } from '../core/ownership/ownerLease';
import { closeAllSessions } from '../core/session/session';
import { removeOwnContainers } from '../core/sweep/reaper';

/**
 * Removes this window's containers and its owner lease. Never throws.
 * @param warn one line of the extension's log for each removal that failed
 */
export async function shutdownEngine(docker: DockerOptions, warn: (message: string) => void): Promise<void> {
  await closeAllSessions();
  // Results come before their containers' removal ends (removals.ts): wait for those too.
  for (const f of await awaitRemovals()) warn(`could not remove container ${f.name}: ${f.error}`);
  // Anything of this window still there (e.g. a run whose cancel raced the shutdown) goes too.
  try {
    await removeOwnContainers({ docker });
  } catch (e) {
    warn(`could not remove this window's containers: ${String(e)}`);
  }
  closeProcessLease();
}
