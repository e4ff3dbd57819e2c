/**
 * Which engine product a context or host names, and the platform's way to start it, for the
 * "engine not reachable" and "docker missing" fixes (docker.ts) and the view's welcome content
 * (package.json `viewsWelcome`, chosen by the `sandboxRunner.engineHint` context key that
 * src/vscode/engineStatus.ts sets). Pure: the product is guessed from names only (context names
 * and socket paths these products create by default), never from an engine's answer, and only
 * chooses a sentence of ours: it decides nothing the runner does.
 */
import { settingId } from '../layout';

/**
 * An engine product, from its default context name or socket path:
 * - `docker-desktop`: context `desktop-linux` / `desktop-windows`, `~/.docker/run/docker.sock`,
 *   pipe `dockerDesktopLinuxEngine`; also the default engine on macOS and Windows;
 * - `colima`: context `colima` / `colima-<profile>`, `~/.colima/…/docker.sock`;
 * - `rancher-desktop`: context `rancher-desktop`, `~/.rd/docker.sock`;
 * - `podman-machine`: a socket or pipe named for Podman (`podman-machine-default`, `…/podman/podman.sock`);
 * - `orbstack`: context `orbstack`, `~/.orbstack/run/docker.sock`;
 * - `service`: the default engine on Linux (a system service, usually systemd's `docker`);
 * - `other`: an explicitly chosen engine none of the above names (a remote host, a custom socket).
 */
export type EngineProduct = 'docker-desktop' | 'colima' | 'rancher-desktop' | 'podman-machine' | 'orbstack' | 'service' | 'other';

/** The engine as chosen: a context name and/or the host it resolves to; `explicit` when anything chose it. */
export interface EngineNames {
  readonly context?: string;
  readonly host?: string;
  readonly explicit: boolean;
}

/** Each product's context names and host patterns (case-insensitive; `/` or `\` separators). */
const PRODUCTS: ReadonlyArray<{ product: EngineProduct; context: RegExp; host: RegExp }> = [
  { product: 'colima', context: /^colima(-|$)/i, host: /[\\/]\.colima[\\/]/i },
  { product: 'rancher-desktop', context: /^rancher-desktop$/i, host: /[\\/]\.rd[\\/]/i },
  { product: 'podman-machine', context: /podman/i, host: /podman/i },
  { product: 'orbstack', context: /^orbstack$/i, host: /[\\/]\.orbstack[\\/]/i },
  { product: 'docker-desktop', context: /^desktop-(linux|windows)$/i, host: /[\\/]\.docker[\\/]run[\\/]docker\.sock$|dockerDesktop(Linux|Windows)Engine/i },
];

/**
 * The product of the engine `names` choose on `platform`: the first of {@link PRODUCTS} whose
 * context name or host matches; an engine nothing chose is Docker Desktop on macOS and Windows
 * (what most users there run; the docker CLI's default pipe `docker_engine` is also Docker
 * Desktop's) and the system service on Linux; anything else chosen is `other`.
 */
export function engineProduct(names: EngineNames, platform: NodeJS.Platform = process.platform): EngineProduct {
  for (const p of PRODUCTS) {
    if ((names.context && p.context.test(names.context)) || (names.host && p.host.test(names.host))) return p.product;
  }
  const desktopDefault = names.host === undefined || /^npipe:\/\/[\\/]{2}\.[\\/]pipe[\\/]docker_engine$/i.test(names.host) || names.host === 'unix:///var/run/docker.sock';
  if (!names.explicit || (names.context === undefined && desktopDefault)) {
    return platform === 'darwin' || platform === 'win32' ? 'docker-desktop' : 'service';
  }
  return 'other';
}

/**
 * How to start the engine of `product` on `platform`, one sentence (fixed wording of ours).
 * Undefined for `other`: the caller names the engine and its `docker info` command instead.
 */
export function startEngineFix(product: EngineProduct, platform: NodeJS.Platform = process.platform): string | undefined {
  switch (product) {
    case 'docker-desktop':
      return platform === 'linux'
        ? 'Start Docker Desktop and wait until it says the engine is running, then try again.'
        : 'Start Docker Desktop and wait until it says the engine is running (or start the engine you use instead: Colima, Rancher Desktop, Podman Desktop), then try again.';
    case 'colima':
      return 'Start Colima ("colima start", or "colima start --profile NAME" for another profile), then try again.';
    case 'rancher-desktop':
      return 'Start Rancher Desktop (with the dockerd (moby) container engine) and wait until it is ready, then try again.';
    case 'podman-machine':
      return platform === 'linux'
        ? 'Start the Podman service ("systemctl --user start podman.socket"), then try again.'
        : 'Start the Podman machine ("podman machine start", or from Podman Desktop), then try again.';
    case 'orbstack':
      return 'Start OrbStack, then try again.';
    case 'service':
      return 'Start the docker service ("sudo systemctl start docker"; rootless Docker: "systemctl --user start docker"), or Docker Desktop if you use it, then try again.';
    case 'other':
      return undefined;
  }
}

/** How to install the docker CLI on `platform` (the `docker-missing` fix), one sentence of ours. */
export function installDockerFix(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') {
    return `Install Docker Desktop (it puts docker.exe on PATH), or set ${settingId('dockerPath')} in your user settings (VS Code) or pass --docker-path (CLI) to the full path of docker.exe.`;
  }
  if (platform === 'darwin') {
    return `Install Docker Desktop (or Colima, Rancher Desktop or OrbStack with the docker CLI) and put "docker" on PATH, or set ${settingId('dockerPath')} in your user settings (VS Code) or pass --docker-path (CLI).`;
  }
  return `Install Docker (docker.io or Docker Desktop) and put "docker" on PATH, or (in VS Code) set ${settingId('dockerPath')} in your user settings.`;
}

/**
 * The value of the `sandboxRunner.engineHint` context key, which chooses the view's welcome
 * content (package.json `viewsWelcome`): `missing` (the CLI could not be started), `permission`
 * (the engine refused this user), else the engine's product ({@link EngineProduct}).
 * @param code the `SandboxError` code of the failed engine check
 */
export function welcomeHint(code: string | undefined, product: EngineProduct): string {
  if (code === 'docker-missing') return 'missing';
  if (code === 'permission-denied') return 'permission';
  return product;
}
