/**
 * The "agent" bundle (dist/agent.js, issue 14 and 24): the language model tools
 * `sandboxRunner_run` and `sandboxRunner_closeSession` (agentTool.ts, agentSessionTool.ts) and the
 * agent core they share with `sandbox-run --mcp` (src/core/agent). Activation does not load it:
 * agentToolEntry.ts requires it through lazy.ts `agent()` on the tools' first call. Runs, sessions
 * and installs come from the engine and dependencies bundles (esbuild.config.mjs, LAZY_BUNDLES).
 */
export { AgentTool } from './agentTool';
