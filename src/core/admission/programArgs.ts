/**
 * Program arguments (issue 12): words given to the program after the profile's `command` argv
 * (`python3 /sandbox/main.py ARG…`), the way `sys.argv[1:]` or `process.argv.slice(2)` sees them.
 * They never pass through a shell: the launcher reads each one as counted bytes from the code frame
 * (launcher.ts) and appends it to its own argv (`set -- "$@" "$a"`), and the direct path puts them
 * in the `docker create` argv (argv.ts). Bounded here, before anything runs.
 */
import { SandboxError } from '../errors';

/** Most program arguments one run takes (each costs the launcher a `dd` on the warm and cold paths). */
export const MAX_PROGRAM_ARGS = 256;

/** Most bytes (UTF-8, all arguments together) one run takes: 64 KiB, far below the kernel's ARG_MAX. */
export const MAX_PROGRAM_ARGS_BYTES = 64 * 1024;

/** A UTF-16 surrogate without its pair. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Checks program arguments and returns them as a new array.
 * @param args the words, as the program should see them (empty strings, leading `-`, newlines and
 *   shell metacharacters are all passed on unchanged)
 * @returns a copy of `args`
 * @throws SandboxError `invalid-arguments` when there are more than {@link MAX_PROGRAM_ARGS}, their
 *   UTF-8 bytes pass {@link MAX_PROGRAM_ARGS_BYTES}, one is not a string, holds a NUL byte (an exec
 *   argv cannot carry it: C strings end there) or is not well-formed UTF-16 (a lone surrogate,
 *   which has no UTF-8 form)
 */
export function checkProgramArgs(args: readonly unknown[]): string[] {
  if (args.length > MAX_PROGRAM_ARGS) {
    throw invalidArgs(`${args.length} program arguments were given; a run takes at most ${MAX_PROGRAM_ARGS}`);
  }
  let bytes = 0;
  args.forEach((a, i) => {
    if (typeof a !== 'string') throw invalidArgs(`program argument ${i + 1} is not a string`);
    if (a.includes('\0')) throw invalidArgs(`program argument ${i + 1} contains a NUL byte, which a program's argv cannot carry`);
    if (LONE_SURROGATE.test(a)) throw invalidArgs(`program argument ${i + 1} contains a lone UTF-16 surrogate, which has no UTF-8 form`);
    bytes += Buffer.byteLength(a, 'utf8');
  });
  if (bytes > MAX_PROGRAM_ARGS_BYTES) {
    throw invalidArgs(`the program arguments are ${bytes} bytes (UTF-8); a run takes at most ${MAX_PROGRAM_ARGS_BYTES}`);
  }
  return [...(args as readonly string[])];
}

function invalidArgs(what: string): SandboxError {
  return new SandboxError('invalid-arguments', `The run was refused: ${what}, so nothing ran.`, 'Shorten or fix the program arguments and run again.');
}
