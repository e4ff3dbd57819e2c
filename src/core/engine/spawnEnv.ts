/**
 * How every engine CLI process is spawned: no stdin, no shell, its own process group, the CLI
 * environment of `DockerOptions` (`DOCKER_HOST` / `DOCKER_CONTEXT`, bare `--env NAME` names
 * removed) and the private engine work directory as its cwd (podman/workDir.ts).
 */
import type { Options } from 'execa';
import type { DockerOptions } from './contracts';
import { engineWorkDir, startedContainer } from './podman/workDir';

/** Spawn options shared by every call: no stdin, no shell, an isolated process group. */
export const SPAWN_OPTIONS = {
  stdin: 'ignore',
  reject: false,
  shell: false,
  // Own process group: a terminal's Ctrl-C reaches only the runner, which then removes the container.
  detached: true,
  // Runs that outlive the caller are removed by the orphan sweep; the CLI process itself must die with us.
  cleanup: true,
} as const satisfies Options;

/**
 * {@link SPAWN_OPTIONS} plus the CLI environment of `opts`.
 * @param args the docker arguments, when known: every bare `--env NAME` (no "=") in them is removed
 *   from the CLI's environment, so the CLI copies no value of its own into the container for that
 *   name (it would take `NAME` from its environment otherwise). `buildCreateArgv` passes the Docker
 *   client proxy names that way, which also stops the CLI adding its config's `proxies` for them.
 *   Trade-off: that call does not see the proxy variables itself (a `tcp://` DOCKER_HOST reached
 *   through an HTTP proxy from the environment is then reached directly for `docker create`).
 */
export function spawnOptions(opts: DockerOptions, args: readonly string[] = []) {
  const unset: Record<string, undefined> = {};
  for (let i = 0; i < args.length - 1; i++) {
    if (args[i] === '--') break;
    if ((args[i] === '--env' || args[i] === '-e') && !args[i + 1]!.includes('=')) unset[args[i + 1]!] = undefined;
  }
  const engine = engineEnv(opts);
  const cwd = engineWorkDir(startedContainer(args));
  if (!opts.env && !engine && Object.keys(unset).length === 0) return { ...SPAWN_OPTIONS, cwd };
  // execa merges `env` over process.env; an undefined value removes the variable (Node drops it).
  return { ...SPAWN_OPTIONS, cwd, env: { ...opts.env, ...engine, ...unset } };
}

/**
 * The CLI environment entries for `opts.host` / `opts.context`: `DOCKER_HOST` (and no
 * `DOCKER_CONTEXT`) for a host, else `DOCKER_CONTEXT` (and no inherited `DOCKER_HOST`, which the
 * CLI would prefer) for a context; undefined when neither is set. See endpoint.ts for the order.
 */
export function engineEnv(opts: DockerOptions): Record<string, string | undefined> | undefined {
  if (opts.host) return { DOCKER_HOST: opts.host, DOCKER_CONTEXT: undefined };
  if (opts.context) return { DOCKER_CONTEXT: opts.context, DOCKER_HOST: undefined };
  return undefined;
}

/** The full environment of a docker CLI process for `opts` (this process's, plus `opts.env` and {@link engineEnv}). */
export function cliEnvironment(opts: DockerOptions): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env, ...opts.env, ...engineEnv(opts) };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
