/**
 * `sandbox-run`: runs a file (or stdin) in the sandbox from a terminal, with the same core and
 * profiles as the extension. See usage.ts for flags and exit codes. Each step has its file:
 * options.ts parses the command line, profileSource.ts reads the profiles, runTarget.ts names
 * FILE and reads the code, runStart.ts decides whether the run may start (core runStart.ts),
 * runFile.ts runs it; reap.ts and mcp.ts are the other modes.
 */
import { EXIT } from './exitCodes';
import { engineFromFlags } from './engineArgs';
import type * as Mcp from './mcp';
import { fail } from './messages';
import { parseCommandLine } from './options';
import { listProfiles, readProfileSource } from './profileSource';
import { pruneDeps, reap } from './reap';
import { runFile } from './runFile';
import { chooseCliProfile } from './runStart';
import { readCode, runTarget, withTimeout } from './runTarget';
import { usage } from './usage';
import { shebangInterpreter } from '../core/profiles/shebang';

/**
 * The MCP server (src/cli/mcp.ts and the MCP SDK, most of the CLI's code) is its own bundle,
 * dist/cli-mcp.js beside dist/cli.js and dist/cli-main.js (esbuild.config.mjs), loaded only for `--mcp`: a plain run
 * does not parse it (issue 26: `sandbox-run FILE` as fast as `docker run`). The path is literal and
 * external to the cli.js build.
 * @throws Error (MODULE_NOT_FOUND) when dist/cli-mcp.js is missing, i.e. a broken install or build
 */
function mcp(): typeof Mcp {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./cli-mcp.js') as typeof Mcp;
}

async function main(): Promise<number> {
  const cli = parseCommandLine(process.argv.slice(2));
  const { values, positionals, args } = cli;
  if (values.help) {
    process.stdout.write(usage() + '\n');
    return 0;
  }
  // Issue 14: the MCP server (src/cli/mcp.ts); its stdout is the protocol's.
  if (values.mcp) return mcp().mcpCommand(values, positionals, args);
  if (values['max-runs'] !== undefined || values['max-timeout'] !== undefined || values['max-sessions'] !== undefined || values['session-idle'] !== undefined) {
    fail('--max-runs, --max-timeout, --max-sessions and --session-idle go with --mcp. Run "sandbox-run --help" for usage.');
  }

  if ((values.reap || values['list-profiles']) && (positionals.length > 0 || cli.terminated || values['profile-json'] !== undefined)) {
    fail(`--${values.reap ? 'reap' : 'list-profiles'} takes no FILE, program arguments or --profile-json. Run "sandbox-run --help" for usage.`);
  }
  const engine = engineFromFlags(values);
  if ('error' in engine) fail(`${engine.error} Run "sandbox-run --help" for usage.`);
  if (values.reap) return reap(engine);
  if (values['prune-deps']) return pruneDeps(engine);

  const source = await readProfileSource(values);
  if (values['list-profiles']) return listProfiles(source.set);
  const read = runTarget(cli, source.workspace, source.inline !== undefined);
  const code = await readCode(read);
  // Issue 23: a shebang picks the profile before the file's extension.
  const target = { ...read, query: { ...read.query, shebang: shebangInterpreter(code) } };
  const chosen = chooseCliProfile(values, source, target);
  const profile = withTimeout(chosen.profile, values.timeout);
  return runFile({ values, engine, profileName: chosen.name, profile, target, code, args });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => fail(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, EXIT.failedToStart),
);
