/**
 * markdown-it's core rule `normalize` (line ends to LF, NUL to U+FFFD), a module the package
 * exports (`markdown-it/lib/*`) that @types/markdown-it does not declare. Used by
 * src/core/source/fences.ts, which runs the block parser alone.
 */
declare module 'markdown-it/lib/rules_core/normalize.mjs' {
  import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
  /** Rewrites `state.src` in place. */
  export default function normalize(state: StateCore): void;
}
