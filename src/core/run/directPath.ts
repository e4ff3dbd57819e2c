/**
 * The direct path, for images without `sh` (no launcher to receive the code over stdin):
 * `docker create` with the snippet bind-mounted read-only from a fresh host directory (argv.ts
 * `buildCreateArgv`), the created container checked (admit.ts `checkCreated`), then
 * `docker start -a`. Local Docker engine only, as the mount probe tells; Podman, remote engines and
 * interactive runs are refused, saying why, before anything is written.
 */
import { tmpdir } from 'node:os';
import { checkCreated } from '../admission/admit';
import { buildCreateArgv } from '../container/argv';
import { createContainer } from '../container/create';
import { engineSpec } from '../engine/podman/engineSpec';
import { SandboxError } from '../errors';
import { SNIPPET_DIR } from '../layout';
import { openDirectLease } from '../container/lease';
import { directoryAccess } from '../mounts/mounts';
import type { MountAccess } from '../mounts/mountProbe';
import { scheduleRemoval } from '../container/removals';
import type { RunResult } from './result';
import { snippetFileName, writeSnippet } from '../source/snippet';
import { RunSession } from './session';

/**
 * The direct path for images without `sh`: `docker create` with the snippet bind-mounted
 * read-only from a fresh host directory, then `docker start -a`. Local engine only, as the
 * mount probe tells (mounts.ts `directoryAccess`: the engine sees this process and the file in
 * the snippet root); any other engine is refused, saying why, before anything is written.
 */
export async function runDirect(s: RunSession): Promise<RunResult> {
  if (s.req.interactive) throw noShellInteractive(s.profile.image);
  if ((await engineSpec(s.opts)).engine === 'podman') throw noShellOnPodman(s.profile.image);
  const root = s.req.tempRoot ?? tmpdir();
  const access = await directoryAccess(root, s.profile.image, s.req.profileName, { docker: s.opts });
  if (access.kind !== 'pinned') throw noShellElsewhere(s.profile.image, access);
  const pins = await s.pin();
  const snippet = await writeSnippet(s.code, snippetFileName(s.profile, s.req.sourceFileName), root);
  s.disposers.push(() => snippet.dispose().catch(() => undefined));
  if (s.stopper.reason) return s.finish(s.stopper.reason, null);
  const argv = buildCreateArgv({ ...(await s.containerSpec(pins.mounts)), snippetHostDir: snippet.dir, snippetFileName: snippet.fileName, args: s.req.args ?? [] });
  s.req.onArgv?.(argv);
  let exists = false;
  try {
    await createContainer(s.opts, argv, s.profile.image, (e) => (exists = e));
    const snippetBind = { source: snippet.dir, target: SNIPPET_DIR, readOnly: true };
    await checkCreated(s.opts, s.name, { profile: s.profile, mounts: pins.mounts, snippetBind });
  } catch (e) {
    if (exists) void scheduleRemoval(s.opts, s.name).catch(() => undefined);
    throw e;
  }
  return directStart(s);
}

/** Starts the created container attached; the first output starts the pids watch. */
async function directStart(s: RunSession): Promise<RunResult> {
  const lease = openDirectLease(s.opts, s.name);
  s.stopper.bind(lease);
  s.stderrTailWanted = true;
  let watching = false;
  lease.consume((stream, chunk) => {
    if (!watching) void s.pids.start(s.opts, lease.name);
    watching = true;
    s.onChunk(stream, chunk);
  });
  s.stopper.started();
  const exit = await lease.exit;
  const done = await s.afterExit(lease, exit);
  if (typeof done === 'string') throw new SandboxError('start-failed', 'The container could not start.', 'Check the image and the engine (docker info), then run again.');
  return done;
}

/** An interactive run refused on the direct path (images without `sh`): no launcher, no stdin. */
function noShellInteractive(image: string): SandboxError {
  return new SandboxError(
    'start-failed',
    `The image "${image}" has no "sh" to receive the code over stdin, and its code runs directly without one, with no live input, so the interactive run was refused and nothing ran.`,
    'Use an image with a shell (sh) for this profile, or run it without interactive input.',
  );
}

/** The direct path refused: the image has no `sh`, and the engine is not one that sees this process and its files. */
/** The direct path on Podman: its floor is proved through the running process (podmanProof.ts), too late there. */
function noShellOnPodman(image: string): SandboxError {
  return new SandboxError(
    'start-failed',
    `The image "${image}" has no "sh" to receive the code over stdin, and on Podman the container that would run the code directly cannot be checked before the program starts (its capabilities and namespaces are proved through a running process), so nothing ran.`,
    'Use an image with a shell (sh) for this profile, or run it with the docker CLI on a local engine.',
  );
}

function noShellElsewhere(image: string, access: MountAccess & { readonly engine: string }): SandboxError {
  const why = access.kind === 'refused'
    ? `${access.engine} cannot see this machine's files to mount it instead: ${access.why}`
    : `${access.engine} does not see this process (it is not on this machine, or in another pid namespace), and the code is mounted from this machine on a local engine only`;
  return new SandboxError(
    'start-failed',
    `The image "${image}" has no "sh" to receive the code over stdin, and ${why}, so nothing ran.`,
    'Use an image with a shell (sh) for this profile, or run it on a local Docker engine.',
  );
}
