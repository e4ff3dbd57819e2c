/**
 * The identity of an installed dependency set (issue 22): a SHA-256 over the image ID, the package
 * manager, the normalised spec list (profiles/dependencySpecs.ts `normaliseSpecs`) and the index
 * or registry URL. Two runs that would install the same files get the same key, hence the same
 * engine volume; anything that could change what is installed changes the key. Pure.
 */
import { createHash } from 'node:crypto';
import { normaliseSpecs, type DependencyManager } from '../profiles/dependencySpecs';
import { CONTAINER_NAME_PREFIX } from '../layout';

/** What a set is keyed by. */
export interface DependencySetId {
  /** The image's content ID (`docker image inspect --format {{.Id}}`, e.g. `sha256:…`), never a tag. */
  readonly imageId: string;
  readonly manager: DependencyManager;
  /** The specs as declared (normalised here). */
  readonly specs: readonly string[];
  /** The index (pip) or registry (npm) URL the install uses; `''` for the installer's default (normalised by {@link normaliseIndexUrl}). */
  readonly indexUrl: string;
}

/** Bumped when the layout of an installed set changes, so old volumes are never mounted by a new runner. */
const KEY_VERSION = 'deps-v1';

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
  const text = JSON.stringify([KEY_VERSION, id.imageId, id.manager, normaliseSpecs(id.specs, id.manager), normaliseIndexUrl(id.indexUrl)]);
  return createHash('sha256').update(text).digest('hex');
}

/** The engine volume name of a set: `sandbox-runner-deps-` and the key's first 32 hex digits (128 bits). */
export function dependencyVolumeName(key: string): string {
  return `${CONTAINER_NAME_PREFIX}deps-${key.slice(0, 32)}`;
}
