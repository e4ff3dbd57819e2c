/**
 * A suggestion after a Node run that could not load a package (issue 22): Node's
 * `Cannot find module 'x'` (require) or `Cannot find package 'x' imported from …` (ESM import)
 * names a package, which the user may add to the profile's `dependencies`. The name comes from
 * program output, so it is only ever shown as a hint the user may act on: it never installs
 * anything and never changes how a run starts or ends. Pure; no I/O.
 */
import { npmSpecProblem } from '../profiles/dependencySpecs';

/** Most characters of program output kept for the hint (the end of stderr, where the error is). */
export const HINT_TAIL_CHARS = 8192;

/**
 * The npm package a Node error in `text` could not load (the last one named); undefined for a
 * relative or absolute path, a `node:` built-in, or a name npm would not install.
 * @param text the end of the program's stderr, decoded
 * @returns a registry name such as `lodash` or `@scope/pkg` (a deep import `lodash/fp` gives `lodash`)
 */
export function missingNodePackage(text: string): string | undefined {
  const all = [...text.matchAll(/Cannot find (?:module|package) '([^'\n]{1,214})'/g)];
  const spec = all.at(-1)?.[1];
  if (spec === undefined || /^(?:\.|\/|[A-Za-z]:|node:|file:)/.test(spec)) return undefined;
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return npmSpecProblem(name) === undefined && !name.includes('@', 1) ? name : undefined;
}

/**
 * Keeps the last {@link HINT_TAIL_CHARS} characters of a stream's text.
 */
export class OutputTail {
  private text = '';
  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-HINT_TAIL_CHARS);
  }
  toString(): string {
    return this.text;
  }
}
