/**
 * Which container engine CLI `dockerPath` runs: the docker CLI or Podman's (directly, or through
 * a `docker` → `podman` wrapper such as Debian's podman-docker). The argv differs where Podman's
 * CLI differs (see argv.ts), so the kind is read from what the CLI says about itself
 * (`<cli> --version`, else `<cli> version`), never from the binary's name. `--version` is answered
 * by the client alone: no engine round trip, so a stopped or hung engine still gets its own error
 * from the run.
 */
import { docker } from './cli';
import type { CliKind, DockerOptions, EngineKind } from './contracts';
import { binaryIdentity, cachedKind, rememberKind } from './engineKindCache';

export type { CliKind, EngineKind } from './contracts';

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
 * The one engine-kind detector (docker.ts `cliFlavor` delegates here): `<cli> --version`
 * ({@link parseVersionFlag}; client only, no engine round trip), and only when that is neither
 * Docker's nor Podman's own line, `<cli> version`, whose client section says `Podman Engine` on
 * Podman. Cached per CLI path and `opts.env` for the life of the process (a failed call is not),
 * and across processes per binary (engineKindCache.ts: its real path, size and mtime), so a
 * process that runs one snippet spawns no `--version` when the CLI is unchanged (issue 26).
 * @throws SandboxError `docker-missing` when the CLI cannot be spawned, `engine-error` when it hangs
 */
export function cliKind(opts: DockerOptions): Promise<CliKind> {
  const key = JSON.stringify([opts.dockerPath || 'docker', opts.env ?? {}]);
  let kind = cache.get(key);
  if (!kind) {
    kind = (async (): Promise<CliKind> => {
      const identity = binaryIdentity(opts.dockerPath || 'docker', opts.env?.PATH ?? process.env.PATH);
      const known = identity ? cachedKind(identity) : undefined;
      if (known) return known;
      const asked = await askCli(opts);
      if (identity) rememberKind(identity, asked);
      return asked;
    })();
    cache.set(key, kind);
    kind.catch(() => cache.delete(key));
  }
  return kind;
}

/** `<cli> --version`, then `<cli> version` when the first does not say (see {@link cliKind}). */
async function askCli(opts: DockerOptions): Promise<CliKind> {
  const flag = parseVersionFlag((await docker(opts, ['--version'])).stdout);
  if (flag) return flag;
  return parseEngineKind((await docker(opts, ['version'])).stdout) === 'podman' ? 'podman' : 'other';
}

/** FOR TESTS: forgets this process's kinds (the file of engineKindCache.ts stays). */
export function forgetCliKinds(): void {
  cache.clear();
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
