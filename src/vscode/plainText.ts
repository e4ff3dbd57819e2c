/**
 * Untrusted names (file and folder names, profile names, setting values) made inert for the few
 * VS Code surfaces that must show them and that parse markup in plain strings. Free of `vscode`,
 * so unit tests import it.
 *
 * What the surfaces parse (VS Code 1.90–1.139, checked in the browser by test/host/ui/uiCheck.ts):
 * - notification messages and `withProgress` notification titles: `[label](target)` links whose
 *   target starts with `command:`, `http(s)://` or `file:` (`src/vs/base/common/linkedText.ts`);
 *   there is no escape syntax, so the `](` joint is broken;
 * - quick pick labels, descriptions and details, status bar text: `$(name)` codicons
 *   (`src/vs/base/common/iconLabels.ts`), whose escape is a backslash: `\$(name)` shows `$(name)`.
 * Tree item labels and string tooltips, and modal dialog text, are not parsed; notification and
 * progress wording is fixed text of our own (see ./failureText.ts), so this is only for names.
 */

/** Longest name shown, in characters (UTF-16 code units); longer names are cut with "…". */
export const MAX_NAME_CHARS = 200;

/** C0/C1 controls, and the Unicode bidi controls that can reorder what a name appears to say. */
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/**
 * `text` with no markdown link a notification would render, one line, at most `maxChars`:
 * control and bidi characters become a space, every `](` becomes `] (` (the link syntax needs
 * the two adjacent), and with `codicons` every `$(` becomes `\$(` (shown as the literal text).
 * Never throws.
 * @param text untrusted text, e.g. a file name or a profile name
 * @param opts.codicons escape `$(…)` too, for quick pick items and the status bar
 * @param opts.maxChars cut to this many characters (default {@link MAX_NAME_CHARS})
 */
export function plainText(text: string, opts: { codicons?: boolean; maxChars?: number } = {}): string {
  const max = opts.maxChars ?? MAX_NAME_CHARS;
  let out = text.replace(CONTROLS, ' ');
  if (out.length > max) out = out.slice(0, Math.max(0, max - 1)) + '…';
  out = out.replace(/\]\(/g, '] (');
  if (opts.codicons) out = out.replace(/\$\(/g, '\\$(');
  return out;
}
