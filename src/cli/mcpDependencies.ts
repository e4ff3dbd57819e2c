/**
 * Dependencies of an MCP `run_in_sandbox` call (issue 22): the agent's `dependencies` input, a
 * PEP 723 block in its code and the profile's `dependencies` are installed only when the user
 * started the server with `--allow-dependencies` (the server's command line is the user's, not the
 * workspace's); otherwise the call is refused with a sentence the model can act on. The install
 * settings are the CLI's (`--install-network`, `--install-timeout`, `--max-set-mib`) and the
 * registry variables of the server's environment; the installer's output goes to the server's log.
 */
import type { DockerOptions, Profile, RunRequest } from '../core';
import { declaredDependencies, installDeclared, installEnvironment, shownSpecs, type DeclaredDependencies } from '../core/deps/declared';
import { isSandboxError } from '../core/errors';
import type { DependencySettings } from '../core/profiles/dependencySettings';
import { TerminalTextFilter } from '../core/output/terminalText';

/**
 * What a call declares, or why it is refused (plain text for the model).
 * @param allowed the install settings when the server was started with `--allow-dependencies`
 */
export function mcpDeclared(
  profileName: string, profile: Profile, code: string, agentSpecs: readonly string[] | undefined, allowed: DependencySettings | undefined,
): { declared?: DeclaredDependencies } | { refusal: string } {
  let declared;
  try {
    declared = declaredDependencies(profileName, profile, code, agentSpecs);
  } catch (e) {
    return { refusal: `Not run: ${isSandboxError(e) ? `${e.message} ${e.fix}` : String(e)}` };
  }
  if (!declared) return {};
  if (!allowed) {
    return {
      refusal:
        `Not run: this call declares dependencies (${shownSpecs(declared.specs)}), and this MCP server installs packages only when the user starts it with --allow-dependencies. ` +
        'Rewrite the code to use only the standard library and what the image already has (no "dependencies" input, no "# /// script" block), or ask the user to add --allow-dependencies to the server\'s command.',
    };
  }
  return { declared };
}

/**
 * Installs (or finds cached) the set of `declared` and returns what the run mounts.
 * @param log one of the server's own log lines (stderr)
 * @throws SandboxError the errors of `ensureDependencySet` (nothing is published)
 */
export async function mcpInstall(
  declared: DeclaredDependencies, engine: DockerOptions, profileName: string, profile: Profile, settings: DependencySettings, signal: AbortSignal, log: (line: string) => void,
): Promise<NonNullable<RunRequest['dependencySet']>> {
  const filter = new TerminalTextFilter();
  let rest = '';
  const { set, mount } = await installDeclared(declared, {
    docker: engine, profileName, profile, settings, installEnv: installEnvironment(settings, process.env), signal,
    onOutput: (t) => {
      const lines = (rest + filter.push(t)).split('\n');
      rest = lines.pop()!;
      for (const l of lines) if (l.trim()) log(`install: ${l}`);
    },
  });
  log(`dependencies ${set.installed ? `installed on network ${settings.network}` : 'from the cache'}: ${shownSpecs(declared.specs)}`);
  return mount;
}
