/**
 * What a session's `files` may carry and how a confirmation shows them (issue 34): a file an
 * interpreter may import or execute is source, and a person must see it as it runs. Three kinds,
 * by the file name's last extension, case-insensitively (errs towards showing):
 * - binary code (`.pyc`, `.pyo`, `.so`, `.pyd`, `.dll`, `.dylib`, `.node`): Python imports the
 *   first four from the working directory as modules (a `csv.cpython-311-x86_64-linux-gnu.so`
 *   shadows the standard `csv`), Node loads `.node`; nobody can read them, so they are refused;
 * - source (`.py`, `.pyw`, `.pth`, JavaScript and TypeScript, shell and other scripts): shown whole
 *   through visibleText.ts; a Python source whose coding cookie names an encoding other than UTF-8
 *   is refused (`# coding: utf-7` makes `+AAo-` a line break Python executes after), and so is a
 *   source that is not UTF-8 (what is shown must be what the interpreter decodes);
 * - data (everything else, `.json` included: `require` parses it, never runs it): name and size.
 * Directories with `__init__.py` and `sitecustomize.py`/`usercustomize.py` are `.py` files, so shown.
 * No `vscode` import here; shared by the VS Code tool and the MCP server.
 */

import { shownCode } from './visibleText';

/** Extensions of code no person can read that an interpreter loads (Python from the working directory, Node's addons). */
const BINARY_CODE = new Set(['pyc', 'pyo', 'so', 'pyd', 'dll', 'dylib', 'node']);

/** Extensions of source an interpreter imports or a program may execute. */
const SOURCE = new Set([
  'py', 'pyw', 'pyi', 'pth', 'js', 'mjs', 'cjs', 'jsx', 'ts', 'mts', 'cts', 'tsx', 'sh', 'bash', 'zsh', 'ksh', 'fish',
  'pl', 'pm', 'rb', 'php', 'lua', 'r', 'tcl', 'awk', 'sed', 'ipynb',
]);

/** The most characters a confirmation shows of code and source files together (VS Code cuts modal markdown at 100,000). */
export const CONFIRM_SHOWN_CHARS = 60_000;

/** A file's kind (file header) from its name's last extension, e.g. "lib/csv.PY" → "source". */
export function sessionFileKind(name: string): 'binary-code' | 'source' | 'data' {
  const base = name.split('/').at(-1) ?? name;
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  if (BINARY_CODE.has(ext)) return 'binary-code';
  return SOURCE.has(ext) ? 'source' : 'data';
}

/** True when a PEP 263 coding cookie in the first two lines names an encoding other than UTF-8. */
function foreignCookie(text: string): string | undefined {
  for (const line of text.split(/\r\n|\r|\n/).slice(0, 2)) {
    const m = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/.exec(line);
    if (m) {
      const enc = m[1]!.toLowerCase().replace(/_/g, '-');
      return enc === 'utf-8' || enc === 'utf8' || enc.startsWith('utf-8-') ? undefined : m[1];
    }
  }
  return undefined;
}

/**
 * Why `files` is refused, or undefined: a binary-code file, a source file that is not UTF-8, or a
 * Python source with a non-UTF-8 coding cookie (file header). One sentence naming the file.
 * @param files the `files` input as bytes (agentSession.ts `agentFiles`)
 */
export function sessionFilesRefusal(files: Readonly<Record<string, Uint8Array>>): string | undefined {
  for (const [name, bytes] of Object.entries(files)) {
    const kind = sessionFileKind(name);
    const quoted = JSON.stringify(name);
    if (kind === 'binary-code') return `files: ${quoted} is compiled code that Python or Node would load and no one can review; pass the source instead, or write it from the code.`;
    if (kind !== 'source') continue;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return `files: ${quoted} is source code that is not UTF-8 text, so it cannot be shown as it runs; pass it as UTF-8 text.`;
    }
    const cookie = foreignCookie(text);
    if (cookie !== undefined) return `files: ${quoted} declares the source encoding ${JSON.stringify(cookie)}, so Python would not run what is shown; remove the coding line or declare utf-8.`;
  }
  return undefined;
}

/** One source file as a confirmation shows it: its name and its text as rows (visibleText.ts `visibleRows`). */
export interface ShownSource {
  readonly name: string;
  readonly text: string;
}

/**
 * The source files of `files` (file header) as shown, in input order; data files are not in it.
 * Call after {@link sessionFilesRefusal} passed (sources are UTF-8).
 */
export function shownSources(files: Readonly<Record<string, Uint8Array>>): ShownSource[] {
  return Object.entries(files)
    .filter(([name]) => sessionFileKind(name) === 'source')
    .map(([name, bytes]) => ({ name, text: shownCode(Buffer.from(bytes).toString('utf8')) }));
}

/**
 * Why a confirmation cannot show the code and its source files whole, or undefined: their shown
 * text is over {@link CONFIRM_SHOWN_CHARS} characters in all.
 * @param code the code as the agent passed it
 * @param sources the source files as shown ({@link shownSources})
 * @returns a refusal sentence (without "Not run: "), or undefined
 */
export function confirmTooLong(code: string, sources: readonly ShownSource[]): string | undefined {
  const total = shownCode(code).length + sources.reduce((n, s) => n + s.name.length + s.text.length, 0);
  return total > CONFIRM_SHOWN_CHARS
    ? `the code${sources.length > 0 ? ' and its source files' : ''} would be ${total} characters in the confirmation, more than the ${CONFIRM_SHOWN_CHARS} it shows whole; split the work into smaller calls.`
    : undefined;
}
