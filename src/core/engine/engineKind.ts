/**
 * Which container engine CLI `dockerPath` runs: the docker CLI or Podman's (directly, or through
 * a `docker` → `podman` wrapper such as Debian's podman-docker). The argv differs where Podman's
 * CLI differs (see argv.ts), so the kind is read from what the CLI says about itself
 * (`<cli> --version`, else `<cli> version`), never from the binary's name. `--version` is answered
 * by the client alone: no engine round trip, so a stopped or hung engine still gets its own error
 * from the run.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { docker } from './cli';
import type { DockerOptions } from './contracts';
import { SandboxError } from '../errors';
import { podmanSeccompProfile } from './podman/podmanSeccomp';

/** The CLI flavour whose flags `buildCreateArgv` emits. */
export type EngineKind = 'docker' | 'podman';

/**
 * The engine kind from the stdout of `<cli> --version`, or undefined when that does not say.
 * The docker CLI prints `Docker version 20.10.24+dfsg1, build 297e128`; Podman prints
 * `podman version 4.3.1`, or `<argv0> version 4.3.1` when run through a symlink (measured: a
 * `docker` symlink to podman prints `docker version 4.3.1`), as other cobra CLIs also do.
 * @param versionText the CLI's stdout
 */
export function parseVersionFlag(versionText: string): EngineKind | undefined {
  const first = versionText.trimStart().split('\n')[0] ?? '';
  if (/^Docker version \S+, build /.test(first)) return 'docker';
  if (/^podman version \d/i.test(first)) return 'podman';
  return undefined;
}

/**
 * The engine kind from the stdout of `<cli> version`: Podman's client section starts
 * `Client:       Podman Engine`; anything else counts as the docker CLI. A docker CLI talking to
 * a Podman *service* stays `docker`: the flags are the docker CLI's.
 * @param versionText the CLI's stdout (any exit status)
 */
export function parseEngineKind(versionText: string): EngineKind {
  return parseVersionFlag(versionText) ?? (/^\s*Client:\s*Podman Engine\b/m.test(versionText) ? 'podman' : 'docker');
}

const cache = new Map<string, Promise<CliKind>>();

/**
 * What a docker-compatible CLI is (never decided from its file name): `docker`, `podman`, or
 * `other` (neither says so: e.g. nerdctl; treated as the docker CLI for flags, but control calls
 * stay on the CLI, docker.ts).
 */
export type CliKind = EngineKind | 'other';

/**
 * The one engine-kind detector (docker.ts `cliFlavor` delegates here): `<cli> --version`
 * ({@link parseVersionFlag}; client only, no engine round trip), and only when that is neither
 * Docker's nor Podman's own line, `<cli> version`, whose client section says `Podman Engine` on
 * Podman. Cached per CLI path and `opts.env` for the life of the process (a failed call is not).
 * @throws SandboxError `docker-missing` when the CLI cannot be spawned, `engine-error` when it hangs
 */
export function cliKind(opts: DockerOptions): Promise<CliKind> {
  const key = JSON.stringify([opts.dockerPath || 'docker', opts.env ?? {}]);
  let kind = cache.get(key);
  if (!kind) {
    kind = (async (): Promise<CliKind> => {
      const flag = parseVersionFlag((await docker(opts, ['--version'])).stdout);
      if (flag) return flag;
      return parseEngineKind((await docker(opts, ['version'])).stdout) === 'podman' ? 'podman' : 'other';
    })();
    cache.set(key, kind);
    kind.catch(() => cache.delete(key));
  }
  return kind;
}

/**
 * The kind of engine CLI `opts.dockerPath` is ({@link cliKind}; a CLI that is neither counts as
 * the docker CLI: its flags are docker's).
 * @throws SandboxError as {@link cliKind}
 */
export async function engineKind(opts: DockerOptions): Promise<EngineKind> {
  const kind = await cliKind(opts);
  return kind === 'other' ? 'docker' : kind;
}

/** The engine fields of a `ContainerSpec` (argv.ts) for `opts`. */
export interface EngineSpec {
  readonly engine: EngineKind;
  /** Podman only: the narrowed seccomp profile's path (podmanSeccomp.ts). */
  readonly seccompProfile?: string;
  /** Podman only: catatonit's host path ({@link podmanInitPath}). */
  readonly initPath?: string;
}

/**
 * The engine fields of a `ContainerSpec` for the CLI `opts` names: its kind and, on Podman, the
 * seccomp profile that closes namespace creation as Docker's default does and catatonit's path.
 * @throws SandboxError as {@link engineKind}; `limits-unsupported` from `podmanSeccompProfile` or
 *   {@link podmanInitPath}
 */
export async function engineSpec(opts: DockerOptions): Promise<EngineSpec> {
  const engine = await engineKind(opts);
  if (engine !== 'podman') return { engine };
  refuseDockerEngineChoice(opts);
  return { engine, seccompProfile: await podmanSeccompProfile(opts), initPath: podmanInitPath() };
}

/**
 * Podman's CLI ignores docker contexts and `DOCKER_HOST` and runs on its own engine, so a run that
 * names one would go elsewhere than chosen (and be reported as running there).
 * @throws SandboxError `invalid-engine` when `opts` or the environment chooses a docker engine
 */
function refuseDockerEngineChoice(opts: DockerOptions): void {
  const env = { ...process.env, ...opts.env };
  const chosen = opts.host ? 'a docker host' : opts.context ? 'a docker context' : env.DOCKER_HOST ? 'DOCKER_HOST' : env.DOCKER_CONTEXT ? 'DOCKER_CONTEXT' : '';
  if (!chosen) return;
  throw new SandboxError(
    'invalid-engine',
    `The engine CLI is Podman, which ignores ${chosen} and would run the code on its own engine instead, so nothing ran.`,
    'Unset DOCKER_HOST / DOCKER_CONTEXT (and the dockerHost / dockerContext settings or --context) to run on Podman, or use the docker CLI for that engine.',
  );
}

/**
 * Whether an exited container's status says its init process could not exec the entrypoint (no
 * `sh` in the image as the profile leaves it): docker-init (tini) exits 126 or 127; Podman's
 * catatonit exits 1.
 */
export async function initCouldNotExec(opts: DockerOptions, exitCode: number): Promise<boolean> {
  if (exitCode === 126 || exitCode === 127) return true;
  return exitCode === 1 && (await engineKind(opts).catch(() => 'docker')) === 'podman';
}

/**
 * Where catatonit, Podman's init process, is installed: Podman's default `init_path`
 * (containers.conf), then the Debian/Fedora package paths; resolved through symlinks.
 */
const INIT_CANDIDATES = ['/usr/libexec/podman/catatonit', '/usr/bin/catatonit', '/usr/libexec/catatonit/catatonit'];

/**
 * The symlink-free host path of catatonit (a regular, executable file).
 * @throws SandboxError `limits-unsupported` when none is installed: Podman runs need it as PID 1
 */
export function podmanInitPath(): string {
  for (const candidate of INIT_CANDIDATES) {
    try {
      const real = realpathSync(candidate);
      accessSync(real, constants.X_OK);
      if (statSync(real).isFile()) return real;
    } catch {
      // not here
    }
  }
  throw new SandboxError(
    'limits-unsupported',
    `Podman's init process catatonit was not found (${INIT_CANDIDATES.join(', ')}), so nothing was run.`,
    'Install Debian package "catatonit" (Fedora: catatonit), then run again.',
  );
}
