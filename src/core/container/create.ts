/**
 * `docker create` for the direct path only (images without `sh`, local engine; runner.ts), with
 * the checks a container must pass before it may start: the image's VOLUME check runs alongside
 * the create, and a create whose limits the engine discarded is refused (SECURITY.md: images with
 * `VOLUME`s refused, in "The floor"; "A run never proceeds without its limits"). The launcher
 * paths (cold and warm) check the started container from inspect instead, before the code is
 * sent (admit.ts).
 */
import { classifyEngineFailure } from '../engine/failures';
import { docker } from '../engine/cli';
import { imageVolumes } from '../engine/inspect';
import type { DockerOptions } from '../engine/contracts';
import { discardedLimits, limitsDiscardedError } from '../engine/engineFlags';
import { engineKind } from '../engine/engineKind';
import { SandboxError } from '../errors';

/**
 * Creates a container from `argv` (from `buildCreateArgv`) and checks it.
 * @param onSettled called once as soon as it is known whether the container exists (true as soon
 *   as `docker create` succeeded, also when a check then refuses it: the caller removes it)
 * @throws SandboxError `image-missing`, `daemon-unreachable`, … when the create fails;
 *   `limits-unsupported` when the engine dropped a limit; `image-has-volumes` when the image
 *   declares VOLUMEs; `docker-missing` when the CLI cannot be spawned
 */
export async function createContainer(
  opts: DockerOptions,
  argv: readonly string[],
  image: string,
  onSettled: (exists: boolean) => void,
): Promise<void> {
  const createP = docker(opts, argv);
  createP.then((r) => onSettled(r.exitCode === 0), () => onSettled(false));
  const [create, volumes] = await Promise.allSettled([createP, imageVolumes(opts, image)]);
  if (create.status === 'rejected') throw create.reason;
  if (create.value.exitCode !== 0) throw classifyEngineFailure(create.value.stderr, 'create the container', image, opts);
  // Cached after the runner's first call: no extra engine call here.
  const bareLines = (await engineKind(opts).catch(() => 'docker')) === 'podman';
  const dropped = discardedLimits(create.value.stderr, { bareLines });
  if (dropped.length > 0) throw limitsDiscardedError(dropped);
  if (volumes.status === 'rejected') throw volumes.reason;
  if (volumes.value.length > 0) {
    throw new SandboxError(
      'image-has-volumes',
      `The image "${image}" declares volumes (${volumes.value.join(', ')}), which would be writable and outlive the run.`,
      'Use an image without VOLUME instructions for this profile.',
    );
  }
}
