/**
 * The Python version of a profile's image, for a PEP 723 `requires-python` checked when the script
 * lists no dependencies (issue 22: with dependencies the install records it, install.ts). Asked
 * once per engine and image ID by a probe container with the run's floor and no network (Podman's
 * flavour of it on Podman, as runs get)
 * (`python3 -c …`, about one cold start), then remembered for the life of the process.
 */
import { docker } from '../engine/cli';
import type { DockerOptions } from '../engine/contracts';
import { removeContainer } from '../engine/containerOps';
import { engineSpec } from '../engine/podman/engineSpec';
import { SandboxError } from '../errors';
import { newContainerName } from '../layout';
import { buildInstallArgv } from '../container/argv';
import { ownerLabels } from '../ownership/labels';
import type { Profile } from '../profiles/profileSchema';
import { requiresPythonOnly } from './declared';
import { requiresPythonProblem } from './requiresPython';

/** The probe's time limit (a cold start on a loaded machine takes seconds). */
const PROBE_TIMEOUT_MS = 60_000;

/** engine + image ID → the version, e.g. `3.11.2`. */
const known = new Map<string, string>();

/**
 * The `python3` version of `profile.image` (e.g. `3.11.2`).
 * @throws SandboxError `image-missing` when the image is absent; `start-failed` (one sentence)
 *   when the probe did not print a version (no python3 in the image, or the engine failed)
 */
export async function imagePythonVersion(opts: DockerOptions, profileName: string, profile: Profile): Promise<string> {
  const id = await docker(opts, ['image', 'inspect', '--format', '{{.Id}}', '--', profile.image]);
  if (id.exitCode !== 0) throw new SandboxError('image-missing', `The image "${profile.image}" is not present, so the script's requires-python could not be checked.`, 'Build or pull the image, then run again.');
  const cacheKey = JSON.stringify([opts, id.stdout.trim()]);
  const cached = known.get(cacheKey);
  if (cached) return cached;
  const { runId, name } = newContainerName();
  const argv = buildInstallArgv(
    { name, profile, snippetFileName: 'main', mounts: [], labels: ownerLabels(runId, profileName), network: 'none', ...(await engineSpec(opts)) },
    ['python3', '-c', 'import platform; print(platform.python_version())'],
  );
  try {
    const r = await docker(opts, [...argv], PROBE_TIMEOUT_MS);
    const version = /^(\d{1,4}(?:\.\d{1,4}){1,3})\n?$/.exec(r.stdout)?.[1];
    if (r.exitCode !== 0 || !version) {
      throw new SandboxError('start-failed', `The script declares requires-python, but the image of profile "${profileName}" did not report a Python version (exit ${r.exitCode}), so nothing ran.`, 'Pick a profile whose image has python3, or remove requires-python.');
    }
    known.set(cacheKey, version);
    return version;
  } finally {
    await removeContainer(opts, name).catch(() => undefined);
  }
}

/**
 * Checks `requiresPython` against the image's Python (probed, {@link imagePythonVersion}).
 * @throws SandboxError `invalid-profile` when it is not met or not understood (requiresPython.ts);
 *   the errors of {@link imagePythonVersion}
 */
export async function checkRequiresPython(opts: DockerOptions, profileName: string, profile: Profile, requiresPython: string): Promise<void> {
  const problem = requiresPythonProblem(requiresPython, await imagePythonVersion(opts, profileName, profile), profileName);
  if (problem) throw new SandboxError('invalid-profile', `${problem} Nothing ran.`, 'Change requires-python or the profile, then run again.');
}

/**
 * The check a run without dependencies needs before it starts: its PEP 723 `requires-python`
 * (declared.ts `requiresPythonOnly`) against the image's Python ({@link checkRequiresPython}). With
 * dependencies the install checks it instead. The one entry the CLI, the MCP server, the editor and
 * the language model tool use.
 * @param agentSpecs an agent's `dependencies` input, when any
 * @returns the check (it throws as {@link checkRequiresPython}), or undefined when there is nothing to check
 */
export function requiresPythonCheck(opts: DockerOptions, profileName: string, profile: Profile, code: string, agentSpecs: readonly string[] = []): (() => Promise<void>) | undefined {
  const requiresPython = requiresPythonOnly(profile, code, agentSpecs);
  return requiresPython === undefined ? undefined : () => checkRequiresPython(opts, profileName, profile, requiresPython);
}
