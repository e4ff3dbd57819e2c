/**
 * Writes docs/settings.md and docs/commands.md from package.json and package.nls.json
 * (scripts/reference.ts). Run with `npm run gen:reference` after changing a setting, a command,
 * a keybinding or the agent tool's input; test/unit/reference.test.ts fails while they are stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { referencePages } from './reference';

const root = process.cwd();
const read = (f: string) => JSON.parse(readFileSync(join(root, f), 'utf8'));
for (const [path, text] of Object.entries(referencePages(read('package.json'), read('package.nls.json')))) {
  writeFileSync(join(root, path), text);
  process.stdout.write(`gen-reference: ${path} written\n`);
}
