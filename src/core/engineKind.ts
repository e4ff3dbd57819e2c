/**
 * Which container engine CLI `dockerPath` runs: the docker CLI or Podman's (directly, or through
 * a `docker` → `podman` wrapper such as Debian's podman-docker). The argv differs where Podman's
 * CLI differs (see argv.ts), so the kind is read from what the CLI says about itself
 * (`<cli> --version`), never from the binary's name. `--version` is answered by the client alone:
 * no engine round trip, so a stopped or hung engine still gets its own error from the run.
 */
import { docker, type DockerOptions } from './docker';
import { podmanSeccompProfile } from './podmanSeccomp';

/** The CLI flavour whose flags `buildCreateArgv` emits. */
export type EngineKind = 'docker' | 'podman';

/**
 * The engine kind from the stdout of `<cli> --version`: Podman prints `podman version 4.3.1`
 * (also through a `docker` wrapper, which execs podman), the docker CLI `Docker version 20.10.24…`.
 * A docker CLI talking to a Podman *service* stays `docker`: the flags are the docker CLI's.
 * @param versionText the CLI's stdout
 */
export function parseEngineKind(versionText: string): EngineKind {
  return /^\s*podman version \d/i.test(versionText) ? 'podman' : 'docker';
}

const cache = new Map<string, Promise<EngineKind>>();

/**
 * The kind of engine CLI `opts.dockerPath` is, from one `<cli> --version` call, cached per
 * dockerPath for the life of the process (a failed call is not cached).
 * @throws SandboxError `docker-missing` when the CLI cannot be spawned, `engine-error` when it hangs
 */
export function engineKind(opts: DockerOptions): Promise<EngineKind> {
  const key = opts.dockerPath || 'docker';
  let kind = cache.get(key);
  if (!kind) {
    kind = docker(opts, ['--version']).then((r) => parseEngineKind(r.stdout));
    cache.set(key, kind);
    kind.catch(() => cache.delete(key));
  }
  return kind;
}

/** The engine fields of a `ContainerSpec` (argv.ts) for `opts`. */
export interface EngineSpec {
  readonly engine: EngineKind;
  /** Podman only: the narrowed seccomp profile's path (podmanSeccomp.ts). */
  readonly seccompProfile?: string;
}

/**
 * The engine fields of a `ContainerSpec` for the CLI `opts` names: its kind and, on Podman, the
 * seccomp profile that closes namespace creation as Docker's default does.
 * @throws SandboxError as {@link engineKind}; `limits-unsupported` from `podmanSeccompProfile`
 */
export async function engineSpec(opts: DockerOptions): Promise<EngineSpec> {
  const engine = await engineKind(opts);
  return engine === 'podman' ? { engine, seccompProfile: await podmanSeccompProfile(opts) } : { engine };
}
