/**
 * A session's container (issue 24), started exactly as a run's cold container is (runner.ts):
 * the profile validated, its mounts pinned (mounts.ts), `docker run -i` with the whole floor and
 * the constant launcher (argv.ts `buildRunArgv`), the owner labels and lease (labels.ts: the
 * orphan sweep covers it), the pre-code checks while the launcher waits (admit.ts), and only then
 * the code frame: here the kernel (kernelSource.ts), whose stdin then stays open for cells. A
 * `workspace: "ro"` profile gets its document's folder as a run does, through the same code
 * (workspaceMount.ts `applyWorkspace`, workspacePins.ts `pinMounts`): read-only at
 * `/workspace/<name>` with its masks, the document's folder as the working directory and on the
 * profile's `modulePathEnv`.
 * No `vscode` import here.
 */
import { admitContainer } from '../admission/admit';
import { buildRunArgv } from '../container/argv';
import { openRunLease, type AttachedLease } from '../container/lease';
import { scheduleRemoval } from '../container/removals';
import { prepareControl } from '../engine/control';
import type { DockerOptions } from '../engine/contracts';
import { engineSpec } from '../engine/podman/engineSpec';
import { SandboxError } from '../errors';
import { newContainerName, profileSettingPath } from '../layout';
import { applyWorkspace } from '../mounts/workspaceMount';
import { pinMounts } from '../mounts/workspacePins';
import { ownerLabels } from '../ownership/labels';
import { usesPathVariables, type RunPaths } from '../profiles/pathVariables';
import { toProfileIssues } from '../profiles/profileResolution';
import { ProfileSchema, type Profile } from '../profiles/profileSchema';
import { diagnoseNoLauncher } from '../run/diagnose';
import { pinCurrentContext } from '../run/session';
import { snippetFileName } from '../source/snippet';

/** What starting a session's container needs. */
export interface SessionContainerRequest {
  /** Profile name, for labels and messages. */
  readonly profileName: string;
  /** A validated profile; validated again here. Its limits are the session's. */
  readonly profile: Profile;
  readonly docker?: DockerOptions;
  /** Extra host paths no mount may touch (e.g. the extension's state directory). */
  readonly protectedPaths?: readonly string[];
  /** Receives the engine argv before it runs (debug logs). */
  readonly onArgv?: (argv: readonly string[]) => void;
  /**
   * The document's paths, as a run's (run/request.ts `RunRequest.paths`, without `file`): a
   * notebook's workspace folder and its own folder. A `workspace: "ro"` profile without a
   * workspace folder is refused (workspaceMount.ts `applyWorkspace`).
   */
  readonly paths?: RunPaths;
  /** Globs hidden from the workspace mount (the user-level `sandboxRunner.maskedFiles`); default `DEFAULT_MASK_GLOBS`. */
  readonly maskGlobs?: readonly string[];
  /** Receives the line saying where the workspace folder is mounted (workspacePins.ts `pinMounts`). */
  readonly onNotice?: (text: string) => void;
}

/** A started, admitted session container whose launcher waits for the kernel. */
export interface SessionContainer {
  readonly lease: AttachedLease;
  readonly profile: Profile;
  /** The engine options pinned for the session's life (run/session.ts `pinCurrentContext`). */
  readonly docker: DockerOptions;
}

/**
 * Refuses a profile a session cannot use, before anything starts: the kernel is Python, so the
 * profile must list the `python` language; a `compile` step and mount path variables are not part
 * of sessions yet. (`workspace: "ro"` is: {@link startSessionContainer}.)
 * @throws SandboxError `invalid-profile` naming the key
 */
export function checkSessionProfile(profileName: string, profile: Profile): void {
  const refuse = (key: string, why: string, fix: string) => {
    throw new SandboxError('invalid-profile', `Profile "${profileName}" cannot host a session: ${why} (${profileSettingPath(profileName, key)}), so nothing started.`, fix);
  };
  if (!profile.languages.includes('python')) refuse('languages', 'the session kernel is a Python program and the profile does not list the language "python"', 'Use a Python profile (e.g. "python") for sessions.');
  if (profile.compile) refuse('compile', 'a session runs its kernel directly, without a compile step', 'Use a profile without "compile" for sessions.');
  if (usesPathVariables(profile)) refuse('mounts', 'a session has no document, so ${workspaceFolder} and ${fileDirname} have no value', 'Use absolute mount sources in a profile used for sessions.');
}

/**
 * Starts the container: validation, the workspace plan, pinned mounts, `docker run -i` with the
 * floor and the launcher, and admission. The kernel is not sent yet (the caller sends it, session.ts).
 * @throws SandboxError `invalid-profile` (validation, {@link checkSessionProfile}), `invalid-mount`
 *   (a mount, or the workspace folder: missing, colliding, refused as any mount),
 *   an engine error, `container-refused`/`limits-unsupported` from admission, `start-failed` when
 *   the image has no `sh`; the container is removed in each case
 */
export async function startSessionContainer(req: SessionContainerRequest): Promise<SessionContainer> {
  const checked = ProfileSchema.safeParse(req.profile);
  if (!checked.success) {
    const issues = toProfileIssues(profileSettingPath(req.profileName), checked.error);
    throw new SandboxError('invalid-profile', `Profile "${req.profileName}" is invalid: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}.`, 'Fix the profile and start the session again.');
  }
  checkSessionProfile(req.profileName, checked.data);
  const { profile, plan } = applyWorkspace({ name: req.profileName, profile: checked.data }, req.paths);
  const docker = pinCurrentContext(req.docker ?? {});
  prepareControl(docker);
  const pins = await pinMounts({ name: req.profileName, profile }, req.protectedPaths, { docker }, plan, req.maskGlobs, req.onNotice ?? (() => undefined));
  try {
    const { runId, name } = newContainerName();
    const argv = buildRunArgv({
      name, profile, snippetFileName: snippetFileName(profile), mounts: pins.mounts,
      labels: ownerLabels(runId, req.profileName), ...(await engineSpec(docker)),
      ...(plan?.workdir !== undefined ? { workdir: plan.workdir } : {}),
    });
    req.onArgv?.(argv);
    const lease = openRunLease(docker, 'cold', name, argv);
    let admitted: boolean;
    try {
      admitted = await admitContainer(docker, lease, profile, pins.mounts);
    } catch (e) {
      void scheduleRemoval(docker, name, Promise.race([lease.waiting, lease.exit])).catch(() => undefined);
      throw e;
    }
    if (!admitted) {
      const exit = await lease.exit;
      try {
        await diagnoseNoLauncher(docker, lease, exit, profile.image);
        throw new SandboxError('start-failed', `The image "${profile.image}" has no "sh" to receive the kernel over stdin, so the session did not start.`, 'Use an image with a shell (sh) and python3 for sessions.');
      } finally {
        void scheduleRemoval(docker, name).catch(() => undefined);
      }
    }
    return { lease, profile, docker };
  } finally {
    await pins.dispose(); // the container started with the pinned sources (mounts.ts)
  }
}
