/**
 * The host paths no bind mount may be, contain, or sit inside, per client OS (SECURITY.md,
 * "Protected host paths per platform"; issue 15 for macOS and Windows), and the pure rule that judges a resolved path
 * against them. mounts.ts `protectedReason` applies it with the real platform, home directory,
 * environment and symlink resolution; unit tests apply it with any platform on Linux.
 */
import { isHostPathInside, isWin32DevicePath, normalizeHostPath, pathFlavor, sameHostPath, type HostPlatform } from '../hostPath';

/** System paths protected on Linux (and, where they exist, on macOS): devices, runtime sockets, engine state, configuration. */
export const POSIX_PROTECTED_PATHS = [
  '/dev', '/run', '/var/run', '/proc', '/sys', '/boot', '/etc', '/root', '/var/lib/docker',
  '/var/run/docker.sock', '/run/docker.sock', '/var/run/containerd', '/run/containerd',
  '/run/podman', '/var/run/crio', '/run/crio',
] as const;

/**
 * Extra system paths on macOS: `/etc`, `/var` and `/tmp` are symlinks into `/private` there, so
 * both spellings are listed (the real file system resolves them too, but this list must hold
 * on its own in unit tests); the system volume, the system keychains, root's home and the system
 * databases (`/private/var/db`: sudo timestamps, TCC, dslocal users).
 */
export const DARWIN_PROTECTED_PATHS = [
  '/private/etc', '/private/var/run', '/private/var/root', '/var/root', '/private/var/db', '/var/db',
  '/System', '/Library/Keychains',
] as const;

/**
 * System paths on Windows, from the environment where Windows names them (`SystemDrive`,
 * `SystemRoot`, `ProgramData`; defaults `C:`, `C:\Windows`, `C:\ProgramData`): the Windows
 * folder, the Docker engines' data and Docker Desktop's state, the machine's key store, and the
 * Docker engines' named pipes (refused anyway as device paths, listed so the list says so).
 * @param env the environment (names matched case-insensitively, as Windows does)
 */
export function win32ProtectedPaths(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const get = (name: string) => Object.entries(env).find(([k, v]) => k.toLowerCase() === name.toLowerCase() && v)?.[1];
  const drive = /^[A-Za-z]:$/.test(get('SystemDrive') ?? '') ? get('SystemDrive')! : 'C:';
  const systemRoot = get('SystemRoot') ?? `${drive}\\Windows`;
  const programData = get('ProgramData') ?? `${drive}\\ProgramData`;
  return [
    systemRoot, `${programData}\\Docker`, `${programData}\\DockerDesktop`, `${programData}\\Microsoft\\Crypto`,
    `${drive}\\System Volume Information`, '\\\\.\\pipe\\docker_engine', '\\\\.\\pipe\\dockerDesktopLinuxEngine', '\\\\.\\pipe',
  ];
}

/**
 * Credential files and folders under the home directory, on every OS (a fixed list: credentials
 * stored elsewhere are not known to the sandbox). A mount may not be, sit inside, or contain
 * one. `.config` holds the tokens of gh, gcloud, docker helpers and Podman's; `.netrc`,
 * `.git-credentials`, `.npmrc`, `.pypirc`, `.pgpass`, `.vault-token`, Cargo's, RubyGems', Maven's
 * and Gradle's files hold passwords and registry tokens; `.docker` holds the CLI's credentials
 * and Docker Desktop's socket (`~/.docker/run/docker.sock`); `.colima`, `.lima`, `.rd` (Rancher
 * Desktop), `.local/share/containers` (Podman) and `.minikube` hold engine sockets, VM disks and keys.
 * Written with `/`; joined to the home directory in the platform's flavour.
 */
export const HOME_CREDENTIALS = [
  '.ssh', '.docker', '.aws', '.azure', '.kube', '.gnupg', '.config', '.netrc', '.git-credentials', '.npmrc',
  '.pypirc', '.pgpass', '.vault-token', '.password-store', '.terraform.d', '.cargo/credentials', '.cargo/credentials.toml',
  '.gem/credentials', '.m2/settings.xml', '.gradle/gradle.properties', '.colima', '.lima', '.rd', '.minikube',
  '.local/share/containers',
] as const;

/**
 * More credential locations under the home directory on macOS: the login keychains, cookies,
 * Docker Desktop's VM and group container (its sockets and settings), Rancher Desktop's state,
 * and the privacy (TCC) database.
 */
export const DARWIN_HOME_CREDENTIALS = [
  'Library/Keychains', 'Library/Cookies', 'Library/Containers/com.docker.docker', 'Library/Group Containers/group.com.docker',
  'Library/Application Support/rancher-desktop', 'Library/Application Support/com.apple.TCC',
] as const;

/**
 * More credential locations under the home directory (`%USERPROFILE%`) on Windows: all of
 * `AppData` (`%APPDATA%` and `%LOCALAPPDATA%`: the DPAPI master keys in `Microsoft\Protect`,
 * saved credentials, browser profiles, Docker Desktop's and the cloud CLIs' state), the
 * Windows counterpart of `.config` and `.local/share`. `%APPDATA%` / `%LOCALAPPDATA%` outside the
 * home directory (a redirected profile) are protected too (see {@link protectedReasonFor}).
 */
export const WIN32_HOME_CREDENTIALS = ['AppData'] as const;

/** The home credential entries of `platform`, relative to the home directory, written with `/`. */
export function homeCredentials(platform: HostPlatform = process.platform): readonly string[] {
  if (platform === 'darwin') return [...HOME_CREDENTIALS, ...DARWIN_HOME_CREDENTIALS];
  if (platform === 'win32') return [...HOME_CREDENTIALS, ...WIN32_HOME_CREDENTIALS];
  return HOME_CREDENTIALS;
}

/**
 * The protected system paths of `platform` (absolute, in its flavour): Linux {@link POSIX_PROTECTED_PATHS};
 * macOS those plus {@link DARWIN_PROTECTED_PATHS}; Windows {@link win32ProtectedPaths} plus the
 * user's `%APPDATA%` and `%LOCALAPPDATA%` wherever they are.
 */
export function protectedSystemPaths(platform: HostPlatform = process.platform, env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  if (platform === 'darwin') return [...POSIX_PROTECTED_PATHS, ...DARWIN_PROTECTED_PATHS];
  if (platform !== 'win32') return [...POSIX_PROTECTED_PATHS];
  const user = ['APPDATA', 'LOCALAPPDATA'].map((n) => Object.entries(env).find(([k]) => k.toUpperCase() === n)?.[1]);
  return [...win32ProtectedPaths(env), ...user.filter((p): p is string => !!p && /^[A-Za-z]:[\\/]|^\\\\[^.?]/.test(p))];
}

/** What {@link protectedReasonFor} judges against. */
export interface ProtectionContext {
  /** The client OS whose path rules apply. */
  readonly platform: HostPlatform;
  /** The user's home directory (`os.homedir()`: `$HOME`, `%USERPROFILE%`); "" when unknown. */
  readonly home: string;
  /** The environment (Windows system folders, `%APPDATA%`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * A path as written and, when it differs, where it leads through symlinks (mounts.ts uses the
   * real file system; unit tests pass `(p) => [p]`).
   */
  readonly forms: (path: string) => string[];
}

/** True when `hostPath` is a root that holds everything: `/`, a Windows drive root `D:\`. */
function isFileSystemRoot(hostPath: string, platform: HostPlatform): boolean {
  if (platform !== 'win32') return normalizeHostPath(hostPath, platform) === '/';
  return /^[A-Za-z]:\\$/.test(normalizeHostPath(hostPath, platform));
}

/**
 * A WSL distribution's files as Windows shows them: `\\\\wsl$\\<distro>\\…` or
 * `\\\\wsl.localhost\\<distro>\\…` (the 9P server of WSL 2). Such a path is a Linux path inside
 * the distribution, so the Linux rules apply to the rest (case-sensitive, as ext4 is there).
 */
const WSL_PATH = /^\\\\(?:wsl\$|wsl\.localhost)\\([^\\]+)(\\.*)?$/i;

/**
 * Why a Windows path into a WSL distribution may not be mounted, or undefined when it may (or
 * it is no WSL path): Docker Desktop's own distributions (`docker-desktop`, `docker-desktop-data`:
 * the engine and its data) entirely, a distribution's root, and inside it what Linux protects
 * ({@link POSIX_PROTECTED_PATHS}, `/root`, and each `/home/<user>`'s {@link HOME_CREDENTIALS}).
 */
function wslReason(hostPath: string): string | undefined {
  const m = WSL_PATH.exec(normalizeHostPath(hostPath, 'win32'));
  if (!m) return undefined;
  const distro = m[1]!;
  if (/^docker-desktop/i.test(distro)) return `it is in Docker Desktop's own WSL distribution ${distro}`;
  const rest = (m[2] ?? '').replace(/\\/g, '/').replace(/\/+$/, '') || '/';
  if (rest === '/home') return `in WSL distribution ${distro}, it contains the home directories`;
  const home = /^\/home\/[^/]+/.exec(rest)?.[0] ?? '';
  const linux = { platform: 'linux' as const, home, env: {}, forms: (p: string) => [p] };
  const why = protectedReasonFor(rest, [], linux);
  return why && `in WSL distribution ${distro}, ${why.replace(/ your home directory/g, ' a home directory')}`;
}

/**
 * Why `hostPath` (absolute, symlink-free, in `ctx.platform`'s flavour) may not be mounted, or
 * undefined when it may. Refused: a file-system root (`/`, a drive root); a Windows device path;
 * the home directory itself; a path that is, sits inside or contains a home credential entry
 * ({@link homeCredentials}; "contains" is judged last, so a parent of the home directory is
 * named as such); a path that is, sits inside or contains a protected system path
 * ({@link protectedSystemPaths}) or one of `extraProtected`; a path that contains the home
 * directory. Each protected path counts as written and where it leads (`ctx.forms`). Paths
 * compare as hostPath.ts `isHostPathInside` does (case-insensitive on Windows and macOS).
 * Pure unless `ctx.forms` touches the file system.
 * @returns a clause completing "the mount is refused because …", plain text
 */
export function protectedReasonFor(hostPath: string, extraProtected: readonly string[], ctx: ProtectionContext): string | undefined {
  const { platform } = ctx;
  if (isFileSystemRoot(hostPath, platform)) return platform === 'win32' ? 'it is the root directory of a drive' : 'it is the root directory';
  if (platform === 'win32' && isWin32DevicePath(hostPath)) return 'it is a Windows device or pipe path';
  const wsl = platform === 'win32' ? wslReason(hostPath) : undefined;
  if (wsl) return wsl;
  const inside = (p: string, root: string) => isHostPathInside(p, root, platform);
  const join = pathFlavor(platform).join;
  const homes = ctx.home ? ctx.forms(ctx.home) : [];
  if (homes.some((h) => sameHostPath(h, hostPath, platform))) return 'it is your home directory itself';
  const credentials = homeCredentials(platform).map((entry) => ({
    entry, paths: homes.flatMap((home) => ctx.forms(join(home, ...entry.split('/')))),
  }));
  if (credentials.some((c) => c.paths.some((p) => inside(hostPath, p)))) return 'it holds credentials in your home directory';
  // %APPDATA% under the home directory is a home credential entry already (and then a parent of
  // the home directory is named as such).
  const system = protectedSystemPaths(platform, ctx.env).filter((p) => !homes.some((home) => inside(p, home)));
  for (const written of [...system, ...extraProtected]) {
    for (const root of ctx.forms(written)) {
      if (inside(hostPath, root)) return `it is or sits inside ${written}`;
      if (inside(root, hostPath)) return `it contains ${written}`;
    }
  }
  if (homes.some((home) => inside(home, hostPath))) return 'it contains your home directory';
  const held = credentials.find((c) => c.paths.some((p) => inside(p, hostPath)));
  return held ? `it contains credentials in your home directory (~/${held.entry})` : undefined;
}
