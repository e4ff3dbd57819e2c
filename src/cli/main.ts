/**
 * `sandbox-run`: runs a file (or stdin) in the sandbox from a terminal, with the same core and
 * profiles as the extension. See `usage()` for flags and exit codes.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { quote } from 'shell-quote';
import {
  awaitRemovals, engineIdentity, engineTarget, isSandboxError, LIMIT_RANGES, pickProfile, ProfileSchema, rangeMessage, reapOrphans, resolveProfiles, routeLoosening, runInSandbox,
  blockingIssues, snippetOrigin, targetText, checkProgramArgs, MAX_PROGRAM_ARGS, MAX_PROGRAM_ARGS_BYTES, type DockerOptions, type EngineIdentity, type Profile, type RunResult,
} from '../core';
import { ENGINE_FLAGS, engineFromFlags, engineSummary } from './engineArgs';
import { parseInlineProfile } from './inlineProfile';
import { exitCodeFor, EXIT } from './exitCodes';
import { mcpCommand } from './mcp';
import { interruptSignals } from './signals';
import { dataRow, ownLine, TerminalOutput } from './terminalOutput';
import { readWorkspaceSettings } from './workspaceSettings';

/** Longest the summary waits for the engine's identity after the run ended, ms. */
const IDENTITY_GRACE_MS = 500;

function usage(): string {
  return `Usage: sandbox-run [options] FILE [-- ARGS…]
       sandbox-run --profile NAME [options] - [-- ARGS…]   (code from standard input)
       sandbox-run --reap                          (remove containers left by dead runs)
       sandbox-run --mcp [--workspace DIR]         (an MCP server on stdio for AI agents)

Runs FILE in a fresh, isolated Docker container (no network, read-only root, non-root user,
no capabilities, memory/cpu/pids/output limits) and removes the container afterwards.

Options:
  -p, --profile NAME     profile to use (default: chosen by FILE's extension)
      --profile-json JSON
                         run with this whole profile (a JSON object, as in sandboxRunner.profiles,
                         validated the same way) instead of one from the settings: your command
                         line vouches for it, so no --allow-loosening is needed; --profile then
                         only names it
  -- ARGS…               program arguments, passed to the program after its command (e.g.
                         sys.argv[1:]) as they are, never through a shell (at most ${MAX_PROGRAM_ARGS}
                         words and ${MAX_PROGRAM_ARGS_BYTES} bytes)
  -w, --workspace DIR    workspace whose .vscode/settings.json defines profiles (default: .);
                         also the folder a profile with "workspace": "ro" mounts read-only
                         (FILE inside it then runs from there, beside its siblings) and
                         what \${workspaceFolder} in a mount source stands for
  -t, --timeout SECONDS  wall-clock limit, overriding the profile's limits.timeoutSeconds
  -i, --interactive      pass this command's standard input to the program, after the code, as
                         it arrives (its end is the program's end of input); without it the
                         program's standard input is empty, so a script never waits for input.
                         Always a pipe, also from a terminal (the program sees no terminal);
                         not with - (the code would come from the same standard input)
      --context NAME     run on the engine of this docker context (docker context ls);
                         default: DOCKER_HOST, DOCKER_CONTEXT or the current context, as for docker
      --docker-path PATH the docker CLI to use (default: docker on PATH)
      --allow-loosening  run a workspace profile that loosens the sandbox (network, mounts,
                         larger limits than the built-in profile); without it such a run is
                         refused and the loosened settings and docker arguments are listed
      --list-profiles    list the profiles and their problems, then exit
      --reap             remove sandbox containers whose owning process is provably gone
                         (same host, boot and pid namespace, and that process has exited)
                         from the engine in use (--context chooses it); print what was
                         removed and what was kept, then exit
      --raw              pass the program's output to a terminal unfiltered (by default escape
                         sequences, lone carriage returns and control characters are removed
                         when stdout/stderr is a terminal); sandbox-run's own lines, which may
                         quote the program, file names or settings, are filtered regardless
  -q, --quiet            do not print the summary line on stderr (it names the profile, the
                         image and the engine that ran the code); why a run could not start
                         is still printed
      --mcp              serve the Model Context Protocol on stdin/stdout (tools run_in_sandbox
                         and list_profiles) with the same profiles and refusal rules; a
                         loosening profile is always refused (not with --allow-loosening)
      --max-runs N       with --mcp: runs in progress at once, at most (default 4; more are refused)
      --max-timeout SECONDS
                         with --mcp: cap on an agent run's time limit (default 120)
  -h, --help             show this help

Exit status: the program's own exit status when it ends by itself, else
  ${EXIT.timedOut} timed out, ${EXIT.cancelled} cancelled (Ctrl-C), ${EXIT.outputLimit} output limit exceeded,
  ${EXIT.oomKilled} killed for memory (OOM), ${EXIT.failedToStart} could not start (engine, image or profile problem),
  ${EXIT.engineError} engine failed during the run, ${EXIT.usage} bad command line or invalid profile.`;
}

/** Writes one of our own lines to stderr (filtered for a terminal: it may quote file names and settings). */
function say(message: string): void {
  process.stderr.write(ownLine(message, process.stderr));
}

/** Writes a data row to stdout (filtered for a terminal). */
function row(text: string): void {
  process.stdout.write(dataRow(text, process.stdout));
}

function fail(message: string, code: number = EXIT.usage): never {
  say(message);
  process.exit(code);
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** `--reap`: the orphan sweep on the engine of `opts`, reported one container per line on stdout. */
async function reap(opts: DockerOptions): Promise<number> {
  let report;
  try {
    report = await reapOrphans({ docker: opts });
  } catch (e) {
    if (!isSandboxError(e)) throw e;
    say(`${e.message} ${e.fix}`);
    return EXIT.failedToStart;
  }
  for (const name of report.removed) row(`removed\t${name}`);
  for (const dir of report.removedAnchors ?? []) row(`removed\t${dir}`);
  for (const k of report.kept) row(`kept\t${k.name}\t${k.reason}`);
  const anchors = report.removedAnchors?.length ? ` and ${report.removedAnchors.length} mount anchor folder(s)` : '';
  say(`removed ${report.removed.length} orphaned container(s)${anchors}, kept ${report.kept.length} (engine ${targetText(engineTarget(opts))}).`);
  return 0;
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      tokens: true,
      options: {
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
        ...ENGINE_FLAGS,
      },
    });
  } catch (e) {
    // node:util's text says "positional argument" and leaves a quote open; an unknown option after
    // FILE is most often the program's (`sandbox-run main.py -v`): say where it goes.
    const unknown = (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '(.+?)'\./.exec((e as Error).message)?.[1] : undefined;
    if (unknown !== undefined) {
      const word = process.argv.slice(2).find((a) => a === unknown || a.startsWith(`${unknown}=`)) ?? unknown;
      fail(`unknown option ${unknown}; if it is for the program, put it after --: sandbox-run [options] FILE -- ${quote([word])}. Run "sandbox-run --help" for usage.`);
    }
    fail(`${(e as Error).message}. Run "sandbox-run --help" for usage.`);
  }
  const { values } = parsed;
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
  if (values.help) {
    process.stdout.write(usage() + '\n');
    return 0;
  }
  // Issue 14: the MCP server (src/cli/mcp.ts); its stdout is the protocol's.
  if (values.mcp) return mcpCommand(values, positionals, args);
  if (values['max-runs'] !== undefined || values['max-timeout'] !== undefined) fail('--max-runs and --max-timeout go with --mcp. Run "sandbox-run --help" for usage.');

  if ((values.reap || values['list-profiles']) && (positionals.length > 0 || terminator !== undefined || values['profile-json'] !== undefined)) {
    fail(`--${values.reap ? 'reap' : 'list-profiles'} takes no FILE, program arguments or --profile-json. Run "sandbox-run --help" for usage.`);
  }
  const engine = engineFromFlags(values);
  if ('error' in engine) fail(`${engine.error} Run "sandbox-run --help" for usage.`);
  if (values.reap) return reap(engine);

  const workspace = resolve(values.workspace ?? '.');
  if (!(await stat(workspace).catch(() => undefined))?.isDirectory()) {
    fail(`--workspace ${workspace} is not a directory; give the folder that holds .vscode/settings.json.`);
  }
  let settings;
  try {
    // --profile-json: the settings choose no profile, so a broken settings file does not matter.
    settings = values['profile-json'] !== undefined && !values['list-profiles']
      ? { path: resolve(workspace, '.vscode', 'settings.json'), found: false, profiles: undefined }
      : await readWorkspaceSettings(workspace);
  } catch (e) {
    fail((e as Error).message);
  }
  const layers = [{ source: 'workspace' as const, value: settings.profiles }];
  const set = resolveProfiles(layers);
  const inline = values['profile-json'] === undefined ? undefined : parseInlineProfile(values['profile-json']);
  if (inline && 'problems' in inline) {
    for (const p of inline.problems) say(p);
    fail('the --profile-json profile is invalid (above); nothing ran.');
  }

  if (values['list-profiles']) {
    for (const p of set.profiles) {
      row(`${p.name}\t${p.source}\t${p.profile.image}\t${p.profile.extensions.join(',')}\tnetwork ${p.profile.network}`);
    }
    for (const p of set.invalid) row(`${p.name}\t${p.source}\tINVALID`);
    for (const i of set.issues) say(`${i.key}: ${i.message}`);
    return set.issues.length > 0 ? EXIT.usage : 0;
  }

  // `-it` (docker's habit) reads as -i plus -t (--timeout) taking the next word: say so first.
  if (values.timeout !== undefined && !/^\s*\d+(\.\d+)?\s*$/.test(values.timeout)) {
    fail(`-t (--timeout) takes a number of seconds, not ${JSON.stringify(values.timeout)}; for input, -i alone passes yours to the program (there is no -t for a terminal).`);
  }
  // `sandbox-run main.py a b` (the `python main.py a b` habit): say where the program's words go.
  if (positionals.length > 1 && terminator === undefined) {
    fail(`give exactly one FILE; program arguments go after --: sandbox-run [options] FILE -- ${quote(positionals.slice(1))}`);
  }
  if (positionals.length !== 1) fail(`give exactly one FILE (or - for standard input)${terminator === undefined ? '' : ' before --'}. Run "sandbox-run --help" for usage.`);
  const file = positionals[0]!;
  const fromStdin = file === '-';
  if (fromStdin && values.interactive) fail('-i passes standard input to the program, so the code cannot come from standard input too; give a FILE.');
  if (fromStdin && !values.profile && !inline) fail('reading code from standard input needs --profile NAME (or --profile-json JSON).');

  // The run's paths (issue 12): ${workspaceFolder} is --workspace, ${fileDirname} FILE's folder; a
  // `workspace: "ro"` profile runs FILE from the mount when it is inside the workspace.
  const paths = fromStdin ? { workspaceFolder: workspace } : { workspaceFolder: workspace, fileDirname: dirname(resolve(file)), file: resolve(file) };
  const query = { name: values.profile, fileName: fromStdin ? undefined : file, paths };
  // --profile-json: the command line's own profile; the settings choose nothing and loosen nothing.
  const chosen: { name: string; profile: Profile } | undefined = inline ? { name: values.profile ?? 'inline', profile: inline.profile } : pickProfile(set, query);
  if (!chosen) {
    const bad = set.invalid.find((p) => p.name === values.profile);
    for (const i of bad?.issues ?? set.issues) say(`${i.key}: ${i.message}`);
    fail(
      values.profile
        ? `profile "${values.profile}" ${bad ? 'is invalid (see above); fix it in ' + settings.path : 'does not exist; use --list-profiles to see the profiles'}.`
        : set.invalid.length > 0
          ? `no valid profile runs "${basename(file)}"; the invalid profile(s) ${set.invalid.map((p) => `"${p.name}"`).join(', ')} (above) may be meant for it: fix them in ${settings.path}.`
          : `no profile runs "${basename(file)}"; pass --profile NAME or add a profile with its extension to ${settings.path}.`,
    );
  }

  // A malformed setting for the chosen profile (or for all profiles) may have meant to tighten it:
  // never fall back to the built-in silently. Other problems are warnings.
  const blocking = inline ? [] : blockingIssues(set, chosen.name, query);
  for (const i of inline ? [] : set.issues) {
    say(`${blocking.includes(i) ? '' : 'warning: '}${i.key}: ${i.message}`);
  }
  if (blocking.length > 0) fail(`the settings for profile "${chosen.name}", or of a profile meant for this file, are malformed (above); fix ${settings.path} and run again.`);

  // A workspace's settings file may come with a cloned repository: it may tighten anything, but a
  // loosening needs the user's explicit --allow-loosening (the editor asks in a modal instead).
  // Also a file the workspace re-routed (extensions) into a looser profile than the built-in it would use.
  const loosening = inline ? undefined : routeLoosening({ layers }, query);
  if (loosening && !values['allow-loosening']) {
    for (const l of loosening.loosenings) say(`${l.key}: ${l.description}`);
    for (const a of loosening.addedArgs) say(`  + ${a}`);
    for (const a of loosening.removedArgs) say(`  - ${a}`);
    fail(`profile "${chosen.name}" from ${settings.path} loosens the sandbox (above); review it and pass --allow-loosening to run it.`);
  }

  let profile = chosen.profile;
  if (values.timeout !== undefined) {
    const parsedTimeout = ProfileSchema.safeParse({ ...profile, limits: { ...profile.limits, timeoutSeconds: Number(values.timeout) } });
    if (!parsedTimeout.success) fail(`--timeout ${rangeMessage(LIMIT_RANGES.timeoutSeconds)}.`);
    profile = parsedTimeout.data;
  }

  let code: Buffer;
  try {
    code = fromStdin ? await readStdin() : await readFile(file);
  } catch (e) {
    fail(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
  }

  const controller = new AbortController();
  const force = new AbortController();
  // The reader went away: nobody sees a graceful ending, so remove at once.
  // To a terminal, references to the snippet name the host file and its real line (issue 11).
  const origin = fromStdin ? undefined : snippetOrigin(profile, { source: resolve(file), sourceFileName: file }, paths);
  const terminal = new TerminalOutput(() => force.abort(), values.raw === true, process.stdout, process.stderr, origin);
  // First Ctrl-C: interrupt the program (SIGINT), removal after limits.interruptGraceSeconds;
  // the second removes the container at once.
  let interrupts = 0;
  const onSignal = () => {
    interrupts += 1;
    if (interrupts === 1) {
      say(`interrupting the program (SIGINT); the container is removed in ${profile.limits.interruptGraceSeconds} s (limits.interruptGraceSeconds); press Ctrl-C again to remove it now.`);
      controller.abort();
    }
    else if (interrupts === 2) {
      say('removing the container now…');
      force.abort();
    }
  };
  // Per OS (signals.ts): Windows sends SIGINT, SIGBREAK and SIGHUP, never SIGTERM.
  for (const signal of interruptSignals()) process.on(signal, onSignal);

  // Which engine ran the code, for the summary: asked beside the run, never before it.
  let identity: EngineIdentity | undefined;
  const identityKnown = values.quiet ? undefined : engineIdentity(engine).then((id) => (identity = id));
  if (values.interactive && process.stdin.isTTY && !values.quiet) {
    terminal.line('-i: your terminal echoes and edits what you type and the program reads it from a pipe (no terminal: a password prompt shows what you type); Ctrl-D ends its input.');
  }
  const result: RunResult = await runInSandbox({
    profileName: chosen.name,
    profile,
    docker: engine,
    code,
    sourceFileName: fromStdin ? undefined : file,
    paths,
    signal: controller.signal,
    forceSignal: force.signal,
    args,
    onOutput: terminal.program,
    // -i: this process's stdin after the code (a pipe, never a terminal run: see usage()).
    ...(values.interactive ? { interactive: { input: process.stdin } } : {}),
  });
  // Nothing more is read: a stdin left open (a terminal, `yes |`) must not keep this process alive.
  if (values.interactive) process.stdin.destroy();
  terminal.end();
  if (!values.quiet) {
    const network = profile.network === 'none' ? 'off' : 'on';
    // Normally known long before the run ends; an engine slow to say what it is delays the summary at most this long.
    await Promise.race([identityKnown, new Promise((r) => setTimeout(r, IDENTITY_GRACE_MS).unref())]);
    terminal.line(`${result.message} [profile ${chosen.name}, image ${profile.image}, network ${network}, ${engineSummary(engine, identity)}]`);
  } else if (result.outcome === 'failed-to-start' || result.outcome === 'engine-error') {
    // -q drops the summary of a run, not the only word on why nothing (or not all) ran: 125/126 alone says too little.
    terminal.line(result.message);
  }
  if (result.error?.detail && !values.quiet) terminal.line(`engine said: ${result.error.detail}`);
  if (result.cleanupError) terminal.line(`cleanup failed: ${result.cleanupError}`);
  // The result came when the program's exit was known; its container's removal ran on in the
  // background (removals.ts): the CLI exits only once it is done.
  for (const f of await awaitRemovals()) terminal.line(`cleanup failed: ${f.error}`);
  // The reader of our output went away: the run was stopped like `yes | head` stops `yes`.
  if (terminal.closed && result.outcome === 'cancelled') {
    terminal.line('the reader of the output went away (e.g. | head), so the run was stopped and the container removed.');
    return EXIT.outputLimit;
  }
  return exitCodeFor(result);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => fail(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, EXIT.failedToStart),
);
