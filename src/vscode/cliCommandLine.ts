/**
 * "Copy as sandbox-run Command" (issue 12): a command line that reproduces a run from bash or
 * zsh: the run's resolved profile as `--profile-json`, the file (or, for a selection or unsaved
 * text, the code in a quoted here-document on stdin), the program arguments after `--`, and the
 * engine choice. Every word is quoted by the `shell-quote` library (`quote`: single quotes, or
 * backslashes, so no `$`, backtick, `!`, `~` or glob acts when pasted); the here-document's
 * delimiter is quoted (`<<'…'`: its body is never expanded) and chosen so no line of the code
 * equals it. Free of `vscode`, so unit tests import it; bundled lazily (rerunModule.ts).
 */
import { quote } from 'shell-quote';
import type { DockerOptions, Profile } from '../core';

/** What one run was, as the command line needs it. */
export interface CliRunSpec {
  /** How to call the CLI, e.g. `['sandbox-run']` or `['node', '/…/dist/cli.js']`. */
  readonly cli: readonly string[];
  readonly profileName: string;
  /** The profile the run used (resolved, validated). */
  readonly profile: Profile;
  /** The file the run read, when it ran a saved file as it is on disk (absolute path). */
  readonly file?: string;
  /** Otherwise the code it ran (a selection, or unsaved text): sent on stdin in a here-document. */
  readonly code?: string;
  readonly args: readonly string[];
  /** An interactive file run gets `-i` (the CLI takes no -i with code on stdin). */
  readonly interactive?: boolean;
  /** The engine: `--docker-path`, `--context`, and `DOCKER_HOST=` before the command for a host. */
  readonly docker?: DockerOptions;
  /**
   * The run's workspace folder (absolute host path), when it had one: passed as `--workspace` when
   * the profile mounts it (`workspace: "ro"`, or a mount source with `${workspaceFolder}`), since
   * the CLI's own default is the directory the line is pasted in.
   */
  readonly workspace?: string;
}

/** True when `profile` mounts the workspace folder: `workspace: "ro"` or a `${workspaceFolder}` mount source (pathVariables.ts). */
function usesWorkspaceFolder(profile: Profile): boolean {
  return profile.workspace === 'ro' || profile.mounts.some((m) => m.source.includes('${workspaceFolder}'));
}

/** The here-document delimiter's stem; a suffix is added while a line of the code equals it. */
export const HEREDOC_STEM = 'SANDBOX_RUN_EOF';

/**
 * A here-document delimiter no line of `code` equals (bash and zsh end the body at the first line
 * exactly equal to the delimiter; `<<`, not `<<-`, so leading tabs count).
 */
export function heredocDelimiter(code: string): string {
  const lines = new Set(code.split('\n'));
  let delimiter = HEREDOC_STEM;
  for (let n = 1; lines.has(delimiter); n++) delimiter = `${HEREDOC_STEM}_${n}`;
  return delimiter;
}

/**
 * The command line for `spec`, ending with a newline (after the here-document's delimiter line
 * when the code travels on stdin).
 * @throws Error when `spec` has neither `file` nor `code`
 */
export function cliCommandLine(spec: CliRunSpec): string {
  const words: string[] = [];
  const env = spec.docker?.host ? `DOCKER_HOST=${quote([spec.docker.host])} ` : '';
  words.push(...spec.cli);
  if (spec.docker?.dockerPath) words.push('--docker-path', spec.docker.dockerPath);
  if (spec.docker?.context) words.push('--context', spec.docker.context);
  if (spec.workspace !== undefined && usesWorkspaceFolder(spec.profile)) words.push('--workspace', spec.workspace);
  words.push('--profile', spec.profileName, '--profile-json', JSON.stringify(spec.profile));
  if (spec.file !== undefined) {
    if (spec.interactive) words.push('-i');
    words.push(spec.file);
  } else if (spec.code !== undefined) {
    words.push('-');
  } else {
    throw new Error('cliCommandLine: a run needs its file or its code');
  }
  if (spec.args.length > 0) words.push('--', ...spec.args);
  const line = env + quote(words);
  if (spec.file !== undefined) return line + '\n';
  const code = spec.code!;
  const delimiter = heredocDelimiter(code);
  return `${line} <<'${delimiter}'\n${code}${code.endsWith('\n') || code === '' ? '' : '\n'}${delimiter}\n`;
}
