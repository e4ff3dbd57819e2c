/**
 * The runner's input contract: one run's request ({@link RunRequest}), as the extension, the CLI
 * and the agent tools build it. Types only.
 */
import type { DockerOptions } from '../engine/contracts';
import type { InteractiveIo } from '../interactive';
import type { OutputSink } from '../output/output';
import type { RunPaths } from '../profiles/pathVariables';
import type { Profile } from '../profiles/profileSchema';
import type { WarmPool } from './warm';

/** One run's input. */
export interface RunRequest {
  /** Profile name, for labels and messages. */
  readonly profileName: string;
  /** A validated profile (see `resolveProfiles`); validated again here, an invalid one never runs. */
  readonly profile: Profile;
  /**
   * The code to run: text (written as UTF-8) or a file's bytes, passed on unchanged except that
   * CRLF line endings become LF unless the profile's `lineEndings` is "keep" (see `snippetCode`).
   */
  readonly code: string | Uint8Array;
  /** The source file name (or untitled name); only its extension is used. */
  readonly sourceFileName?: string;
  /**
   * Receives the program's stdout/stderr bytes as they arrive (bounded, unchanged; decode for
   * display with `decodingSink` or `Utf8Decoder`), and runner notices as text (e.g. truncation).
   */
  readonly onOutput?: OutputSink;
  /**
   * Cancels the run (outcome `cancelled`): the program's process group gets SIGINT, as from a
   * terminal's Ctrl-C, and the container is removed `limits.interruptGraceSeconds` later (at
   * once when that is 0 or the program is not running yet).
   */
  readonly signal?: AbortSignal;
  /** Removes the container at once, skipping the grace period (a second Ctrl-C or Cancel). */
  readonly forceSignal?: AbortSignal;
  readonly docker?: DockerOptions;
  /** Extra host paths no mount may touch (e.g. the extension's state directory). */
  readonly protectedPaths?: readonly string[];
  /** Receives the engine argv (`docker run …`, or `docker create …` on the direct path) before it runs (for debug logs). */
  readonly onArgv?: (argv: readonly string[]) => void;
  /**
   * Direct path only (images without `sh`, local engine): parent directory for the per-run
   * snippet directory (default: the OS temp dir). Other runs create no host directory at all.
   */
  readonly tempRoot?: string;
  /**
   * A warm pool: when it holds a ready container for this profile, the run takes it (already
   * started, checked and attached: the run only sends the code) instead of starting one, and
   * when one is being prepared, the run waits for it (`WarmPool.takeWhenReady`); outcomes,
   * bounds and cleanup are the same.
   */
  readonly warm?: WarmPool;
  /**
   * Live input (issue 11; see interactive.ts): the program reads `input` after the code, with a
   * real terminal when `tty` is set (cold path only). Without it the program's stdin is empty.
   * Refused (`failed-to-start`, nothing ran) for images without `sh`, and with `tty` for images
   * without `stty`.
   */
  readonly interactive?: InteractiveIo;
  /**
   * Where the run's document is on the host (issue 12): `${workspaceFolder}` and `${fileDirname}`
   * in mount sources (pathVariables.ts), and the folder a `workspace: "ro"` profile mounts.
   * `file`: the host path of a saved, unmodified file run (it then runs from the workspace
   * mount); leave it out for a selection or unsaved text. Runs that use any of these are cold only.
   */
  readonly paths?: RunPaths & { readonly file?: string };
  /** Globs hidden from a workspace mount (workspaceMask.ts; the user-level `sandboxRunner.maskedFiles`); default `DEFAULT_MASK_GLOBS`. */
  readonly maskGlobs?: readonly string[];
  /**
   * Program arguments (issue 12): appended to the profile's `command` argv after `${file}` was
   * replaced, on every path, never through a shell (programArgs.ts; the code frame carries them,
   * launcher.ts). At most `MAX_PROGRAM_ARGS` words and `MAX_PROGRAM_ARGS_BYTES` UTF-8 bytes, no
   * NUL: past that the run is refused (`failed-to-start`, error `invalid-arguments`, nothing ran).
   */
  readonly args?: readonly string[];
  /**
   * An installed dependency set (issue 22, deps/install.ts `ensureDependencySet`): its data volume
   * is mounted read-only at `deps/install.ts` `RUN_MOUNT` and `env` (e.g. `PYTHONPATH`) is added
   * to the profile's. Such runs are cold only. Checked by admission like every other mount.
   */
  readonly dependencySet?: { readonly dataVolume: string; readonly target: string; readonly env: Readonly<Record<string, string>> };
}
