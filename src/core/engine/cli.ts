/**
 * The docker CLI wrapper: one call of the engine CLI (`dockerPath`), run with execa and argv arrays
 * only (never a shell), with the spawn options of spawnEnv.ts. A binary that cannot be spawned
 * becomes `docker-missing`, a hung call `engine-error`; every other failure is the caller's to
 * classify (failures.ts).
 */
import { execa } from 'execa';
import { SandboxError } from '../errors';
import { CONTROL_TIMEOUT_MS, type DockerOptions, type DockerOutput } from './contracts';
import { installDockerFix } from './engineHints';
import { spawnOptions } from './spawnEnv';

/** The docker executable for `opts`. */
export function dockerBinary(opts: DockerOptions): string {
  return opts.dockerPath || 'docker';
}

/**
 * The error for a docker binary that could not be spawned; the fix names the platform's install
 * (engineHints.ts `installDockerFix`). On Windows the default `docker` is found as `docker.exe`
 * on PATH (libuv's spawn tries `.com` and `.exe`; no shell, so a `docker.cmd` shim is not found).
 * @param platform FOR TESTS: the client OS (default `process.platform`)
 */
export function dockerMissing(opts: DockerOptions, errno: string, platform: NodeJS.Platform = process.platform): SandboxError {
  return new SandboxError(
    'docker-missing',
    `The docker CLI "${dockerBinary(opts)}" could not be started (${errno}).`,
    installDockerFix(platform),
  );
}

/**
 * Runs one docker CLI command to completion.
 * @param args arguments after `docker`
 * @param timeoutMs longest wait, ms (default `opts.controlTimeoutMs`, else {@link CONTROL_TIMEOUT_MS})
 * @throws SandboxError `docker-missing` when the binary cannot be spawned, `engine-error` on a hung call
 */
export async function docker(opts: DockerOptions, args: readonly string[], timeoutMs = opts.controlTimeoutMs ?? CONTROL_TIMEOUT_MS): Promise<DockerOutput> {
  const r = await execa(dockerBinary(opts), args, { ...spawnOptions(opts, args), timeout: timeoutMs });
  if (r.timedOut) {
    throw new SandboxError(
      'engine-error',
      `"docker ${args[0]}" did not answer within ${Math.round(timeoutMs / 1000)} s.`,
      'Check that the Docker engine is healthy (docker info) and try again.',
    );
  }
  const errno = spawnErrno(r);
  if (errno) throw dockerMissing(opts, errno);
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}

/** The errno of a failed spawn (ENOENT, EACCES), if the process never started. */
export function spawnErrno(r: { failed: boolean; exitCode?: number; code?: string; cause?: unknown }): string | undefined {
  if (!r.failed || r.exitCode !== undefined) return undefined;
  const cause = r.cause as { code?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? cause.code : r.code;
  return code && /^E[A-Z]+$/.test(code) ? code : undefined;
}
