/**
 * The engine's view of a container and an image, as the parsed JSON of `docker container inspect`
 * / `docker image inspect` (PascalCase, the same shape as the Engine API's `GET /containers/{id}/json`
 * and `GET /images/{name}/json`). Only the fields the pre-code checks read are typed (precheck.ts);
 * the rest is kept as given. Control calls go through these two functions so the transport (the
 * CLI today, the Engine API over the socket later) changes in one place.
 */
import { classifyEngineFailure, docker, type DockerOptions } from './docker';

/** One entry of a container's `Mounts`. */
export interface InspectMount {
  readonly Type?: string;
  readonly Name?: string;
  readonly Source?: string;
  readonly Destination?: string;
  readonly Driver?: string;
  readonly RW?: boolean;
}

/** The parts of `docker container inspect` the runner reads. */
export interface ContainerInspect {
  readonly Id?: string;
  readonly Image?: string;
  readonly State?: { readonly Status?: string; readonly Pid?: number; readonly ExitCode?: number; readonly OOMKilled?: boolean };
  readonly Config?: { readonly Env?: readonly string[] | null; readonly Image?: string };
  readonly HostConfig?: Readonly<Record<string, unknown>>;
  readonly Mounts?: readonly InspectMount[] | null;
}

/** The parts of `docker image inspect` the runner reads. */
export interface ImageInspect {
  readonly Id?: string;
  readonly Config?: { readonly Env?: readonly string[] | null; readonly Volumes?: Readonly<Record<string, unknown>> | null } | null;
}

/** The one object of an inspect array (the CLI prints `[{…}]`). */
function firstObject<T>(stdout: string): T {
  const parsed = JSON.parse(stdout) as unknown;
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!first || typeof first !== 'object') throw new Error('the engine returned no object');
  return first as T;
}

/**
 * `docker container inspect NAME`, parsed.
 * @throws SandboxError when the container does not exist or the engine fails
 */
export async function inspectContainer(opts: DockerOptions, name: string): Promise<ContainerInspect> {
  const r = await docker(opts, ['container', 'inspect', name]);
  if (r.exitCode !== 0) throw classifyEngineFailure(r.stderr, `inspect container ${name}`);
  return firstObject<ContainerInspect>(r.stdout);
}

/** Image inspections by image id (content-addressed, so they never change), per process. */
const imageCache = new Map<string, ImageInspect>();

/**
 * `docker image inspect IMAGE`, parsed. An image id (`sha256:…`) is answered from a per-process
 * cache after the first call (an id names immutable content).
 * @throws SandboxError `image-missing` when the image is not present, or an engine error
 */
export async function inspectImage(opts: DockerOptions, image: string): Promise<ImageInspect> {
  const cached = image.startsWith('sha256:') ? imageCache.get(image) : undefined;
  if (cached) return cached;
  const r = await docker(opts, ['image', 'inspect', image]);
  if (r.exitCode !== 0) throw classifyEngineFailure(r.stderr, `inspect image ${image}`, image);
  const parsed = firstObject<ImageInspect>(r.stdout);
  if (parsed.Id?.startsWith('sha256:')) imageCache.set(parsed.Id, parsed);
  return parsed;
}
