/**
 * Which host directories an engine can see (issue 10, "Which mounts an engine can see"). A
 * local realpath check proves nothing about a remote host's files, so before an engine may
 * mount a source root, the client writes a nonce file into it and the engine must hand back the
 * same bytes from the same path. No process runs in any container: a throwaway container is
 * created (never started) from the profile's image with the root bind-mounted read-only, the
 * file is read back through the archive API (`docker cp CONTAINER:PATH -`, which works on a
 * created container), and the container is removed. The same container tells whether the engine
 * is local: it also mounts this process's anchor directory through `/proc/<pid>/fd/<n>`, which
 * only resolves for an engine that sees this process (see mounts.ts).
 * Done once per engine, source root and process (passes are cached), and only for profiles with mounts.
 *
 * What a by-path mount (an engine that sees the file but not this process) gives up compared with
 * a pinned one: the engine resolves the path itself when the container starts, on its own host,
 * so a directory swapped for a symlink between the check and the start is followed there (the
 * pinned mount follows the checked inode); the protected-path rules were checked on the client's
 * view of the path; and a pass is cached for the process, so a later change on the engine's side
 * is not noticed. The probe file itself is briefly visible in the user's directory.
 */
import { randomBytes } from 'node:crypto';
import { unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { classifyEngineFailure } from '../engine/failures';
import { docker, dockerBinary } from '../engine/cli';
import { removeContainer } from '../engine/containerOps';
import { spawnOptions } from '../engine/spawnEnv';
import type { DockerOptions } from '../engine/contracts';
import { engineKey, engineTarget, engineText, targetText } from '../engine/engineTarget';
import { ownerLabels } from '../ownership/labels';
import { newContainerName } from '../layout';

/** What one probe found out about an engine and one source root. */
export interface EngineView {
  /**
   * Whether the engine found the client's nonce file at the root's path: `yes` (same bytes), `no`
   * (missing, different, or not a regular file), `unchecked` (the client could not write the file,
   * e.g. a read-only directory).
   */
  readonly sees: 'yes' | 'no' | 'unchecked';
  /** True when the engine mounted this process's anchor through `/proc/<pid>/fd` (it sees this process). */
  readonly local: boolean;
  /** Why `sees` is not `yes`, in words (plain text; engine words passed through `engineText`). */
  readonly why?: string;
}

/** How a checked source root may be mounted on an engine. */
export type MountAccess =
  | { readonly kind: 'pinned' }
  | { readonly kind: 'by-path' }
  | { readonly kind: 'refused'; readonly why: string };

/**
 * The rule: an engine may mount a host path only if it sees the client's file there.
 * - local engine that sees the file: `pinned` (the engine mounts this process's open descriptor,
 *   so a path swapped after the check changes nothing);
 * - local engine, file not writable (`unchecked`): `pinned` as well: the pinned mount only resolves
 *   on an engine that sees this process's descriptors, which the anchor just proved;
 * - engine that sees the file but not this process (Docker Desktop, Colima, Rancher Desktop
 *   sharing the home directory at the same path): `by-path`, a plain bind of the checked path;
 * - anything else: `refused`, with the reason.
 * Pure.
 */
export function mountAccess(view: EngineView): MountAccess {
  if (view.sees === 'yes') return { kind: view.local ? 'pinned' : 'by-path' };
  if (view.sees === 'unchecked' && view.local) return { kind: 'pinned' };
  if (view.sees === 'unchecked') {
    return { kind: 'refused', why: `${view.why ?? 'the probe file could not be written'}, and the engine does not see this process, so whether it sees the same directory cannot be checked` };
  }
  return { kind: 'refused', why: view.why ?? 'the engine does not see the probe file written there' };
}

/** Largest archive read back from the engine, bytes (a nonce file is 65 bytes plus tar headers). */
const MAX_ARCHIVE_BYTES = 64 * 1024;
/** Longest a probe call may take, ms. */
const PROBE_TIMEOUT_MS = 30_000;

/**
 * The data of the first regular file in a tar archive (ustar, with PAX `x`/`g` and GNU `L`/`K`
 * headers skipped), or undefined when the first file entry is not a regular file or the archive
 * is malformed. At most 8 entries are read. Never throws.
 */
export function firstTarFile(archive: Uint8Array): Buffer | undefined {
  const buf = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  let offset = 0;
  for (let entry = 0; entry < 8 && offset + 512 <= buf.length; entry++) {
    const header = buf.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) return undefined;
    const sizeText = header.subarray(124, 136).toString('latin1').replace(/\0.*$/s, '').trim();
    if (!/^[0-7]{1,12}$/.test(sizeText)) return undefined;
    const size = parseInt(sizeText, 8);
    const type = String.fromCharCode(header[156]!);
    const start = offset + 512;
    if (start + size > buf.length) return undefined;
    if (type === '0' || type === '\0' || type === '7') return Buffer.from(buf.subarray(start, start + size));
    if (!'xgLK'.includes(type)) return undefined;
    offset = start + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

/** Reads `path` from a created container through the archive API; the file's bytes, or why not. */
async function readFromContainer(opts: DockerOptions, name: string, path: string): Promise<{ data?: Buffer; why?: string }> {
  const r = await execa(dockerBinary(opts), ['cp', `${name}:${path}`, '-'], {
    ...spawnOptions(opts), encoding: 'buffer', maxBuffer: MAX_ARCHIVE_BYTES, timeout: PROBE_TIMEOUT_MS,
  });
  if (r.exitCode !== 0 || r.failed) {
    const said = Buffer.from(r.stderr ?? new Uint8Array()).toString('utf8').trim().split('\n')[0] ?? '';
    return { why: engineText(said.replace(/^Error( response from daemon)?:\s*/i, ''), 160) || 'the engine could not read it' };
  }
  const data = firstTarFile(r.stdout);
  return data ? { data } : { why: 'the engine returned something other than a regular file' };
}

/** One source root to probe: its checked path and an open descriptor on it, plus the run's anchor. */
export interface ProbeTarget {
  /** The checked, symlink-free path of the source root (what a by-path bind would mount). */
  readonly root: string;
  /** An open descriptor of this process on the root (the nonce is written through it, not through the path). */
  readonly rootFd: number;
  /**
   * An open descriptor of this process on the run's anchor directory (see mounts.ts); the anchor
   * nonce is written through it. Undefined where nothing can be pinned (no `/proc/self/fd`:
   * macOS, Windows): the engine then counts as not seeing this process, and only the root is probed.
   */
  readonly anchorFd?: number;
}

/**
 * Writes a fresh nonce file named `.sandbox-runner-probe-<hex>` into the directory of `dirFd`
 * (checked path `dirPath`); its name and bytes, or why not. Through `/proc/self/fd/<dirFd>` on
 * Linux, so the file lands in the checked directory whatever its path leads to now; through
 * `dirPath` where there is no `/proc` (macOS, Windows; mounts.ts checked that the descriptor and
 * the path were the same directory).
 */
async function writeNonce(dirFd: number, dirPath: string): Promise<{ name: string; bytes: Buffer; path: string } | { why: string }> {
  const name = `.sandbox-runner-probe-${randomBytes(16).toString('hex')}`;
  const bytes = Buffer.from(`${randomBytes(32).toString('hex')}\n`);
  const path = process.platform === 'linux' ? `/proc/self/fd/${dirFd}/${name}` : join(dirPath, name);
  try {
    await writeFile(path, bytes, { flag: 'wx', mode: 0o644 });
    return { name, bytes, path };
  } catch (e) {
    return { why: `the probe file could not be written into it (${(e as NodeJS.ErrnoException).code ?? String(e)})` };
  }
}

/** `docker create` argv for a probe container that can never do anything (no network, no capabilities, nobody, read-only). */
function probeCreateArgs(name: string, profileName: string, image: string, runId: string, mounts: readonly string[]): string[] {
  const labels = Object.entries(ownerLabels(runId, profileName)).flatMap(([k, v]) => ['--label', `${k}=${v}`]);
  return [
    'create', '--pull', 'never', '--name', name, ...labels,
    '--network', 'none', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--read-only', '--user', '65534:65534',
    '--entrypoint', '/sandbox-runner-probe-never-started',
    ...mounts.flatMap((m) => ['--mount', m]),
    '--', image,
  ];
}

/**
 * One probe container: created with `mounts`, each `reads` path read back, removed.
 * @returns per read path, the bytes or why not
 * @throws SandboxError when the container cannot be created (image missing on that engine, engine down)
 */
async function probeOnce(
  opts: DockerOptions, image: string, profileName: string, mounts: readonly string[], reads: readonly string[],
): Promise<Array<{ data?: Buffer; why?: string }>> {
  const { runId, name } = newContainerName();
  const created = await docker(opts, probeCreateArgs(name, profileName, image, runId, mounts), PROBE_TIMEOUT_MS);
  try {
    if (created.exitCode !== 0) {
      if (/bind source path does not exist/i.test(created.stderr)) return reads.map(() => ({ why: 'that path does not exist on the engine' }));
      throw classifyEngineFailure(created.stderr, 'create a container to check which files it sees', image, opts);
    }
    return await Promise.all(reads.map((path) => readFromContainer(opts, name, path)));
  } finally {
    // Also after a failed create: docker may have made the container before failing.
    await removeContainer(opts, name).catch(() => undefined);
  }
}

/**
 * Probes what the engine of `opts` sees of `target.root` (see the module comment).
 * @param image the profile's image (the probe container's image; never pulled)
 * @throws SandboxError when the engine cannot create the probe container (e.g. `image-missing`
 *   on that engine, `daemon-unreachable`)
 */
export async function probeEngineView(opts: DockerOptions, image: string, profileName: string, target: ProbeTarget): Promise<EngineView> {
  const rootNonce = await writeNonce(target.rootFd, target.root);
  const anchorNonce = target.anchorFd === undefined ? undefined : await writeNonce(target.anchorFd, '');
  try {
    if (anchorNonce && 'why' in anchorNonce) throw new Error(`the anchor directory is not writable: ${anchorNonce.why}`);
    const byPath = 'why' in rootNonce ? undefined : `type=bind,src=${target.root},dst=/probe,readonly`;
    const rootPath = 'why' in rootNonce ? undefined : `/probe/${rootNonce.name}`;
    let local = false;
    let seen: { data?: Buffer; why?: string } | undefined;
    if (anchorNonce) {
      const anchor = [
        'type=volume', 'dst=/anchor', 'volume-nocopy', 'volume-driver=local', 'volume-opt=type=none',
        '"volume-opt=o=bind,ro"', `volume-opt=device=/proc/${process.pid}/fd/${target.anchorFd}`,
      ].join(',');
      const both = await probeOnce(opts, image, profileName, byPath ? [byPath, anchor] : [anchor], [`/anchor/${anchorNonce.name}`, ...(rootPath ? [rootPath] : [])]);
      local = !!both[0]!.data?.equals(anchorNonce.bytes);
      seen = both[1];
    }
    // The anchor did not mount (an engine that does not see this process), or there is none (no
    // /proc here): every read of that container failed with it, so read the root from one without it.
    if (!local && byPath && rootPath) seen = (await probeOnce(opts, image, profileName, [byPath], [rootPath]))[0];
    if ('why' in rootNonce) return { sees: 'unchecked', local, why: rootNonce.why };
    if (seen?.data?.equals(rootNonce.bytes)) return { sees: 'yes', local };
    const why = seen?.data
      ? 'the engine has a different file at that path (it sees another file system there)'
      : `the probe file written there was not found at that path on the engine (${seen?.why ?? 'no answer'})`;
    return { sees: 'no', local, why };
  } finally {
    if (!('why' in rootNonce)) await unlink(rootNonce.path).catch(() => undefined);
    if (anchorNonce && !('why' in anchorNonce)) await unlink(anchorNonce.path).catch(() => undefined);
  }
}

/** Passed probes, by engine and root: once per engine, source root and process. */
const passed = new Map<string, EngineView>();

/**
 * How `target.root` may be mounted on the engine of `opts`: a cached pass, else a probe
 * ({@link probeEngineView}) and the rule ({@link mountAccess}). Only allowed outcomes are cached;
 * a refusal is probed again next time (the user may fix it).
 * @param probe FOR TESTS ONLY: a replacement probe (its answers are never cached)
 * @returns the access, with the engine named for messages (`engine`, plain text)
 * @throws SandboxError when the engine cannot create the probe container
 */
export async function engineMountAccess(
  opts: DockerOptions, image: string, profileName: string, target: ProbeTarget,
  probe: typeof probeEngineView = probeEngineView,
): Promise<MountAccess & { readonly engine: string }> {
  const engine = `the Docker engine of ${targetText(engineTarget(opts))}`;
  const key = `${engineKey(opts)}\0${target.root}`;
  const real = probe === probeEngineView;
  const view = (real ? passed.get(key) : undefined) ?? (await probe(opts, image, profileName, target));
  const access = mountAccess(view);
  if (real && access.kind !== 'refused') passed.set(key, view);
  return { ...access, engine };
}
