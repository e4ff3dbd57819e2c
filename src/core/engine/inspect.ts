/**
 * The engine's view of a container and an image: `docker container inspect` / `docker image
 * inspect` (API `GET /containers/{id}/json`, `GET /images/{name}/json`), parsed into the shapes of
 * contracts.ts, and the parts of a container's `.State` the runner reads. Over control.ts: the
 * Engine API where it reaches the engine, else the CLI (Podman).
 */
import { docker } from './cli';
import type { ContainerInspect, ContainerState, DockerOptions, ImageInspect } from './contracts';
import { apiFailure, control, segment } from './control';
import { classifyEngineFailure } from './failures';
import { conmonSawOom } from './podman/workDir';

/** The one object of a `docker … inspect` array, or undefined. */
function firstInspected(stdout: string): Record<string, unknown> | undefined {
  const list = JSON.parse(stdout || '[]') as unknown;
  const first = Array.isArray(list) ? (list[0] as unknown) : undefined;
  return first && typeof first === 'object' ? (first as Record<string, unknown>) : undefined;
}

/**
 * A container's full inspect JSON (API `GET /containers/{name}/json`; CLI `docker container inspect`).
 * @throws SandboxError when the container does not exist ("No such container") or the engine fails
 */
export async function inspectContainer(opts: DockerOptions, name: string): Promise<ContainerInspect> {
  return control(
    opts,
    async (c, t) => {
      const r = await c.request('GET', `/containers/${segment(name)}/json`, t);
      if (r.status !== 200 || typeof r.body !== 'object' || !r.body) throw apiFailure(r, `inspect container ${name}`);
      return r.body as ContainerInspect;
    },
    async () => {
      const r = await docker(opts, ['container', 'inspect', name]);
      const first = r.exitCode === 0 ? firstInspected(r.stdout) : undefined;
      if (!first) throw classifyEngineFailure(r.stderr, `inspect container ${name}`);
      return first as ContainerInspect;
    },
  );
}

/**
 * An image's full inspect JSON (API `GET /images/{image}/json`; CLI `docker image inspect`).
 * @throws SandboxError `image-missing` when the image is not on the engine, or an engine error
 */
export async function inspectImage(opts: DockerOptions, image: string): Promise<ImageInspect> {
  return control(
    opts,
    async (c, t) => {
      const r = await c.request('GET', `/images/${segment(image)}/json`, t);
      if (r.status !== 200 || typeof r.body !== 'object' || !r.body) throw apiFailure(r, `inspect image ${image}`, image, opts);
      return r.body as ImageInspect;
    },
    async () => {
      const r = await docker(opts, ['image', 'inspect', image]);
      const first = r.exitCode === 0 ? firstInspected(r.stdout) : undefined;
      if (!first) throw classifyEngineFailure(r.stderr, `inspect image ${image}`, image, opts);
      return first as ImageInspect;
    },
  );
}

/** Image inspections by image id (content-addressed, so they never change), per process. */
const imageCache = new Map<string, ImageInspect>();

/**
 * {@link inspectImage} answered from a per-process cache for an image id (`sha256:…`) after the
 * first call (an id names immutable content). For the pre-code checks (admit.ts).
 * @throws SandboxError `image-missing` when the image is not present, or an engine error
 */
export async function inspectImageCached(opts: DockerOptions, image: string): Promise<ImageInspect> {
  const cached = image.startsWith('sha256:') ? imageCache.get(image) : undefined;
  if (cached) return cached;
  const parsed = await inspectImage(opts, image);
  if (parsed.Id?.startsWith('sha256:')) imageCache.set(parsed.Id, parsed);
  return parsed;
}

/** The {@link ContainerState} of an inspect JSON's `.State`. */
export function containerState(inspect: ContainerInspect): ContainerState {
  const s = (inspect.State ?? {}) as {
    Status?: string; ExitCode?: number; OOMKilled?: boolean; Error?: string; StartedAt?: string; Pid?: number;
  };
  return {
    status: s.Status ?? 'unknown',
    exitCode: s.ExitCode ?? -1,
    // Podman 4.3 reports false after an OOM kill; its conmon's `oom` file says so instead.
    oomKilled: s.OOMKilled === true || conmonSawOom(String(inspect.Name ?? '').replace(/^\//, '')),
    error: s.Error ?? '',
    started: !!s.StartedAt && !s.StartedAt.startsWith('0001-'),
    pid: Number.isInteger(s.Pid) && s.Pid! > 0 ? s.Pid! : 0,
  };
}

/**
 * Reads a container's state.
 * @throws SandboxError when the container does not exist or the engine fails
 */
export async function inspectState(opts: DockerOptions, name: string): Promise<ContainerState> {
  return containerState(await inspectContainer(opts, name));
}

/**
 * The host pid of a running container's init process (`.State.Pid`), or 0 when it is not running.
 * @throws SandboxError when the container does not exist or the engine fails
 */
export async function inspectPid(opts: DockerOptions, name: string): Promise<number> {
  return (await inspectState(opts, name)).pid;
}

/**
 * The VOLUMEs an image declares (they would be writable and outlive the run).
 * @throws SandboxError `image-missing` when the image is not present on the engine, or an engine error
 */
export async function imageVolumes(opts: DockerOptions, image: string): Promise<string[]> {
  const volumes = (await inspectImage(opts, image)).Config?.Volumes;
  return volumes ? Object.keys(volumes) : [];
}
