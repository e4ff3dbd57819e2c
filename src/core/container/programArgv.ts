/**
 * The program's words inside the container: the snippet's path, the profile's `command` and
 * `compile` argv with `${file}` and `${out}` replaced (no shell involved). Not floor flags: argv.ts
 * puts these words after the floor, and the launcher (launcher.ts) runs them.
 */
import { SNIPPET_DIR } from '../layout';
import { COMPILED_PROGRAM_PATH, FILE_PLACEHOLDER, OUT_PLACEHOLDER, type Profile } from '../profiles/profileSchema';

/** The in-container path of the snippet file. */
export function snippetPath(spec: { readonly snippetFileName: string }): string {
  return `${SNIPPET_DIR}/${spec.snippetFileName}`;
}

/** The program argv: the profile's command with {@link FILE_PLACEHOLDER} and {@link OUT_PLACEHOLDER} replaced (no shell involved). */
export function programArgv(profile: Profile, inContainerFile: string): string[] {
  return placeholders(profile.command, inContainerFile);
}

/**
 * The launcher's words for a profile's `compile` step (issue 23, launcher.ts `COMPILE_LAUNCHER`):
 * the word count, then the compile argv with its placeholders replaced; none without `compile`.
 */
export function compileWords(profile: Profile, inContainerFile: string): string[] {
  return profile.compile ? [String(profile.compile.length), ...placeholders(profile.compile, inContainerFile)] : [];
}

function placeholders(argv: readonly string[], inContainerFile: string): string[] {
  return argv.map((arg) => arg.split(FILE_PLACEHOLDER).join(inContainerFile).split(OUT_PLACEHOLDER).join(COMPILED_PROGRAM_PATH));
}
