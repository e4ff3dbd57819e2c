/**
 * Writes the generated settings schema into package.json (`contributes.configuration`).
 * Run with `npm run gen:schema`; CI checks the result is committed (a unit test compares them).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentCloseJsonSchema, agentInputJsonSchema } from '../src/core/agent/agentInputJson';
import { settingsContribution } from '../src/core/profiles/settingsSchema';

const path = join(process.cwd(), 'package.json');
const pkg = JSON.parse(readFileSync(path, 'utf8')) as { contributes: Record<string, unknown> };
pkg.contributes.configuration = settingsContribution();
// Issue 14: the language model tool's input schema is the agent tools' zod schema.
for (const tool of (pkg.contributes.languageModelTools ?? []) as { name: string; inputSchema?: unknown }[]) {
  if (tool.name === 'sandboxRunner_run') tool.inputSchema = agentInputJsonSchema();
  if (tool.name === 'sandboxRunner_closeSession') tool.inputSchema = agentCloseJsonSchema();
}
writeFileSync(path, JSON.stringify(pkg, null, 2) + '\n');
process.stdout.write('gen-settings-schema: package.json contributes.configuration updated\n');
