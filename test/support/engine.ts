/**
 * The engine under test, for every suite and the benchmark: which engine CLI and engine a test
 * talks to, calls to that CLI, and the check that fails loudly (never skips) when the engine or a
 * test image is missing.
 *
 * The engine is chosen through the environment only (never a flag):
 * - `DOCKER_HOST` (read by the docker CLI itself and by the product, whose docker calls inherit
 *   the environment): e.g. {@link ENGINE2_HOST}, the second engine of scripts/engine2-up.sh;
 * - `SANDBOX_RUNNER_TEST_DOCKER_PATH`: the engine CLI executable (default `docker`), e.g. `podman`.
 */
import { execa, execaSync, type Options } from 'execa';
import { PODMAN_NPROC } from '../../src/core/container/argv';
import { parseEngineKind, type EngineKind } from '../../src/core/engine/engineKind';
import { ALL_TEST_IMAGES } from './images';

/** An engine CLI and the engine it talks to. */
export interface EngineUnderTest {
  /** The engine CLI executable (`docker`, `podman`, or a path). */
  readonly dockerPath: string;
  /** `DOCKER_HOST` for its calls, or undefined for the CLI's default (this machine's engine). */
  readonly host: string | undefined;
}

/** The local engine's socket (dockerd's default). */
export const LOCAL_DOCKER_HOST = 'unix:///var/run/docker.sock';

/** The second, "remote-like" engine of scripts/engine2-up.sh. */
export const ENGINE2_HOST = 'unix:///run/sandbox-runner-engine2/docker.sock';

/** The engine named by `env` (`SANDBOX_RUNNER_TEST_DOCKER_PATH`, `DOCKER_HOST`; see the module comment). */
export function engineFromEnv(env: NodeJS.ProcessEnv = process.env): EngineUnderTest {
  return { dockerPath: env.SANDBOX_RUNNER_TEST_DOCKER_PATH || 'docker', host: env.DOCKER_HOST || undefined };
}

/** The engine this process's tests run against (from its environment, read once at load). */
export const TEST_ENGINE: EngineUnderTest = engineFromEnv();

/** How setup hints and failure messages name an engine: `docker`, `podman`, `docker at DOCKER_HOST=…`. */
export function describeEngine(engine: EngineUnderTest = TEST_ENGINE): string {
  return `${engine.dockerPath}${engine.host ? ` at DOCKER_HOST=${engine.host}` : ''}`;
}

/** True when `engine` is the one on this machine's default socket (not engine 2 or a remote one). */
export function engineIsLocal(engine: EngineUnderTest = TEST_ENGINE): boolean {
  return !engine.host || engine.host === LOCAL_DOCKER_HOST || engine.host === 'unix:///run/docker.sock';
}

const kinds = new Map<string, EngineKind>();

/**
 * The kind of engine CLI (`docker` or `podman`) from its `--version`, read with the product's own
 * `parseEngineKind` (once per executable, synchronously, 30 s at most, so suites can declare tests
 * per engine); `docker` when the CLI cannot say (then {@link requireEngine} fails loudly).
 */
export function engineKind(engine: EngineUnderTest = TEST_ENGINE): EngineKind {
  let kind = kinds.get(engine.dockerPath);
  if (!kind) {
    try {
      kind = parseEngineKind(String(execaSync(engine.dockerPath, ['--version'], { reject: false, stdin: 'ignore', timeout: 30_000 }).stdout));
    } catch {
      kind = 'docker';
    }
    kinds.set(engine.dockerPath, kind);
  }
  return kind;
}

/**
 * Runs the engine CLI of `engine` with `args` (argv only), with `DOCKER_HOST` set to its host when
 * it has one (an `env` in `options` wins). On Podman, a `run` or `create` gets the rlimits Podman
 * cannot leave at its defaults here (as the product's argv.ts `podmanFlags` does): without
 * CAP_SYS_RESOURCE its runtime fails to raise nofile and nproc, so a control container would not
 * start at all. Same options and result as execa; rejects on a non-zero exit unless `reject: false`.
 */
export function engineCli<O extends Options = Options>(args: readonly string[], options?: O, engine: EngineUnderTest = TEST_ENGINE) {
  const env = engine.host ? { DOCKER_HOST: engine.host, ...options?.env } : options?.env;
  return execa(engine.dockerPath, withEngineRlimits(args, engine), { ...options, ...(env ? { env } : {}) } as O);
}

function withEngineRlimits(args: readonly string[], engine: EngineUnderTest): readonly string[] {
  if ((args[0] !== 'run' && args[0] !== 'create') || engineKind(engine) !== 'podman') return args;
  return [args[0], '--ulimit', 'nofile=1024:1024', '--ulimit', `nproc=${PODMAN_NPROC}:${PODMAN_NPROC}`, ...args.slice(1)];
}

/** The command that sets up `engine` (and, with `images`, its test images), for failure messages. */
export function setupHint(engine: EngineUnderTest, images = false): string {
  if (engineKind(engine) === 'podman') return images ? 'bash scripts/build-test-images.sh && bash scripts/podman-up.sh' : 'bash scripts/podman-up.sh';
  if (engineIsLocal(engine)) return images ? 'bash scripts/build-test-images.sh' : 'bash scripts/engine-up.sh';
  return images ? 'bash scripts/build-test-images.sh && bash scripts/engine2-up.sh' : 'bash scripts/engine2-up.sh';
}

/**
 * Fails loudly when `engine` is not reachable or one of `images` is missing on it; never skips.
 * @param images image names to require (default: every test image)
 * @returns the engine's version (docker's `.ServerVersion`, Podman's `.Version.Version`)
 * @throws Error naming the engine, the engine's own message and the script that sets it up
 */
export async function requireEngine(engine: EngineUnderTest = TEST_ENGINE, images: readonly string[] = ALL_TEST_IMAGES): Promise<string> {
  // Podman's `info` has no .ServerVersion (its engine version is .Version.Version).
  const format = engineKind(engine) === 'podman' ? '{{.Version.Version}}' : '{{.ServerVersion}}';
  const info = await engineCli(['info', '--format', format], { reject: false, stdin: 'ignore' }, engine);
  if (info.exitCode !== 0) {
    throw new Error(`The engine (${describeEngine(engine)}) is not reachable (${String(info.stderr).trim() || (info as { shortMessage?: string }).shortMessage || `exit ${String(info.exitCode)}`}); run "${setupHint(engine)}" first.`);
  }
  for (const image of images) {
    const r = await engineCli(['image', 'inspect', '--format', '{{.Id}}', image], { reject: false, stdin: 'ignore' }, engine);
    if (r.exitCode !== 0) {
      throw new Error(`Test image ${image} is missing on the engine (${describeEngine(engine)}); run "${setupHint(engine, true)}" first.`);
    }
  }
  return String(info.stdout).trim();
}

/**
 * Names of containers (any state) on `engine` matching a `docker ps` filter (e.g.
 * `label=sandbox-runner=1`, `name=^/?sandbox-runner-…$`).
 * @throws when the engine CLI fails
 */
export async function containerNames(filter: string, engine: EngineUnderTest = TEST_ENGINE): Promise<string[]> {
  const r = await engineCli(['ps', '-a', '--filter', filter, '--format', '{{.Names}}'], { stdin: 'ignore', timeout: 30_000 }, engine);
  return String(r.stdout).split('\n').filter(Boolean);
}
