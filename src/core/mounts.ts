/**
 * Run-time validation of a profile's bind mounts (isolation.md, "Filesystem"): the host path
 * must exist, is resolved through symlinks, must be a regular file or directory, and must not be,
 * contain, or sit inside a protected path.
 */
import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { posix } from 'node:path';
import type { ResolvedMount } from './argv';
import { SANDBOX_HOME, SNIPPET_DIR } from './argv';
import { SandboxError } from './errors';
import { isPathInside, type Profile } from './profile';

/** Host paths a mount may not be, contain, or sit inside. */
export const PROTECTED_HOST_PATHS = [
  '/dev', '/run', '/var/run', '/proc', '/sys', '/boot', '/etc', '/root', '/var/lib/docker',
  '/var/run/docker.sock', '/run/docker.sock', '/var/run/containerd', '/run/containerd',
  '/run/podman', '/var/run/crio', '/run/crio',
] as const;

/**
 * Credential files and folders under the home directory a mount may not be or sit inside (a
 * fixed list: credentials stored elsewhere are not known to the sandbox). `.config` holds the
 * tokens of gh, gcloud, docker helpers and more; `.netrc`, `.git-credentials`, `.npmrc` and
 * `.pypirc` hold passwords and registry tokens.
 */
const HOME_CREDENTIALS = [
  '.ssh', '.docker', '.aws', '.kube', '.gnupg', '.config', '.netrc', '.git-credentials', '.npmrc', '.pypirc',
] as const;

/** Why `hostPath` (absolute, symlink-free) is refused, or undefined when allowed. */
export function protectedReason(hostPath: string, extraProtected: readonly string[] = []): string | undefined {
  if (hostPath === '/') return 'it is the root directory';
  const home = homedir();
  if (home && hostPath === home) return 'it is your home directory itself';
  if (home && HOME_CREDENTIALS.some((d) => isPathInside(hostPath, posix.join(home, d)))) {
    return 'it holds credentials in your home directory';
  }
  for (const root of [...PROTECTED_HOST_PATHS, ...extraProtected]) {
    if (isPathInside(hostPath, root)) return `it is or sits inside ${root}`;
    if (isPathInside(root, hostPath)) return `it contains ${root}`;
  }
  if (home && isPathInside(home, hostPath)) return 'it contains your home directory';
  return undefined;
}

const RESERVED_TARGETS = [SNIPPET_DIR, SANDBOX_HOME, '/tmp'];

/**
 * Validates and resolves the profile's mounts.
 * @param extraProtected more host paths to refuse (e.g. the extension's own state directory)
 * @throws SandboxError `invalid-mount` naming the setting key and the reason
 */
export async function resolveMounts(
  profileName: string,
  profile: Profile,
  extraProtected: readonly string[] = [],
): Promise<ResolvedMount[]> {
  const out: ResolvedMount[] = [];
  for (const [i, m] of profile.mounts.entries()) {
    const key = `sandboxRunner.profiles.${profileName}.mounts.${i}`;
    const fail = (why: string) =>
      new SandboxError(
        'invalid-mount',
        `The bind mount ${key} (${m.source}) is refused because ${why}.`,
        'Mount a project directory or file instead, or remove the mount from the profile.',
      );
    if (RESERVED_TARGETS.some((t) => isPathInside(m.target, t))) {
      throw fail(`its target ${m.target} is reserved by the sandbox (${RESERVED_TARGETS.join(', ')})`);
    }
    let resolved: string;
    try {
      resolved = await realpath(m.source);
    } catch {
      throw fail('the host path does not exist');
    }
    const info = await stat(resolved);
    if (!info.isFile() && !info.isDirectory()) throw fail('it is neither a regular file nor a directory');
    if (/[,"\n\r\0]/.test(resolved)) throw fail('its resolved path contains a comma, quote or line break');
    const why = protectedReason(resolved, extraProtected);
    if (why) throw fail(resolved === m.source ? why : `it resolves to ${resolved} and ${why}`);
    out.push({ source: resolved, target: m.target, readOnly: m.mode !== 'rw' });
  }
  return out;
}
