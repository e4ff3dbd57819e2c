/**
 * Writes the generated settings schema into package.json (`contributes.configuration`).
 * Run with `npm run gen:schema`; CI checks the result is committed (a unit test compares them).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { settingsContribution } from '../src/core/settingsSchema';

const path = join(process.cwd(), 'package.json');
const pkg = JSON.parse(readFileSync(path, 'utf8')) as { contributes: Record<string, unknown> };
pkg.contributes.configuration = settingsContribution();
writeFileSync(path, JSON.stringify(pkg, null, 2) + '\n');
process.stdout.write('gen-settings-schema: package.json contributes.configuration updated\n');
