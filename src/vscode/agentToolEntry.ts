/**
 * Activation-time wiring of the agent surfaces (issue 14), kept small: the language model tools
 * `sandboxRunner_run` and `sandboxRunner_closeSession` (issue 24) are registered with forwarders
 * whose implementations (agentTool.ts, agentSessionTool.ts) load with the agent bundle (dist/agent.js) on the first call, and VS Code's MCP server list gets this extension's
 * `sandbox-run --mcp` (`node <extension>/dist/cli.js --mcp --workspace <first folder>`) through
 * `vscode.lm.registerMcpServerDefinitionProvider` where the running VS Code has it (1.101+,
 * checked at run time). The MCP server is offered only in a trusted workspace and while
 * `sandboxRunner.agentTool.enabled` is on; it gets the engine from the user's engine settings.
 */
import * as vscode from 'vscode';
import type { AgentTool } from './agentTool';
import type { RunControllerDeps } from './runController';
import { agent, once } from './lazy';
import { engineSettings, SECTION } from './settings';

/** package.json `contributes.languageModelTools[0].name`. */
const TOOL_NAME = 'sandboxRunner_run';
/** package.json `contributes.languageModelTools[1].name` (agentSessionTool.ts `CLOSE_TOOL_NAME`). */
const CLOSE_TOOL_NAME = 'sandboxRunner_closeSession';
/** package.json `contributes.mcpServerDefinitionProviders[0].id`. */
const MCP_PROVIDER_ID = 'sandboxRunner.mcpServers';

/** The argv of this extension's MCP server after `node` (core agentRun.ts `mcpServerArgs`, kept out of this bundle). */
function serverArgs(extensionPath: string, workspace: string | undefined): string[] {
  const { choice } = engineSettings();
  return [
    vscode.Uri.joinPath(vscode.Uri.file(extensionPath), 'dist', 'cli.js').fsPath, '--mcp',
    ...(workspace ? ['--workspace', workspace] : []),
    ...(choice.dockerPath ? ['--docker-path', choice.dockerPath] : []),
    ...(choice.context ? ['--context', choice.context] : []),
  ];
}

/**
 * Registers the tool and the MCP server definition provider; every disposable goes into
 * `context.subscriptions`.
 * @returns the tool as registered (the exported API hands it to the host tests)
 */
export function registerAgentSurfaces(context: vscode.ExtensionContext, deps: RunControllerDeps): vscode.LanguageModelTool<unknown> {
  const tool = once((): AgentTool => new (agent().AgentTool)(deps));
  const forward = (get: () => vscode.LanguageModelTool<unknown>): vscode.LanguageModelTool<unknown> => ({
    prepareInvocation: (options, token) => get().prepareInvocation!(options, token),
    invoke: (options, token) => get().invoke(options, token),
  });
  const forwarder = forward(tool);
  const lm = vscode.lm as Partial<typeof vscode.lm> | undefined;
  // Issue 24: the second tool closes a session of the first (agentSessionTool.ts).
  if (typeof lm?.registerTool === 'function') context.subscriptions.push(lm.registerTool(TOOL_NAME, forwarder), lm.registerTool(CLOSE_TOOL_NAME, forward(() => tool().closer)));

  if (typeof lm?.registerMcpServerDefinitionProvider === 'function') {
    const changed = new vscode.EventEmitter<void>();
    context.subscriptions.push(
      changed,
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(SECTION) && changed.fire()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
      lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
        onDidChangeMcpServerDefinitions: changed.event,
        provideMcpServerDefinitions: () => {
          const enabled = vscode.workspace.getConfiguration(SECTION).inspect<boolean>('agentTool.enabled')?.globalValue !== false;
          if (!enabled || !vscode.workspace.isTrusted) return [];
          const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
          const host = engineSettings().choice.host;
          const env: Record<string, string> = host ? { DOCKER_HOST: host } : {};
          const version = (context.extension.packageJSON as { version?: string }).version;
          return [new vscode.McpStdioServerDefinition('Sandbox Runner', 'node', serverArgs(context.extensionPath, folder?.scheme === 'file' ? folder.fsPath : undefined), env, version)];
        },
      }),
    );
  }
  return forwarder;
}
