/**
 * The engine's view of a container and an image, as the parsed JSON of `docker container inspect`
 * / `docker image inspect` (PascalCase, the same shape as the Engine API's `GET /containers/{id}/json`
 * and `GET /images/{name}/json`). Only the fields the pre-code checks read are typed (precheck.ts);
 * the rest is kept as given. Both go through docker.ts, which asks the Engine API over the
 * engine's socket (or `docker system dial-stdio`) and falls back to the CLI (Podman).
 */
import { inspectContainer as engineInspectContainer, inspectImage as engineInspectImage, type DockerOptions } from './docker';

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
  readonly Config?: { readonly Env?: readonly string[] | null; readonly Image?: string; readonly Entrypoint?: unknown; readonly Cmd?: unknown };
  readonly HostConfig?: Readonly<Record<string, unknown>>;
  readonly Mounts?: readonly InspectMount[] | null;
}

/** The parts of `docker image inspect` the runner reads. */
export interface ImageInspect {
  readonly Id?: string;
  readonly Config?: { readonly Env?: readonly string[] | null; readonly Volumes?: Readonly<Record<string, unknown>> | null } | null;
}

/**
 * `docker container inspect NAME`, parsed.
 * @throws SandboxError when the container does not exist or the engine fails
 */
export async function inspectContainer(opts: DockerOptions, name: string): Promise<ContainerInspect> {
  return (await engineInspectContainer(opts, name)) as unknown as ContainerInspect;
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
  const parsed = (await engineInspectImage(opts, image)) as unknown as ImageInspect;
  if (parsed.Id?.startsWith('sha256:')) imageCache.set(parsed.Id, parsed);
  return parsed;
}
