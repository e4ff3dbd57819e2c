/**
 * package.json as VS Code shows it: every "%key%" string replaced by its English text from
 * package.nls.json (the extension host does the same when it reads the manifest).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../../..');

/** package.nls.json: key → English text. */
export function nlsStrings(): Record<string, string> {
  return JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
}

/** package.json with its "%key%" strings resolved (a key without text is left as written). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function localizedPackageJson(): any {
  const nls = nlsStrings();
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'), (_k, v: unknown) => {
    if (typeof v !== 'string') return v;
    const m = /^%([^%]+)%$/.exec(v);
    return m && nls[m[1]!] !== undefined ? nls[m[1]!] : v;
  });
}
