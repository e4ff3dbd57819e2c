/**
 * Run-time validation of a profile's bind mounts (SECURITY.md, "The floor" and "The engine mounts what was checked"): the host path
 * must exist, is resolved through symlinks, must be a directory, and must not be, contain, or sit
 * inside a protected path. What was checked is pinned by an open descriptor until the container
 * has started, and that descriptor is what a local engine mounts (see `resolveMounts`). The
 * engine must also see the client's file at that path (mountProbe.ts): an engine that does not is
 * refused, and one that does but cannot see this process gets a plain bind of the checked path.
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants, realpathSync } from 'node:fs';
import { mkdtemp, open, readlink, realpath, rm, stat, symlink, type FileHandle } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResolvedMount } from '../container/argv';
import { podmanMountsRefused } from '../container/argv';
import { profileSettingPath, RESERVED_CONTAINER_PATHS } from '../layout';
import { engineKind } from '../engine/engineKind';
import type { DockerOptions } from '../engine/contracts';
import { SandboxError } from '../errors';
import { currentStartTime } from '../engine/procLiveness';
import { engineMountAccess, probeEngineView, type MountAccess } from './mountProbe';
import { engineTarget, targetText } from '../engine/engineTarget';
import { hostPathProblem, isAbsoluteHostPath, UNSAFE_HOST_PATH_CHARS, type HostPlatform } from '../hostPath';
import { isPathInside, type Profile } from '../profiles/profileSchema';
import type { NamedProfile } from '../profiles/profileResolution';
import { POSIX_PROTECTED_PATHS, protectedReasonFor } from './protectedPaths';

/** Host paths a mount may not be, contain, or sit inside, on Linux (protectedPaths.ts has every platform's). */
export const PROTECTED_HOST_PATHS = POSIX_PROTECTED_PATHS;

/**
 * Why `hostPath` (absolute, symlink-free) is refused, or undefined when allowed: protectedPaths.ts
 * `protectedReasonFor` with this process's platform, home directory and environment, each
 * protected path counted as written and where it leads through symlinks on this host (a home
 * under a symlinked /home, ~/.ssh linked elsewhere, a moved /var/lib/docker, macOS's /etc → /private/etc).
 * @param platform FOR TESTS: the path rules to apply (default `process.platform`)
 */
export function protectedReason(hostPath: string, extraProtected: readonly string[] = [], platform: HostPlatform = process.platform): string | undefined {
  return protectedReasonFor(hostPath, extraProtected, { platform, home: homedir(), env: process.env, forms });
}

/** `path` as written and, when it differs, where it leads through symlinks (when it exists). */
function forms(path: string): string[] {
  try {
    const real = realpathSync(path);
    return real === path ? [path] : [path, real];
  } catch {
    return [path];
  }
}


/**
 * The mounts of one run, each pinned to the directory that was checked (see {@link resolveMounts}).
 * Keep it until the container has started (`docker start` returned), then call `dispose`; always
 * call it, on every path (it never throws and may be called more than once).
 */
export interface PinnedMounts {
  readonly mounts: readonly ResolvedMount[];
  dispose(): Promise<void>;
}

/**
 * FOR TESTS ONLY. Called by {@link resolveMounts} after every mount was checked and pinned, before
 * it returns (so before the engine is asked for anything), with the checked host paths. The escape
 * suite swaps a checked directory for a symlink to /etc here, to prove the engine still mounts
 * what was checked. Never set by the product.
 */
export const mountTestHooks: { afterCheck?: (checked: readonly string[]) => void | Promise<void> } = {};

/** open(2) flags for pinning: no blocking on a FIFO, no controlling terminal (O_CLOEXEC is Node's default). */
const PIN_FLAGS = fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOCTTY;

/**
 * Where a run's anchor directory is made: `$XDG_RUNTIME_DIR` when it lies under /run (a
 * protected path, so no profile can mount it and change the anchor's links), else the OS temp dir.
 */
async function anchorRoot(): Promise<string> {
  const runtime = process.env.XDG_RUNTIME_DIR;
  if (runtime && runtime.startsWith('/')) {
    const real = await realpath(runtime).catch(() => undefined);
    if (real && isPathInside(real, '/run')) return real;
  }
  return realpath(tmpdir());
}

/** Every folder an anchor may be in (for the orphan sweep): the temp dir and `$XDG_RUNTIME_DIR` under /run. */
export function anchorRoots(): string[] {
  const roots = new Set<string>();
  for (const candidate of [process.env.XDG_RUNTIME_DIR, tmpdir()]) {
    if (!candidate?.startsWith('/')) continue;
    try {
      roots.add(realpathSync(candidate));
    } catch {
      // missing: nothing to sweep there
    }
  }
  return [...roots];
}

/**
 * Name of an anchor directory: `sandbox-runner-pin-<owner pid>-<owner start time>-XXXXXX`, so the
 * orphan sweep can tell when its owner is provably gone (see reaper.ts).
 */
export const ANCHOR_NAME = /^sandbox-runner-pin-([1-9]\d{0,9})-(\d{1,20})-[A-Za-z0-9]{6}$/;

/**
 * The anchor of one run's pinned mounts: a fresh directory (mode 0700, random name) held open,
 * with one link per mount, `<random hex>` → `/proc/<pid>/fd/<n>`. Docker is given
 * `/proc/<pid>/fd/<anchor fd>/<random hex>`: that path only resolves when the engine's
 * `/proc/<pid>` is this process (the random entry exists in no other directory), so an engine in
 * another pid namespace (a remote engine, Docker Desktop, a dev container using the host's socket)
 * fails to start the container instead of mounting whatever another process has open as fd n.
 */
interface Anchor {
  readonly dir: string;
  readonly handle: FileHandle;
}

async function makeAnchor(): Promise<Anchor> {
  const dir = await mkdtemp(join(await anchorRoot(), `sandbox-runner-pin-${process.pid}-${currentStartTime()}-`));
  try {
    return { dir, handle: await open(dir, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY) };
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * The workspace folder of a `workspace: "ro"` run (workspaceMount.ts): checked, pinned and probed
 * exactly like a profile mount (read-only), its refusals naming `sandboxRunner.profiles.NAME.workspace`.
 */
export interface WorkspaceMountRequest {
  /** The host folder, absolute (resolved through symlinks here, as any mount source). */
  readonly source: string;
  /** Its container path (`/workspace/<name>`). */
  readonly target: string;
}

/** The engine a run's mounts are for (see {@link resolveMounts}). */
export interface MountEngine {
  /** How to reach the engine (default: the docker CLI's own choice). */
  readonly docker?: DockerOptions;
  /** FOR TESTS ONLY: replaces the engine probe (mountProbe.ts `probeEngineView`). */
  readonly probe?: typeof probeEngineView;
}

/** The fix for a mount the engine cannot see, up to its last way out (the mount's or the workspace's, added by the caller). */
const UNSEEN_FIX =
  'Mount a directory the engine shares at the same path (Docker Desktop, Colima and Rancher Desktop share your home directory), run on a local engine, or';

/** A mount source after {@link checkSource}. */
interface CheckedSource {
  /** The open descriptor on the checked directory (the caller closes it: it is in `handles`). */
  readonly handle: FileHandle;
  /** The checked, symlink-free path (read back from the descriptor where `/proc/self/fd` exists). */
  readonly path: string;
  /** True when `/proc/self/fd` names the descriptor (Linux), so a local engine can mount it pinned. */
  readonly pinnable: boolean;
}

/**
 * Checks one mount source and opens it: written as an absolute path of this platform
 * (hostPath.ts `hostPathProblem`: a Windows path on Linux is refused, not resolved against the
 * working directory), resolved through symlinks by the real file system, not protected
 * ({@link protectedReason}) before and after it is opened, a directory. Where `/proc/self/fd`
 * exists (Linux) the path is read back from the descriptor, so what was checked is one inode;
 * elsewhere (macOS, Windows: no `/proc`) the descriptor must be the directory the resolved path
 * names now (same `dev` and `ino`), and the mount can only be a by-path bind (see mountProbe.ts).
 * @param fail makes the `invalid-mount` error for a reason
 * @param handles receives the opened descriptor (closed by the caller's `dispose`)
 */
async function checkSource(
  source: string, extraProtected: readonly string[], fail: (why: string) => SandboxError, handles: FileHandle[],
): Promise<CheckedSource> {
  const problem = hostPathProblem(source);
  if (problem) throw fail(`the host path ${problem}`);
  const resolved = await realpath(source).catch(() => undefined);
  if (resolved === undefined) throw fail('the host path does not exist');
  // Checked before opening, so nothing protected (a device, a FIFO in /run) is ever opened.
  const early = protectedReason(resolved, extraProtected);
  if (early) throw fail(resolved === source ? early : `it resolves to ${resolved} and ${early}`);
  let handle: FileHandle;
  try {
    handle = await open(resolved, PIN_FLAGS);
  } catch (e) {
    throw fail(`it cannot be opened (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  handles.push(handle);
  // From here on only the descriptor counts: the path may have changed since realpath.
  const viaFd = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (viaFd === undefined && process.platform === 'linux') throw fail('this process cannot read /proc/self/fd, so the mount cannot be pinned');
  const info = await handle.stat();
  if (info.isFile()) throw fail('it is a single file, which cannot be pinned against a swap after the check (mount its directory)');
  if (!info.isDirectory()) throw fail('it is neither a regular file nor a directory');
  if (viaFd === undefined) {
    const now = await stat(resolved).catch(() => undefined);
    if (!now || now.dev !== info.dev || now.ino !== info.ino) throw fail('it was replaced while it was checked');
  }
  const path = viaFd ?? resolved;
  if (!isAbsoluteHostPath(path) || UNSAFE_HOST_PATH_CHARS.test(path)) throw fail('its resolved path contains a comma, quote or line break');
  const why = protectedReason(path, extraProtected);
  if (why) throw fail(path === source ? why : `it resolves to ${path} and ${why}`);
  return { handle, path, pinnable: viaFd !== undefined };
}

/**
 * Validates the profile's mounts and pins each one: the source is opened, and everything that is
 * checked comes from the open descriptor (the path from `readlink /proc/self/fd/N`, the type from
 * `fstat`), so what was checked is one inode, whatever happens to the path afterwards. Docker is
 * given `/proc/<this pid>/fd/N` (through the run's anchor, see {@link Anchor} and
 * {@link ResolvedMount.pinned}): the engine mounts that inode, never whatever the path leads to
 * later (a source swapped for a symlink to /etc after the check).
 * Only directories can be pinned (docker's local volume driver mounts onto a directory), so a
 * single file is refused: mount its directory.
 * Then the engine is asked what it sees there (mountProbe.ts `engineMountAccess`, once per engine,
 * source root and process): a local engine that sees the client's file mounts the pinned
 * descriptor; an engine that sees the file but not this process (Docker Desktop, Colima) gets a
 * plain bind of the checked path (no pin: see the notes on what that weakens in mountProbe.ts);
 * an engine that does not see it is refused, named.
 * @param named the profile, and its name for the setting keys refusals name
 * @param extraProtected more host paths to refuse (e.g. the extension's own state directory)
 * @param engine the engine the run goes to (probed only when the profile has mounts)
 * @param workspace the workspace folder of a `workspace: "ro"` run: one more read-only mount, last
 * @returns the pinned mounts; the caller must `dispose` them once the container started
 * @throws SandboxError `invalid-mount` naming the setting key and the reason (and the engine when
 *   it cannot see the directory); an engine error (e.g. `image-missing`) when the probe container
 *   cannot be created
 */
export async function resolveMounts(
  { name: profileName, profile }: NamedProfile,
  extraProtected: readonly string[] = [],
  engine: MountEngine = {},
  workspace?: WorkspaceMountRequest,
): Promise<PinnedMounts> {
  const handles: FileHandle[] = [];
  let anchor: Anchor | undefined;
  const dispose = async () => {
    const held = handles.splice(0);
    const a = anchor;
    anchor = undefined;
    await Promise.all(held.map((h) => h.close().catch(() => undefined)));
    if (a) {
      await a.handle.close().catch(() => undefined);
      await rm(a.dir, { recursive: true, force: true }).catch(() => undefined);
    }
  };
  try {
    const out: ResolvedMount[] = [];
    const all: Array<{ m: Profile['mounts'][number]; key: string; isWorkspace?: boolean }> = profile.mounts.map((m, i) => ({ m, key: profileSettingPath(profileName, 'mounts', i) }));
    if (workspace) all.push({ m: { source: workspace.source, target: workspace.target, mode: 'ro' }, key: profileSettingPath(profileName, 'workspace'), isWorkspace: true });
    for (const { m, key, isWorkspace } of all) {
      // The workspace folder is no entry of `mounts`: name it as what it is and point at its own switch.
      const way = isWorkspace ? `set ${key} to "none"` : 'remove the mount from the profile';
      const subject = isWorkspace ? `The workspace folder ${m.source} (${key}: "ro")` : `The bind mount ${key} (${m.source})`;
      const fail = (why: string, fix = `${isWorkspace ? 'Open a project folder instead' : 'Mount a project directory instead'}, or ${way}.`) =>
        new SandboxError('invalid-mount', `${subject} is refused because ${why}.`, fix);
      if (RESERVED_CONTAINER_PATHS.some((t) => isPathInside(m.target, t))) {
        throw fail(`its target ${m.target} is reserved by the sandbox (${RESERVED_CONTAINER_PATHS.join(', ')})`);
      }
      // A target above a path the sandbox mounts itself (HOME under /home, the workdir) would make
      // the engine create that mount point inside the host directory.
      const below = [...RESERVED_CONTAINER_PATHS, profile.workdir].find((t) => t !== m.target && isPathInside(t, m.target));
      if (below) throw fail(`its target ${m.target} contains ${below}, which the sandbox mounts itself (the engine would create it in the host directory)`);
      const { handle, path: pinnedPath, pinnable } = await checkSource(m.source, extraProtected, fail, handles);
      // Podman cannot pin a source (argv.ts `refusePodmanMounts`): refused once the path checks
      // passed, before the engine is probed (the probe's pinned volume is what Podman rejects). An
      // unknown kind goes on: the argv is built only for a known one, and refuses there.
      if ((await engineKind(engine.docker ?? {}).catch(() => undefined)) === 'podman') throw podmanMountsRefused(all.map((x) => x.m.target));
      if (pinnable) anchor ??= await makeAnchor();
      const access = await engineMountAccess(
        engine.docker ?? {}, profile.image, profileName, { root: pinnedPath, rootFd: handle.fd, anchorFd: pinnable ? anchor?.handle.fd : undefined }, engine.probe,
      );
      if (access.kind === 'refused') throw fail(`${access.engine} does not see it: ${access.why}`, `${UNSEEN_FIX} ${way}.`);
      if (access.kind === 'by-path' || !anchor) {
        out.push({ source: pinnedPath, target: m.target, readOnly: m.mode !== 'rw' });
        continue;
      }
      const link = randomBytes(16).toString('hex');
      await symlink(`/proc/${process.pid}/fd/${handle.fd}`, join(anchor.dir, link));
      out.push({
        source: pinnedPath, target: m.target, readOnly: m.mode !== 'rw',
        pinned: `/proc/${process.pid}/fd/${anchor.handle.fd}/${link}`,
      });
    }
    if (out.length > 0) await mountTestHooks.afterCheck?.(out.map((m) => m.source));
    return { mounts: out, dispose };
  } catch (e) {
    await dispose();
    throw e;
  }
}

/**
 * How the engine may bind-mount `dir`, a directory this process writes to (the direct path's
 * snippet root, runner.ts): the same probe and rule as a profile's mount (mountProbe.ts
 * `engineMountAccess`; once per engine, directory and process), through an open descriptor on
 * `dir` and a fresh anchor, both released before this returns. `pinned` means the engine sees
 * this process and the file there (a local engine).
 * @returns the access, with the engine named (`engine`, plain text)
 * @throws SandboxError when the engine cannot create the probe container (e.g. `image-missing`
 *   on that engine); the file system's error when `dir` cannot be opened
 */
export async function directoryAccess(
  dir: string, image: string, profileName: string, engine: MountEngine = {},
): Promise<MountAccess & { readonly engine: string }> {
  const handle = await open(await realpath(dir), fsConstants.O_RDONLY | fsConstants.O_DIRECTORY);
  let anchor: Anchor | undefined;
  try {
    const root = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    // No /proc (macOS, Windows): nothing can be pinned, so no engine may mount the directory.
    if (root === undefined) return { kind: 'refused', why: 'this host has no /proc/self/fd to pin the directory with', engine: `the Docker engine of ${targetText(engineTarget(engine.docker ?? {}))}` };
    // A path docker's --mount syntax cannot carry is never probed nor mounted (see resolveMounts).
    if (!root.startsWith('/') || UNSAFE_HOST_PATH_CHARS.test(root)) {
      return { kind: 'refused', why: 'its path contains a comma, quote or line break', engine: `the Docker engine of ${targetText(engineTarget(engine.docker ?? {}))}` };
    }
    anchor = await makeAnchor();
    return await engineMountAccess(engine.docker ?? {}, image, profileName, { root, rootFd: handle.fd, anchorFd: anchor.handle.fd }, engine.probe);
  } finally {
    await handle.close().catch(() => undefined);
    if (anchor) {
      await anchor.handle.close().catch(() => undefined);
      await rm(anchor.dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}
