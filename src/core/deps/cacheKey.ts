/**
 * The identity of an installed dependency set (issue 22): a SHA-256 over the image ID, the package
 * manager, the normalised spec list (profiles/dependencySpecs.ts `normaliseSpecs`) and everything
 * of the installer's configuration that can change what it fetches (issue 34: installer.ts
 * `installerIdentity`: the index or registry, extra indexes, trusted hosts, proxies; the installer
 * sees nothing else). Two runs that would install the same files get the same key, hence the same
 * engine volume; anything that could change what is installed changes the key. Pure.
 */
import { createHash } from 'node:crypto';
import { normaliseSpecs, type DependencyManager } from '../profiles/dependencySpecs';
import { CONTAINER_NAME_PREFIX } from '../layout';
import { installerIdentity } from './installer';

/** What a set is keyed by. */
export interface DependencySetId {
  /** The image's content ID (`docker image inspect --format {{.Id}}`, e.g. `sha256:…`), never a tag. */
  readonly imageId: string;
  readonly manager: DependencyManager;
  /** The specs as declared (normalised here). */
  readonly specs: readonly string[];
  /**
   * The caller's registry variables the install gets (install.ts `InstallRequest.registryEnv`,
   * e.g. `{ PIP_INDEX_URL: 'http://mirror/simple/', PIP_TRUSTED_HOST: 'mirror' }`; `{}` for the
   * installer's defaults), normalised by installer.ts `installerIdentity`.
   */
  readonly installEnv: Readonly<Record<string, string>>;
}

/**
 * Bumped when the layout of an installed set or what the key covers changes, so old volumes are
 * never mounted by a new runner (v2, issue 34: sets of v1 were installed with the profile's
 * environment, so they may hold what a workspace chose).
 */
const KEY_VERSION = 'deps-v2';

/**
 * An index or registry URL as the key and consent compare it: trimmed, without trailing slashes.
 * pip and npm fetch `…/npm` and `…/npm/` the same way (each joins a package name after one slash),
 * so they must not make two sets or ask twice.
 */
export function normaliseIndexUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

/**
 * The set's key: 64 lower-case hex digits.
 * Inputs are joined as a JSON array, so no two different inputs give the same hashed text.
 */
export function dependencySetKey(id: DependencySetId): string {
  const text = JSON.stringify([KEY_VERSION, id.imageId, id.manager, normaliseSpecs(id.specs, id.manager), installerIdentity(id.manager, id.installEnv)]);
  return createHash('sha256').update(text).digest('hex');
}

/** The engine volume name of a set: `sandbox-runner-deps-` and the key's first 32 hex digits (128 bits). */
export function dependencyVolumeName(key: string): string {
  return `${CONTAINER_NAME_PREFIX}deps-${key.slice(0, 32)}`;
}
