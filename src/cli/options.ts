/**
 * The CLI's command line (node:util `parseArgs`): its options, FILE, and the program's arguments
 * after `--`. A usage error is said on stderr and exits 2 (messages.ts `fail`).
 */
import { parseArgs } from 'node:util';
import { quote } from 'shell-quote';
import { checkProgramArgs, isSandboxError } from '../core';
import { ENGINE_FLAGS } from './engineArgs';
import { fail } from './messages';

/** The options `sandbox-run` takes (see usage.ts). */
const OPTIONS = {
  profile: { type: 'string', short: 'p' },
  'profile-json': { type: 'string' },
  workspace: { type: 'string', short: 'w' },
  timeout: { type: 'string', short: 't' },
  interactive: { type: 'boolean', short: 'i' },
  'list-profiles': { type: 'boolean' },
  reap: { type: 'boolean' },
  'allow-loosening': { type: 'boolean' },
  raw: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
  mcp: { type: 'boolean' },
  'max-runs': { type: 'string' },
  'max-timeout': { type: 'string' },
  'max-sessions': { type: 'string' },
  'session-idle': { type: 'string' },
  dependencies: { type: 'boolean' },
  'install-network': { type: 'string' },
  'install-timeout': { type: 'string' },
  'max-set-mib': { type: 'string' },
  'cache-max-mib': { type: 'string' },
  'allow-dependencies': { type: 'boolean' },
  'prune-deps': { type: 'boolean' },
  ...ENGINE_FLAGS,
} as const;

/** The parsed options' values. */
export type CliValues = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; tokens: true }>>['values'];

/** A parsed command line. */
export interface CommandLine {
  readonly values: CliValues;
  /** Words before `--` that are not options (FILE). */
  readonly positionals: readonly string[];
  /** The program's arguments (after `--`), checked (core `checkProgramArgs`). */
  readonly args: string[];
  /** Whether a `--` was given. */
  readonly terminated: boolean;
}

/**
 * Parses `argv` (the words after `sandbox-run`). Exits with a usage error for an unknown or
 * malformed option (saying where a program's option goes) and for too many or too long program
 * arguments.
 */
export function parseCommandLine(argv: string[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, tokens: true, options: OPTIONS });
  } catch (e) {
    // node:util's text says "positional argument" and leaves a quote open; an unknown option after
    // FILE is most often the program's (`sandbox-run main.py -v`): say where it goes.
    const unknown = (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '(.+?)'\./.exec((e as Error).message)?.[1] : undefined;
    if (unknown !== undefined) {
      const word = argv.find((a) => a === unknown || a.startsWith(`${unknown}=`)) ?? unknown;
      fail(`unknown option ${unknown}; if it is for the program, put it after --: sandbox-run [options] FILE -- ${quote([word])}. Run "sandbox-run --help" for usage.`);
    }
    fail(`${(e as Error).message}. Run "sandbox-run --help" for usage.`);
  }
  // Words after `--` are the program's arguments; FILE comes before it.
  const terminator = parsed.tokens.find((t) => t.kind === 'option-terminator')?.index;
  const positionals = parsed.tokens.flatMap((t) => (t.kind === 'positional' && (terminator === undefined || t.index < terminator) ? [t.value] : []));
  const programArgs = parsed.tokens.flatMap((t) => (t.kind === 'positional' && terminator !== undefined && t.index > terminator ? [t.value] : []));
  let args: string[];
  try {
    args = checkProgramArgs(programArgs);
  } catch (e) {
    fail(isSandboxError(e) ? `${e.message} ${e.fix}` : String(e));
  }
  return { values: parsed.values, positionals, args, terminated: terminator !== undefined };
}
