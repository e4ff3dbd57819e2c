/** `sandbox-run --help`: the command line, its options and exit codes. */
import { MAX_PROGRAM_ARGS, MAX_PROGRAM_ARGS_BYTES } from '../core';
import { EXIT } from './exitCodes';

/** The help text (plain text, no trailing newline). */
export function usage(): string {
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
      --dependencies     install the packages the run declares (a python file's PEP 723
                         "# /// script" block, the profile's "dependencies") in a separate
                         container first, the only phase with network; the program gets them
                         read-only and runs without network. Without it such a run is refused.
                         PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_TRUSTED_HOST (python: pip),
                         npm_config_registry (node: npm) and the proxy variables reach the
                         install container only (docs/dependencies.md)
      --install-network NAME
                         the docker network of the install container (default bridge; an
                         --internal network with your mirror gives registry-only egress;
                         not host)
      --install-timeout SECONDS
                         longest an install may take (10-3600, default 300)
      --max-set-mib MIB  largest installed set (1-16384, default 1024)
      --cache-max-mib MIB
                         after an install, remove the least recently used sets until all
                         fit in this size (64-1048576, default 4096)
      --prune-deps       remove the installed dependency sets (volumes) of the engine in use
                         that no container uses, print what was removed and kept, then exit
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
      --mcp              serve the Model Context Protocol on stdin/stdout (tools run_in_sandbox,
                         close_session and list_profiles) with the same profiles and refusal
                         rules; a loosening profile is always refused (not with --allow-loosening)
      --max-runs N       with --mcp: runs in progress at once, at most (default 4; more are refused)
      --max-timeout SECONDS
                         with --mcp: cap on an agent run's time limit (default 120)
      --allow-dependencies
                         with --mcp: install the packages a call declares (its "dependencies"
                         input, a PEP 723 block, the profile's), as --dependencies does;
                         without it such a call is refused
      --max-sessions N   with --mcp: open sessions (run_in_sandbox session "new"), at most
                         (default 2; more are refused, not queued)
      --session-idle SECONDS
                         with --mcp: a session unused this long is closed (default 600)
  -h, --help             show this help

Exit status: the program's own exit status when it ends by itself, else
  ${EXIT.timedOut} timed out, ${EXIT.cancelled} cancelled (Ctrl-C), ${EXIT.outputLimit} output limit exceeded,
  ${EXIT.oomKilled} killed for memory (OOM), ${EXIT.failedToStart} could not start (engine, image or profile problem),
  ${EXIT.engineError} engine failed during the run, ${EXIT.compileFailed} compilation failed (the program did not run),
  ${EXIT.usage} bad command line or invalid profile.`;
}
