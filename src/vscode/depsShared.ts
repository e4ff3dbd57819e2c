/**
 * Modules of the dependencies bundle (dist/deps.js) that a later lazy bundle (the agent's,
 * dist/agent.js) uses too: esbuild.config.mjs resolves each path listed here to
 * `require('./deps.js').__shared[path]` there, as sharedModules.ts does for dist/extension.js.
 * Keys are repository paths, read by esbuild.config.mjs; the values are the modules' namespaces.
 */
import * as declared from '../core/deps/declared';
import * as imagePython from '../core/deps/imagePython';

/** Repository path → module namespace (see the file comment). */
export const SHARED: Readonly<Record<string, unknown>> = {
  'src/core/deps/declared.ts': declared,
  'src/core/deps/imagePython.ts': imagePython,
};
