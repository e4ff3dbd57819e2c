/**
 * "Run with Arguments…" (issue 12): the text typed into the input box split into program
 * arguments the way a POSIX shell splits words (quotes, backslashes), by the `shell-quote`
 * library, and nothing more: no shell ever runs, nothing is expanded. What a shell would act on
 * instead of passing on (operators such as `|` `>` `;` `&&`, `$` and backtick substitutions, an
 * unquoted `#` comment, an unterminated quote) is refused with a message saying how to quote it.
 * Free of `vscode`, so unit tests import it; bundled lazily (rerunModule.ts).
 */
import * as l10n from '@vscode/l10n';
import { parse } from 'shell-quote';
import { checkProgramArgs } from '../core/admission/programArgs';
import { isSandboxError } from '../core/errors';

/** The arguments, or why the text was refused (one sentence, fixed wording plus the offending operator). */
export type SplitArgs = { readonly args: string[] } | { readonly error: string };

/**
 * Splits `text` into program arguments: whitespace separates words; `'…'` keeps everything as
 * written; `"…"` keeps everything but `\"` and `\\`; a backslash outside quotes keeps the next
 * character. Globs (`*`) and `~` are passed as written (no file of this machine is looked up).
 * @returns `{ args }`, or `{ error }` for text a shell would act on (see the module comment) and
 *   for arguments past the run's bounds (core programArgs.ts)
 */
export function splitArgs(text: string): SplitArgs {
  const unsafe = shellOnly(text);
  if (unsafe) return { error: unsafe };
  // The env function is never reached ($ was refused above); it keeps a $ literal regardless.
  const tokens = parse(text, (key) => `$${key}`);
  const args: string[] = [];
  for (const t of tokens) {
    if (typeof t === 'string') args.push(t);
    else if ('op' in t && t.op === 'glob') args.push(t.pattern);
    else if ('op' in t) return { error: l10n.t('"{0}" is a shell operator, and no shell runs here: quote it (\'{0}\') to pass it to the program as an argument.', t.op) };
    else return { error: l10n.t('An unquoted # starts a shell comment, and no shell runs here: quote it (\'#\') to pass it to the program.') };
  }
  try {
    return { args: checkProgramArgs(args) };
  } catch (e) {
    return { error: isSandboxError(e) ? e.message : String(e) };
  }
}

/** Why `text` needs a shell (an expansion or an unterminated quote), or undefined. */
function shellOnly(text: string): string | undefined {
  let quote: '' | "'" | '"' = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = '';
      continue;
    }
    if (c === '\\') {
      if (i === text.length - 1) return l10n.t('The text ends with a backslash that escapes nothing: remove it or quote it (\'\\\').');
      i++;
      continue;
    }
    if (c === '$' || c === '`') {
      return l10n.t('"{0}" would start a shell expansion, and no shell runs here: put the argument in single quotes (\'{0}…\') to pass it as written.', c);
    }
    if (quote === '"') {
      if (c === '"') quote = '';
    } else if (c === "'" || c === '"') {
      quote = c;
    }
  }
  if (!quote) return undefined;
  return quote === "'" ? l10n.t('A single quote is not closed: close it, or escape it with a backslash.') : l10n.t('A double quote is not closed: close it, or escape it with a backslash.');
}
