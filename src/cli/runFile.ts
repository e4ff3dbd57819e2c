/**
 * One CLI run of an admitted profile: Ctrl-C handling, the program's output to this terminal,
 * the engine call (core `runInSandbox`), the summary line and the exit status.
 */
import { resolve } from 'node:path';
import { awaitRemovals, engineIdentity, isSandboxError, runInSandbox, snippetOrigin, type DockerOptions, type EngineIdentity, type Profile, type RunResult } from '../core';
import { engineSummary } from './engineArgs';
import { exitCodeFor, EXIT } from './exitCodes';
import type { CliValues } from './options';
import type { RunTarget } from './runTarget';
import { interruptSignals } from './signals';
import { cliDependencySet, missingPackageHint } from './dependencies';
import { TerminalOutput } from './terminalOutput';

/** Longest the summary waits for the engine's identity after the run ended, ms. */
const IDENTITY_GRACE_MS = 500;

/** What the run needs. */
export interface CliRun {
  readonly values: CliValues;
  readonly engine: DockerOptions;
  readonly profileName: string;
  /** The chosen profile with `--timeout` applied. */
  readonly profile: Profile;
  readonly target: RunTarget;
  readonly code: Buffer;
  /** The program's arguments (after `--`). */
  readonly args: string[];
}

/**
 * Ctrl-C (and the other interrupt signals of this OS, signals.ts): the first interrupts the
 * program (SIGINT), removal after `limits.interruptGraceSeconds`; the second removes the
 * container at once.
 */
function onInterrupts(profile: Profile, controller: AbortController, force: AbortController, terminal: TerminalOutput): void {
  let interrupts = 0;
  const onSignal = () => {
    interrupts += 1;
    if (interrupts === 1) {
      terminal.line(`interrupting the program (SIGINT); the container is removed in ${profile.limits.interruptGraceSeconds} s (limits.interruptGraceSeconds); press Ctrl-C again to remove it now.`);
      controller.abort();
    }
    else if (interrupts === 2) {
      terminal.line('removing the container now…');
      force.abort();
    }
  };
  // Per OS (signals.ts): Windows sends SIGINT, SIGBREAK and SIGHUP, never SIGTERM.
  for (const signal of interruptSignals()) process.on(signal, onSignal);
}

/**
 * Runs the code and says how it ended.
 * @returns the exit status (exitCodes.ts; {@link EXIT.outputLimit} when the reader of the output went away)
 */
export async function runFile(run: CliRun): Promise<number> {
  const { values, engine, profile, target } = run;
  const controller = new AbortController();
  const force = new AbortController();
  // The reader went away: nobody sees a graceful ending, so remove at once.
  // To a terminal, references to the snippet name the host file and its real line (issue 11).
  const origin = target.fromStdin ? undefined : snippetOrigin(profile, { source: resolve(target.file), sourceFileName: target.file }, target.paths);
  const terminal = new TerminalOutput(() => force.abort(), values.raw === true, process.stdout, process.stderr, origin);
  onInterrupts(profile, controller, force, terminal);

  // Which engine ran the code, for the summary: asked beside the run, never before it.
  let identity: EngineIdentity | undefined;
  const identityKnown = values.quiet ? undefined : engineIdentity(engine).then((id) => (identity = id));
  if (values.interactive && process.stdin.isTTY && !values.quiet) {
    terminal.line('-i: your terminal echoes and edits what you type and the program reads it from a pipe (no terminal: a password prompt shows what you type); Ctrl-D ends its input.');
  }
  let dependencySet;
  try {
    dependencySet = await cliDependencySet(values, engine, run.profileName, profile, run.code, controller.signal, (t) => process.stderr.write(t), target.paths, !target.fromStdin && /\.(?:md|markdown)$/i.test(target.file));
  } catch (e) {
    if (!isSandboxError(e)) throw e;
    terminal.end();
    terminal.line(`${e.message} ${e.fix}`);
    return EXIT.failedToStart;
  }
  const deps = missingPackageHint(run.profileName, profile, terminal.program);
  const result: RunResult = await runInSandbox({
    ...(dependencySet ? { dependencySet } : {}),
    profileName: run.profileName,
    profile,
    docker: engine,
    code: run.code,
    sourceFileName: target.fromStdin ? undefined : target.file,
    paths: target.paths,
    signal: controller.signal,
    forceSignal: force.signal,
    args: run.args,
    onOutput: deps.sink,
    // -i: this process's stdin after the code (a pipe, never a terminal run: see usage.ts).
    ...(values.interactive ? { interactive: { input: process.stdin } } : {}),
  });
  // Nothing more is read: a stdin left open (a terminal, `yes |`) must not keep this process alive.
  if (values.interactive) process.stdin.destroy();
  terminal.end();
  const hint = values.quiet ? undefined : deps.hint();
  if (hint) terminal.line(hint);
  if (!values.quiet) {
    const network = profile.network === 'none' ? 'off' : 'on';
    // Normally known long before the run ends; an engine slow to say what it is delays the summary at most this long.
    await Promise.race([identityKnown, new Promise((r) => setTimeout(r, IDENTITY_GRACE_MS).unref())]);
    terminal.line(`${result.message} [profile ${run.profileName}, image ${profile.image}, network ${network}, ${engineSummary(engine, identity, result.runtime)}]`);
  } else if (result.outcome === 'failed-to-start' || result.outcome === 'engine-error') {
    // -q drops the summary of a run, not the only word on why nothing (or not all) ran: 125/126 alone says too little.
    terminal.line(result.message);
  }
  return finish(result, terminal, values.quiet === true);
}

/** The run's last lines (engine detail, cleanup failures, a reader gone away) and its exit status. */
async function finish(result: RunResult, terminal: TerminalOutput, quiet: boolean): Promise<number> {
  if (result.error?.detail && !quiet) terminal.line(`engine said: ${result.error.detail}`);
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
