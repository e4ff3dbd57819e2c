/**
 * The engine fields of a `ContainerSpec` (argv.ts) and the Podman rules that come with them: on
 * Podman, the narrowed seccomp profile (podmanSeccomp.ts) and catatonit as init; a Podman CLI
 * refuses a docker context or host it would ignore; catatonit's exec failure looks like exit 1.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { SandboxError } from '../../errors';
import type { DockerOptions } from '../contracts';
import { engineKind, type EngineKind } from '../engineKind';
import { podmanSeccompProfile } from './podmanSeccomp';

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
