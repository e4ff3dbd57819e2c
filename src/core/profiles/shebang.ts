/**
 * Shebang routing (issue 23): the interpreter a script's first line names (`#!/usr/bin/env bash`,
 * `#!/bin/bash -e`), which picks the profile before the language id does, as Code Runner's
 * `respectShebang` does (profileResolution.ts `pickProfile`, a profile's `shebangs`). Pure; no
 * `vscode` import. The code is untrusted: the name only selects among the profiles the user
 * already has (a workspace profile's `shebangs` goes through routing consent, loosening.ts).
 */

/** The longest first line looked at, in characters; a longer shebang names nothing. */
const MAX_SHEBANG_CHARS = 256;

/** An interpreter name as a profile's `shebangs` may list it (profileSchema.ts). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

/**
 * The interpreter named by the first line of `code`: the last path segment of the program after
 * `#!`, or, for `env` (with or without `-S` and `NAME=value` assignments), of the first word that
 * is neither an option nor an assignment. A UTF-8 byte order mark before `#!` is skipped.
 * @returns e.g. `bash` for `#!/usr/bin/env bash`, `python3` for `#!/usr/bin/python3 -u`;
 *   undefined when the first line is no shebang or names nothing usable
 */
export function shebangInterpreter(code: string | Uint8Array): string | undefined {
  const head = typeof code === 'string' ? code.slice(0, MAX_SHEBANG_CHARS + 3) : Buffer.from(code.buffer, code.byteOffset, Math.min(code.byteLength, MAX_SHEBANG_CHARS + 3)).toString('utf8');
  const text = head.startsWith('\uFEFF') ? head.slice(1) : head;
  if (!text.startsWith('#!')) return undefined;
  const end = text.search(/\r?\n/);
  if (end < 0 && text.length > MAX_SHEBANG_CHARS) return undefined;
  const words = (end < 0 ? text : text.slice(0, end)).slice(2).trim().split(/[ \t]+/).filter((w) => w !== '');
  let program = words[0] ? basename(words[0]) : undefined;
  if (program === 'env') program = words.slice(1).map(basename).find((w) => !w.startsWith('-') && !w.includes('='));
  return program !== undefined && NAME.test(program) ? program : undefined;
}

/**
 * The names a profile's `shebangs` is matched against for `interpreter`, most exact first: the
 * name, then the name without a trailing version (`python3.12` → `python3`, `python`).
 */
export function shebangCandidates(interpreter: string): string[] {
  const out = [interpreter];
  for (let n = interpreter; /[0-9.]$/.test(n); ) {
    n = n.replace(/(?:\.[0-9]+|[0-9]+)$/, '');
    if (n === '' || out.includes(n)) break;
    out.push(n);
  }
  return out;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
