/**
 * zod mini (./zod.ts), evaluated on first use. zod's module code (its schema classes) runs when
 * its bundle section is evaluated; behind this `require` esbuild defers that until the first
 * validation, so loading the extension's activation bundle does not pay for it (issue 12's
 * activation budget). Modules that build schemas call {@link zod} inside their builders and
 * import `./zod` for types only.
 */
import type * as Zod from './zod';

/** The zod mini functions of ./zod.ts (loaded and cached by the module system on the first call). */
export function zod(): typeof Zod {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./zod') as typeof Zod;
}
