/**
 * The pinned mounts of a container that may see its document's folder: a run's (run/session.ts
 * `RunSession.pin`) and a session's (session/start.ts), so both mount, check and mask the
 * workspace folder the same way. The profile's mounts and, for a `workspace: "ro"` plan
 * (workspaceMount.ts), the folder last (mounts.ts `resolveMounts`: checked, pinned and probed as
 * any mount, read-only), then one read-only mask per entry found in the checked folder
 * (workspaceMask.ts: `.git` and the user's globs).
 */
import type { ResolvedMount } from '../container/argv';
import { SandboxError } from '../errors';
import type { NamedProfile } from '../profiles/profileResolution';
import { resolveMounts, type MountEngine, type PinnedMounts } from './mounts';
import { DEFAULT_MASK_GLOBS, findMasked } from './workspaceMask';
import { isMountContainerPath, type FolderPlan } from './workspaceMount';

/**
 * Resolves and pins the profile's mounts and the workspace folder with its masks. Says in
 * `notice` (one line, ending in a line break) where the folder is and how many entries were masked.
 * @param workspace a `workspace: "ro"` container's plan (workspaceMount.ts `applyWorkspace`)
 * @param maskGlobs globs hidden from the folder (the user-level `sandboxRunner.maskedFiles`);
 *   default `DEFAULT_MASK_GLOBS` (`.git` is masked whatever they say, workspaceMask.ts)
 * @returns the pins: the caller must `dispose` them once the container started, on every path
 * @throws SandboxError `invalid-mount` as `resolveMounts`, or for a masked path docker's
 *   `--mount` syntax cannot carry (`,` `:` `=` `"` or a line break); nothing stays pinned then
 */
export async function pinMounts(
  named: NamedProfile, protectedPaths: readonly string[] | undefined, engine: MountEngine,
  workspace: FolderPlan | undefined, maskGlobs: readonly string[] | undefined, notice: (text: string) => void,
): Promise<PinnedMounts> {
  const request = workspace && { source: workspace.folder, target: workspace.target };
  const pins = await resolveMounts(named, protectedPaths, engine, request);
  if (!workspace) return pins;
  try {
    const mount = pins.mounts.at(-1)!;
    const masked = await findMasked(mount.source, maskGlobs ?? DEFAULT_MASK_GLOBS);
    const masks: ResolvedMount[] = masked.map((m) => ({ source: '/dev/null', target: `${mount.target}/${m.path}`, readOnly: true, mask: m.kind }));
    const unsafe = masks.find((m) => !isMountContainerPath(m.target));
    if (unsafe) {
      throw new SandboxError(
        'invalid-mount',
        `The workspace entry ${JSON.stringify(unsafe.target.slice(mount.target.length + 1))} must be masked, but its name holds a character docker's --mount syntax would read as a separator (, : = " or a line break), so nothing ran.`,
        'Rename that file or folder, or set the profile\'s "workspace" to "none".',
      );
    }
    notice(`[sandbox-runner] workspace ${mount.source} mounted read-only at ${mount.target}; ${masks.length} ${masks.length === 1 ? 'entry' : 'entries'} masked (.git and sandboxRunner.maskedFiles).\n`);
    return { mounts: [...pins.mounts, ...masks], dispose: pins.dispose };
  } catch (e) {
    await pins.dispose();
    throw e;
  }
}
