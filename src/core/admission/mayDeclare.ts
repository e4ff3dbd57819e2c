/**
 * Whether a run might declare dependencies (issue 22), decided without the dependencies code: the
 * caller loads that code (the extension's dist/deps.js, with its TOML parser) only when this says
 * yes, so a run that declares nothing never loads it (issue 26).
 */
import type { Profile } from '../profiles/profileSchema';

/**
 * The text every PEP 723 block's first line holds (`# /// script`, deps/pep723.ts `scanMetadataBlocks`): code
 * without it has no block, a valid one or not.
 */
export const SCRIPT_BLOCK_OPENER = '# /// script';

/**
 * True when the run could declare dependencies or a `requires-python`: the profile's own
 * `dependencies`, an agent's `dependencies` input, or a `# /// script` block opener anywhere in
 * `code`. A superset of what deps/declared.ts `declaredDependencies` and `requiresPythonOnly`
 * act on (they also refuse bad blocks and specs, so those must reach them): false only when both
 * would return undefined without reading anything.
 */
export function mayDeclareDependencies(profile: Pick<Profile, 'dependencies'>, code: string, agentSpecs: readonly string[] = []): boolean {
  return profile.dependencies.length > 0 || agentSpecs.length > 0 || code.includes(SCRIPT_BLOCK_OPENER);
}
