/**
 * Untrusted names (file and folder names, profile names, setting values) made inert for the few
 * VS Code surfaces that must show them and that parse markup in plain strings. Free of `vscode`,
 * so unit tests import it.
 *
 * What the surfaces parse (VS Code 1.139's workbench, read in code-server's bundle, and checked in
 * the browser by test/host/ui/uiCheck.ts):
 * - notification messages and `withProgress` notification titles: `[label](target)` links whose
 *   target starts with `command:`, `http(s)://` or `file:` (`src/vs/base/common/linkedText.ts`);
 *   there is no escape syntax, so the `](` joint is broken; and `$(name)` codicons;
 * - quick pick labels, descriptions and details, status bar text: `$(name)` codicons
 *   (`src/vs/base/common/iconLabels.ts`), whose escape is a backslash: `\$(name)` shows `$(name)`.
 * A modal dialog's message and string detail are set as `innerText` (not parsed: the consent
 * modal shows paths exactly); tree item labels and string tooltips are not parsed for links.
 * Notification and progress wording is fixed text of our own (./failureText.ts), so this is only
 * for names that must appear.
 */

/** Longest name shown, in characters (UTF-16 code units); longer names are cut with "…". */
export const MAX_NAME_CHARS = 200;

/** C0/C1 controls, and the Unicode bidi controls that can reorder what a name appears to say. */
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/**
 * `text` with no markdown link or codicon a notification or quick pick would render, on one line,
 * at most `maxChars`: control and bidi characters become a space, every `](` becomes `] (` (the
 * link syntax needs the two adjacent), and every `$(` becomes `\$(` (shown as the literal `$(`).
 * Only for surfaces that parse codicons (a tree label would show the backslash). Never throws.
 * @param text untrusted text, e.g. a file name or a profile name
 * @param maxChars cut to this many characters (default {@link MAX_NAME_CHARS})
 */
export function plainText(text: string, maxChars = MAX_NAME_CHARS): string {
  let out = text.replace(CONTROLS, ' ');
  if (out.length > maxChars) out = out.slice(0, Math.max(0, maxChars - 1)) + '…';
  return out.replace(/\]\(/g, '] (').replace(/\$\(/g, '\\$(');
}
