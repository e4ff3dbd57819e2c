/**
 * The CLI's engine flags (`--context NAME`, `--docker-path PATH`) and its summary's engine part.
 * Without flags the docker CLI's own choice applies: `DOCKER_HOST`, `DOCKER_CONTEXT` and the
 * current context are inherited from the environment, as for `docker` in the same terminal.
 */
import {
  contextNameProblem, describeEngine, engineOptions, engineTarget, targetText, type DockerOptions, type EngineIdentity,
} from '../core';

/** The `parseArgs` options of the engine flags. */
export const ENGINE_FLAGS = {
  context: { type: 'string' },
  'docker-path': { type: 'string' },
} as const;

/**
 * The docker options for the flags' values.
 * @returns the options, or a one-sentence usage error (a context name the docker CLI would
 *   refuse, an empty docker path); a bare name such as `podman` is looked up on PATH
 */
export function engineFromFlags(values: { context?: string; 'docker-path'?: string }): DockerOptions | { error: string } {
  const context = values.context;
  if (context !== undefined) {
    const problem = contextNameProblem(context);
    if (problem) return { error: `--context ${JSON.stringify(context)} ${problem}.` };
  }
  const dockerPath = values['docker-path'];
  if (dockerPath !== undefined && (dockerPath === '' || /[\0\n\r]/.test(dockerPath))) {
    return { error: '--docker-path needs the path of a docker CLI executable.' };
  }
  return engineOptions({ dockerPath, context });
}

/**
 * The summary's engine part: the identity when it is known (`engine context "default" · Docker
 * Engine 20.10.24 · runtime runc`), else only which engine (`engine context "colima"`). Plain text.
 * `runtime`: the one the run used (RunResult `runtime`), named instead of the engine's default.
 */
export function engineSummary(opts: DockerOptions, identity: EngineIdentity | undefined, runtime?: string): string {
  const engine = identity ? describeEngine(identity, runtime) : targetText(engineTarget(opts));
  return `engine ${engine}${!identity && runtime ? ` · runtime ${runtime}` : ''}`;
}
