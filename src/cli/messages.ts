/**
 * The CLI's own lines: messages on stderr, data rows on stdout, each filtered for a terminal
 * (terminalOutput.ts: they may quote file names, settings and engine text), and the usage-error exit.
 */
import { EXIT } from './exitCodes';
import { dataRow, ownLine } from './terminalOutput';

/** Writes one of our own lines to stderr (filtered for a terminal: it may quote file names and settings). */
export function say(message: string): void {
  process.stderr.write(ownLine(message, process.stderr));
}

/** Writes a data row to stdout (filtered for a terminal). */
export function row(text: string): void {
  process.stdout.write(dataRow(text, process.stdout));
}

/** Says `message` and exits with `code` (default {@link EXIT.usage}, 2). */
export function fail(message: string, code: number = EXIT.usage): never {
  say(message);
  process.exit(code);
}
