/**
 * Engine failure classification: a failed CLI call's stderr (or an Engine API error answer,
 * worded as the CLI words it) becomes a typed {@link SandboxError} with one sentence on what
 * happened and one on what to do, named for the engine that was chosen and the client OS.
 * Engine text is untrusted: it is only ever carried as the error's detail or through `engineText`.
 */
import { SandboxError } from '../errors';
import { settingId } from '../layout';
import type { DockerOptions } from './contracts';
import { resolveEndpoint } from './endpoint';
import { engineProduct, startEngineFix, type EngineNames } from './engineHints';
import { commandFor, engineTarget, engineText, targetText } from './engineTarget';

/**
 * The names that tell which engine product `opts` reach (engineHints.ts `engineProduct`): the
 * chosen context (not the built-in "default") and the host it resolves to; `explicit` when
 * anything but the default chose it.
 */
export function engineNames(opts: DockerOptions): EngineNames {
  const target = engineTarget(opts);
  const endpoint = resolveEndpoint(opts);
  const named = target.kind === 'context' && target.name !== 'default' && target.name !== 'configured' ? target.name : undefined;
  return { context: endpoint?.context ?? named, host: endpoint?.host ?? (target.kind === 'host' ? target.name : undefined), explicit: (target.explicit && named !== undefined) || target.kind === 'host' };
}

/** The last `max` characters of `text`, trimmed, for error details. */
export function tail(text: string, max = 2000): string {
  const t = text.trim();
  return t.length > max ? '…' + t.slice(-max) : t;
}

/** The fix for an engine that refused this user, by client OS. */
const PERMISSION_FIX: Readonly<Record<'linux' | 'darwin' | 'win32', string>> = {
  linux: 'Add your user to the "docker" group and log in again, or use a rootless Docker context.',
  darwin: 'Check that the engine\'s socket belongs to you (Docker Desktop, Colima and Rancher Desktop create it in your home directory), or choose your own engine\'s context.',
  win32: 'Add your user to the "docker-users" group (Docker Desktop creates it) and sign out and in again, then try again.',
};

/**
 * The `daemon-unreachable` error for the engine of `opts`: named when something chose it, with
 * the platform's way to start it (engineHints.ts) or, for an engine no product name fits, its
 * `docker info` command.
 */
function engineUnreachable(opts: DockerOptions, platform: NodeJS.Platform, detail: string): SandboxError {
  const target = engineTarget(opts);
  const start = startEngineFix(engineProduct(engineNames(opts), platform), platform);
  const check = `"${commandFor(opts, ['info'])}"`;
  if (!target.explicit) {
    return new SandboxError('daemon-unreachable', 'The Docker engine is not reachable.', start ?? `Start the Docker engine and try again (${check}).`, detail);
  }
  return new SandboxError(
    'daemon-unreachable',
    `The Docker engine of ${targetText(target)} is not reachable.`,
    start ? `${start.replace(/, then try again\.$/, '')} (${check} tells when it answers), then try again.` : `Check that this engine is running and reachable (${check}), or choose another one, then try again.`,
    detail,
  );
}

/**
 * Maps a failed docker CLI call to a typed error (daemon down, permission denied, missing image,
 * or a generic engine error carrying the engine's message).
 * @param what what was attempted, e.g. "create the container"
 * @param image the image involved, for the missing-image message
 * @param opts the engine the call went to: a missing image is named as missing on that engine
 *   (its context or host), and the fix pulls it there
 * @param platform FOR TESTS: the client OS whose fixes are named (default `process.platform`):
 *   "start Docker Desktop" on macOS and Windows, the docker service on Linux, Colima, Rancher
 *   Desktop, a Podman machine or OrbStack when the context or host names one (engineHints.ts)
 */
export function classifyEngineFailure(
  stderr: string, what: string, image?: string, opts: DockerOptions = {}, platform: NodeJS.Platform = process.platform,
): SandboxError {
  // The CLI's own usage hint ("Run 'docker run --help' …") suggests a typing mistake: never shown.
  const detail = tail(stderr.replace(/^(Run|See) '\S+ [a-z-]+ --help'.*$/gim, ''));
  // Windows: `open //./pipe/docker_engine: Access is denied.`
  if (/permission denied.*docker.*sock|permission denied while trying to connect|pipe[\\/]\S*: access is denied/i.test(stderr)) {
    return new SandboxError(
      'permission-denied',
      `The Docker engine refused this user (permission denied on its ${platform === 'win32' ? 'named pipe' : 'socket'}).`,
      PERMISSION_FIX[platform === 'win32' || platform === 'darwin' ? platform : 'linux'],
      detail,
    );
  }
  const missingContext = /context "([^"\n]{1,200})": context not found/i.exec(stderr);
  if (missingContext) {
    return new SandboxError(
      'daemon-unreachable',
      `The docker context "${engineText(missingContext[1]!, 200)}" does not exist.`,
      `List the contexts with "docker context ls" and choose one that exists (--context, ${settingId('dockerContext')} or DOCKER_CONTEXT), then try again.`,
      detail,
    );
  }
  if (/cannot connect to the docker daemon|is the docker daemon running|error during connect|connect: no such file|connection refused|cannot find the file specified/i.test(stderr)) {
    return engineUnreachable(opts, platform, detail);
  }
  // Podman: `Error: <image>: image not known`.
  if (image && /no such image|unable to find image|pull access denied|manifest unknown|not found: manifest|image not known/i.test(stderr)) {
    return new SandboxError(
      'image-missing',
      `The image "${image}" is not present on the Docker engine of ${targetText(engineTarget(opts))}, and runs never pull implicitly.`,
      `Pull it once with "${commandFor(opts, ['pull', image])}" and run again.`,
      detail,
    );
  }
  if (/unknown or invalid runtime name/i.test(stderr)) {
    return new SandboxError(
      'engine-error',
      'The profile asks for an OCI runtime the Docker engine does not have.',
      'Install and register the runtime with the engine (for gVisor: runsc, see its docs), or remove "runtime" from the profile.',
      detail,
    );
  }
  const firstLine = detail.split('\n').find((l) => l.trim()) ?? 'no error message';
  return new SandboxError(
    'engine-error',
    `Docker could not ${what}: ${firstLine.replace(/^Error response from daemon:\s*/i, '').replace(/([^.!?])$/, '$1.')}`,
    'Check the profile and the engine (docker info), then try again.',
    detail,
  );
}
