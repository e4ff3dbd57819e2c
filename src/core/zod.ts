/**
 * The zod mini API this project uses, re-exported by name (`import * as z from './zod'`), so the
 * lazy bundles can take the activation bundle's copy of zod (src/vscode/sharedModules.ts) rather
 * than a second one: zod mini's namespace as a whole would carry every locale and check.
 * Add a name here when a module needs another zod function (the schema generators, which no
 * bundle of the extension loads, use zod mini directly for `toJSONSchema`).
 */
export {
  _default, array, describe, enum, globalRegistry, gte, int, lte, maxLength, minLength, number, optional, partial, positive, prefault,
  record, refine, regex, strictObject, string, lazy, union,
} from 'zod/mini';
export type { core, infer, input, output, ZodMiniType } from 'zod/mini';
