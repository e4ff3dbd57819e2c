/**
 * The JSON schemas of the agent tools' inputs (core agentSession.ts), for package.json's
 * `languageModelTools` entries (`npm run gen:schema` writes it; a unit test checks it). A file of
 * its own: `z.toJSONSchema` is not needed at run time (the MCP SDK converts the schema itself),
 * so the extension's engine bundle does not carry it.
 */
import * as z from 'zod/mini';
import { AgentCloseInputSchema, AgentSessionInputSchema } from './agentSession';

/** The JSON schema of `sandboxRunner_run`'s input, {@link AgentSessionInputSchema} (draft 2020-12, as `z.toJSONSchema` writes it), without `$schema`. */
export function agentInputJsonSchema(): Record<string, unknown> {
  return jsonSchema(AgentSessionInputSchema);
}

/** The JSON schema of `sandboxRunner_closeSession`'s input, {@link AgentCloseInputSchema}, without `$schema`. */
export function agentCloseJsonSchema(): Record<string, unknown> {
  return jsonSchema(AgentCloseInputSchema);
}

function jsonSchema(s: z.ZodMiniType): Record<string, unknown> {
  const schema = z.toJSONSchema(s) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
