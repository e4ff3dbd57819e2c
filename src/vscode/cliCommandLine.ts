/**
 * "Copy as sandbox-run Command" (issue 12): a command line that reproduces a run from bash or
 * zsh: the run's resolved profile as `--profile-json`, the file (or, for a selection or unsaved
 * text, the code in a quoted here-document on stdin), the program arguments after `--`, and the
 * engine choice. Every word is quoted by the `shell-quote` library (`quote`: single quotes, or
 * backslashes, so no `$`, backtick, `!`, `~` or glob acts when pasted); the here-document's
 * delimiter is quoted (`<<'…'`: its body is never expanded) and chosen so no line of the code
 * equals it. Free of `vscode`, so unit tests import it; bundled lazily (rerunModule.ts).
 */
import * as l10n from '@vscode/l10n';
import { quote } from 'shell-quote';
import type { DockerOptions, Profile } from '../core';
import { usesPathVariables } from '../core/profiles/pathVariables';

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
  /**
   * The run's workspace folder (absolute path), passed as `--workspace` so a `workspace: "ro"`
   * profile or a `${workspaceFolder}` mount source means that folder, not the one the line is pasted in.
   */
  readonly workspace?: string;
  /** The engine: `--docker-path`, `--context`, and `DOCKER_HOST=` before the command for a host. */
  readonly docker?: DockerOptions;
}

/** The here-document delimiter's stem; a suffix is added while a line of the code equals it. */
export const HEREDOC_STEM = 'SANDBOX_RUN_EOF';

/**
 * A here-document delimiter no line of `code` equals (bash and zsh end the body at the first line
 * exactly equal to the delimiter; `<<`, not `<<-`, so leading tabs count). Lines end at LF, CR and
 * CRLF: a terminal paste turns each into one line end (xterm.js sends `\r?\n` as CR; readline and
 * zle read a pasted CR as LF), so a CRLF document's `SANDBOX_RUN_EOF\r` line would end the body.
 */
export function heredocDelimiter(code: string): string {
  const lines = new Set(code.split(/\r\n|\r|\n/));
  let delimiter = HEREDOC_STEM;
  for (let n = 1; lines.has(delimiter); n++) delimiter = `${HEREDOC_STEM}_${n}`;
  return delimiter;
}

/**
 * The command line for `spec`, ending with a newline (after the here-document's delimiter line
 * when the code travels on stdin).
 * @throws Error when `spec` has neither `file` nor `code`; when its words or code hold a control
 *   character other than tab, LF and CR (C0, DEL, C1): pasted, a terminal acts on it whatever the
 *   quoting; when the profile mounts the workspace folder and `spec.workspace` is not given. The
 *   message completes "Not copied: the run …" (rerunCommands.ts shows it)
 */
export function cliCommandLine(spec: CliRunSpec): string {
  const words: string[] = [];
  const env = spec.docker?.host ? `DOCKER_HOST=${quote([spec.docker.host])} ` : '';
  words.push(...spec.cli);
  if (spec.workspace !== undefined) {
    words.push('--workspace', spec.workspace);
  } else if (spec.profile.workspace === 'ro' || usesPathVariables(spec.profile)) {
    // The CLI's --workspace defaults to ".": pasted elsewhere, the line would mount that folder.
    throw new Error(l10n.t('its profile mounts the workspace folder, and the run has no workspace folder to name'));
  }
  if (spec.docker?.dockerPath) words.push('--docker-path', spec.docker.dockerPath);
  if (spec.docker?.context) words.push('--context', spec.docker.context);
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
  const control = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/.exec(line + (spec.code ?? ''));
  if (control) {
    // A pasted control character acts in the terminal (ESC [201~ ends a bracketed paste, Ctrl-C drops the here-document, …), whatever the quoting.
    throw new Error(l10n.t('its code, file name, arguments or profile hold control character U+{0}, which a terminal would act on when the line is pasted', control[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()));
  }
  if (spec.file !== undefined) return line + '\n';
  const code = spec.code!;
  const delimiter = heredocDelimiter(code);
  return `${line} <<'${delimiter}'\n${code}${code.endsWith('\n') || code === '' ? '' : '\n'}${delimiter}\n`;
}
