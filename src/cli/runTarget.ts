/**
 * What a CLI run runs: FILE (or `-`, the code from standard input), the run's paths and profile
 * query, the code itself, and `--timeout` applied to the chosen profile.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { quote } from 'shell-quote';
import { LIMIT_RANGES, ProfileSchema, rangeMessage, type Profile, type ProfileQuery, type RunPaths } from '../core';
import { fail } from './messages';
import type { CommandLine } from './options';

/** FILE and what follows from it. */
export interface RunTarget {
  /** FILE as given (`-`: standard input). */
  readonly file: string;
  readonly fromStdin: boolean;
  /** `${workspaceFolder}` is `--workspace`, `${fileDirname}` and `${file}` FILE's (issue 12). */
  readonly paths: RunPaths;
  /** `--profile`, else FILE's extension chooses the profile. */
  readonly query: ProfileQuery;
}

/**
 * Checks the command line of a run and names its FILE. Exits with a usage error for a `--timeout`
 * that is not a number, no or several FILEs, `-` with `-i`, and `-` without a profile.
 * @param workspace the absolute `--workspace` folder
 * @param inline whether `--profile-json` gave the profile
 */
export function runTarget(cli: CommandLine, workspace: string, inline: boolean): RunTarget {
  const { values, positionals } = cli;
  // `-it` (docker's habit) reads as -i plus -t (--timeout) taking the next word: say so first.
  if (values.timeout !== undefined && !/^\s*\d+(\.\d+)?\s*$/.test(values.timeout)) {
    fail(`-t (--timeout) takes a number of seconds, not ${JSON.stringify(values.timeout)}; for input, -i alone passes yours to the program (there is no -t for a terminal).`);
  }
  // `sandbox-run main.py a b` (the `python main.py a b` habit): say where the program's words go.
  if (positionals.length > 1 && !cli.terminated) {
    fail(`give exactly one FILE; program arguments go after --: sandbox-run [options] FILE -- ${quote(positionals.slice(1))}`);
  }
  if (positionals.length !== 1) fail(`give exactly one FILE (or - for standard input)${cli.terminated ? ' before --' : ''}. Run "sandbox-run --help" for usage.`);
  const file = positionals[0]!;
  const fromStdin = file === '-';
  if (fromStdin && values.interactive) fail('-i passes standard input to the program, so the code cannot come from standard input too; give a FILE.');
  if (fromStdin && !values.profile && !inline) fail('reading code from standard input needs --profile NAME (or --profile-json JSON).');

  // The run's paths (issue 12): ${workspaceFolder} is --workspace, ${fileDirname} FILE's folder; a
  // `workspace: "ro"` profile runs FILE from the mount when it is inside the workspace.
  const paths = fromStdin ? { workspaceFolder: workspace } : { workspaceFolder: workspace, fileDirname: dirname(resolve(file)), file: resolve(file) };
  return { file, fromStdin, paths, query: { name: values.profile, fileName: fromStdin ? undefined : file, paths } };
}

/**
 * `profile` with `--timeout SECONDS` as its `limits.timeoutSeconds` (validated again), or as it is
 * without the option. Exits with a usage error when the value is out of range.
 */
export function withTimeout(profile: Profile, timeout: string | undefined): Profile {
  if (timeout === undefined) return profile;
  const parsed = ProfileSchema.safeParse({ ...profile, limits: { ...profile.limits, timeoutSeconds: Number(timeout) } });
  if (!parsed.success) fail(`--timeout ${rangeMessage(LIMIT_RANGES.timeoutSeconds)}.`);
  return parsed.data;
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The code to run: FILE's bytes, or all of standard input for `-`. Exits with a usage error when FILE cannot be read. */
export async function readCode(target: RunTarget): Promise<Buffer> {
  try {
    return target.fromStdin ? await readStdin() : await readFile(target.file);
  } catch (e) {
    fail(`cannot read ${target.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
  }
}
