/**
 * Typed failures of the sandbox runner. Every failure the user can hit carries a stable `code`,
 * a one-sentence `message` saying what happened, and a one-sentence `fix` saying what to do.
 * UIs (the CLI, the extension) render these; nothing parses message text.
 */

/** Stable identifiers of the failures the runner reports. */
export type SandboxErrorCode =
  /** The docker CLI could not be spawned (ENOENT / EACCES on the configured path). */
  | 'docker-missing'
  /** The CLI ran but could not reach the engine (daemon stopped, wrong DOCKER_HOST/context). */
  | 'daemon-unreachable'
  /** The engine socket refused this user (not in the `docker` group). */
  | 'permission-denied'
  /** The image is not present locally; runs use `--pull never` and never pull implicitly. */
  | 'image-missing'
  /** The image declares VOLUMEs, which would be writable and outlive the run. */
  | 'image-has-volumes'
  /** A profile value failed validation (see the attached issue list). */
  | 'invalid-profile'
  /** The program arguments were refused (too many, too long, a NUL byte; see programArgs.ts): nothing ran. */
  | 'invalid-arguments'
  /** A bind mount failed validation after resolving symlinks. */
  | 'invalid-mount'
  /** The engine CLI cannot reach the engine that was chosen (Podman ignores docker contexts and DOCKER_HOST). */
  | 'invalid-engine'
  /** The container was created but its process could not be started. */
  | 'start-failed'
  /**
   * The engine created the container but said it discarded or cannot apply a limit (memory,
   * swap, pids, CPU, cgroup namespace): the container is removed and nothing runs.
   */
  | 'limits-unsupported'
  /**
   * The started container differs from what the runner asked for (an extra environment variable,
   * a mount it did not ask for, a mount source other than the one checked): it is removed before
   * any code is sent (precheck.ts).
   */
  | 'container-refused'
  /** The engine failed in a way not listed above (its message is included). */
  | 'engine-error';

/** Plain-data description of a failure, safe to serialise (e.g. `sandbox-run --json`). */
export interface SandboxErrorInfo {
  readonly code: SandboxErrorCode;
  /** What happened, one sentence. */
  readonly message: string;
  /** What to do about it, one sentence. */
  readonly fix: string;
  /** Extra detail for logs (engine stderr tail, container state); may be empty. */
  readonly detail: string;
}

const BRAND = Symbol.for('sandbox-runner.SandboxError');

/**
 * Error thrown by core functions for the failures in {@link SandboxErrorCode}.
 * Recognise it with {@link isSandboxError}, which survives bundling and minification
 * (it checks a `Symbol.for` brand, not the class name).
 */
export class SandboxError extends Error implements SandboxErrorInfo {
  readonly [BRAND] = true;
  constructor(
    readonly code: SandboxErrorCode,
    message: string,
    readonly fix: string,
    readonly detail = '',
  ) {
    super(message);
    this.name = 'SandboxError';
  }

  /** The plain-data form of this error. */
  toInfo(): SandboxErrorInfo {
    return { code: this.code, message: this.message, fix: this.fix, detail: this.detail };
  }
}

/** True when `value` is a {@link SandboxError} (from any copy of this module). */
export function isSandboxError(value: unknown): value is SandboxError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
