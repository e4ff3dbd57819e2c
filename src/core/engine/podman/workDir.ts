/**
 * The engine work directories: every engine CLI call runs in a private directory of this process
 * (spawnEnv.ts), because Podman's conmon writes its `oom` file into its caller's working directory.
 * That file is Podman's OOM signal ({@link conmonSawOom}); the docker CLI ignores its cwd.
 * Stale directories of dead processes are removed by the orphan sweep (ownership/hostDirs.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentStartTime } from '../procLiveness';

/**
 * The process's engine work root, kept on `globalThis` so every bundled copy of this module (the
 * extension's bundles, each test file's) uses the same one: a container started by one copy (a
 * warm pool) is diagnosed by another (its conmon `oom` file must be found).
 */
const SCRATCH = Symbol.for('sandbox-runner.engineWorkRoot');
const scratchState = ((globalThis as { [SCRATCH]?: { root?: string; exitHooked?: boolean } })[SCRATCH] ??= {});

/**
 * The working directory every engine CLI call runs in: a private (0700) directory of this
 * process under the OS temp dir, removed when the process exits; for a call that starts a
 * container, that container's own subdirectory. Podman's conmon writes an empty `oom` file into
 * its caller's working directory when the kernel's OOM killer hit the container (and leaves it
 * there: Podman 4.3 then still reports `OOMKilled: false`), so it must never land in the user's
 * folder, and {@link conmonSawOom} reads it as the OOM signal. The docker CLI ignores its cwd.
 * A process killed with SIGKILL leaves its directory: `reapOrphans` removes it once the owner is
 * provably gone (`removeStaleEngineDirs`, reaper.ts).
 * @param container a container name (`[A-Za-z0-9][A-Za-z0-9_.-]*`), or undefined for the root
 * @returns an absolute path that exists when this returns
 */
export function engineWorkDir(container?: string): string {
  let scratchRoot = scratchState.root;
  if (!scratchRoot || !existsSync(scratchRoot)) {
    // Owner pid and start time in the name: `reapOrphans` removes the folder of a dead owner.
    scratchRoot = scratchState.root = mkdtempSync(join(tmpdir(), `sandbox-runner-engine-${process.pid}-${currentStartTime()}-`));
    const root = scratchRoot;
    if (!scratchState.exitHooked) {
      scratchState.exitHooked = true;
      process.once('exit', () => rmSync(scratchState.root ?? root, { recursive: true, force: true }));
    }
  }
  if (container === undefined || !CONTAINER_NAME.test(container)) return scratchRoot;
  const dir = join(scratchRoot, container);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
const CONTAINER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Name of an {@link engineWorkDir} root: owner pid, owner start time (clock ticks), random suffix. */
export const ENGINE_DIR_NAME = /^sandbox-runner-engine-([1-9]\d{0,9})-(\d{1,20}|unknown)-[A-Za-z0-9]{6}$/;

/** The container a `start [--attach] NAME` or `run … --name NAME` argv starts, if any. */
export function startedContainer(args: readonly string[]): string | undefined {
  if (args[0] === 'start') return args[args.length - 1];
  if (args[0] === 'run') {
    const i = args.indexOf('--name');
    if (i > 0 && (args.indexOf('--') < 0 || i < args.indexOf('--'))) return args[i + 1];
  }
  return undefined;
}

/**
 * True when Podman's conmon recorded an OOM kill of `container` (its `oom` file in the
 * container's {@link engineWorkDir}). Never true on Docker (nothing writes there).
 */
export function conmonSawOom(container: string): boolean {
  const root = scratchState.root;
  return CONTAINER_NAME.test(container) && !!root && existsSync(join(root, container, 'oom'));
}

/** Removes a container's {@link engineWorkDir} subdirectory (after the container is gone). */
export function disposeEngineWorkDir(container: string): void {
  const root = scratchState.root;
  if (CONTAINER_NAME.test(container) && root) rmSync(join(root, container), { recursive: true, force: true });
}
