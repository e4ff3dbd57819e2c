/**
 * The per-user state directory of the product (owner leases and the client host id, see
 * ownerLease.ts). Pure layout rules, written with `path.win32` / `path.posix` explicitly so the
 * unit tests check every platform's layout on any machine:
 *  - Linux and other Unix: `$XDG_STATE_HOME/sandbox-runner`, else `~/.local/state/sandbox-runner`
 *    (XDG Base Directory Specification 0.8, "$XDG_STATE_HOME"; a relative value is ignored, as
 *    the specification requires);
 *  - macOS: `~/Library/Application Support/sandbox-runner` (Apple's File System Programming
 *    Guide: per-user app data that is not a cache);
 *  - Windows: `%LOCALAPPDATA%\sandbox-runner`, else `~\AppData\Local\sandbox-runner` (the local,
 *    non-roaming profile folder: leases are about this machine and must not roam).
 * `env-paths` was not used: it reads `process.platform` when loaded (so one platform per test run)
 * and puts Windows data under `…\sandbox-runner\Data`.
 */
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/** The folder name under the platform's state root. */
export const STATE_DIR_NAME = 'sandbox-runner';

/** What the layout depends on: the platform (`process.platform`), the environment and the home directory. */
export interface StateDirInput {
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory (`os.homedir()`), an absolute path of the platform. */
  readonly home: string;
}

/**
 * The state directory for a platform (see the module comment). Pure.
 * @returns an absolute path in the platform's flavour (`path.win32` on "win32", else `path.posix`)
 */
export function stateDirFor(input: StateDirInput): string {
  if (input.platform === 'win32') {
    const local = input.env.LOCALAPPDATA ?? '';
    return win32.join(win32.isAbsolute(local) && /^([A-Za-z]:|\\\\)/.test(local) ? local : win32.join(input.home, 'AppData', 'Local'), STATE_DIR_NAME);
  }
  if (input.platform === 'darwin') return posix.join(input.home, 'Library', 'Application Support', STATE_DIR_NAME);
  const xdg = input.env.XDG_STATE_HOME ?? '';
  return posix.join(posix.isAbsolute(xdg) ? xdg : posix.join(input.home, '.local', 'state'), STATE_DIR_NAME);
}

/** This process's state directory (`stateDirFor` with `process.platform`, `process.env`, `os.homedir()`). */
export function stateDir(): string {
  return stateDirFor({ platform: process.platform, env: process.env, home: homedir() });
}
