/**
 * The JSON schema of the agent tools' input (core agentRun.ts), for package.json's
 * `languageModelTools` entry (`npm run gen:schema` writes it; a unit test checks it). A file of
 * its own: `z.toJSONSchema` is not needed at run time (the MCP SDK converts the schema itself),
 * so the extension's engine bundle does not carry it.
 */
import * as z from 'zod/mini';
import { AgentRunInputSchema } from './agentRun';

/** The JSON schema of {@link AgentRunInputSchema} (draft 2020-12, as `z.toJSONSchema` writes it), without `$schema`. */
export function agentInputJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(AgentRunInputSchema) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
