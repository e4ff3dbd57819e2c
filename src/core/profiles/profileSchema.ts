/**
 * The sandbox profile model: what image to run, how to run a file in it, and the limits, network,
 * mounts and environment of the container. Validated with zod; the settings JSON schema is
 * generated from these same schemas (see `settingsSchema.ts`).
 */
import { posix } from 'node:path';
import type * as z from '../zod';
import { zod } from '../zodLoader';
import { hostPathSegments, isAbsoluteHostPath, UNSAFE_HOST_PATH_CHARS } from '../hostPath';
import { RESERVED_CONTAINER_PATHS } from '../layout';
import { limitsSchema, withDescription } from './limits';
import { splitPathVariable } from './pathVariables';
import { MAX_DEPENDENCIES, npmSpecProblem, pythonSpecProblem } from './dependencySpecs';

/** Placeholder in `command` replaced by the in-container path of the snippet file. */
export const FILE_PLACEHOLDER = '${file}';

/**
 * Placeholder in `compile` and `command` replaced by the compiled program's in-container path,
 * {@link COMPILED_PROGRAM_PATH} (issue 23): the compile step writes it, the command runs it.
 */
export const OUT_PLACEHOLDER = '${out}';

/**
 * Where a profile's `compile` step puts the program: in the snippet directory, an exec tmpfs of
 * `limits.tmpfsMiB` (layout.ts `SNIPPET_DIR`); `/tmp` and HOME stay noexec.
 */
export const COMPILED_PROGRAM_PATH = '/sandbox/a.out';

/** Default non-root user (`nobody:nogroup`), passed as `--user UID:GID`. */
export const DEFAULT_USER = '65534:65534';

/** Default working directory: a tmpfs owned by the run's user. */
export const DEFAULT_WORKDIR = '/workspace';

/** Container paths no mount, workdir or tmpfs may target (SECURITY.md, "What the suites prove": the bad-profile corpus). */
export const FORBIDDEN_CONTAINER_ROOTS = ['/proc', '/sys', '/dev', '/etc', '/run'] as const;

/**
 * Characters refused in container paths: the above, plus `:`. A container path lands in
 * `--tmpfs PATH:OPTIONS` (the docker CLI splits the value at the first `:` and the options at
 * `,`, so `/tmp:mode=777` would set the options of docker's tmpfs table), in the `--mount` CSV
 * (`,` and `"`), and in `--workdir`.
 */
export const UNSAFE_CONTAINER_PATH_CHARS = /[:,"\n\r\0]/;

/** True when absolute `path` is `root` or lies below it (any path lies below `/`). */
export function isPathInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root === '/' ? '/' : root + '/');
}

const containerPathError =
  'must be an absolute container path other than "/", without "..", colons, commas or quotes, and outside /proc, /sys, /dev, /etc and /run, in normal form (no "//", "/./" or trailing "/")';

const mountError = 'must be a bind mount such as {"source": "/abs/host/path", "target": "/abs/container/path", "mode": "ro"}';
const hostPathError =
  'must be an absolute host path without "..", commas, quotes or line breaks (such as /home/me/project, C:\\Users\\me\\project or \\\\server\\share\\project), or start with ${workspaceFolder} or ${fileDirname}';

/**
 * A host path as a profile may write it, on any client OS (settings sync between machines): an
 * absolute POSIX or Windows path (hostPath.ts `isAbsoluteHostPath`), no `..` segment (at `/` or
 * `\\`), none of `UNSAFE_HOST_PATH_CHARS`. Whether it is a path of this host's flavour is checked at
 * run time (mounts.ts, hostPath.ts `hostPathProblem`).
 */
function hostPathSyntaxOk(p: string): boolean {
  // `${workspaceFolder}` / `${fileDirname}` (pathVariables.ts): resolved per run, then checked as a path.
  const variable = splitPathVariable(p);
  if (variable) return !hostPathSegments(variable.rest, 'win32').includes('..') && !UNSAFE_HOST_PATH_CHARS.test(p);
  return (isAbsoluteHostPath(p, 'linux') || isAbsoluteHostPath(p, 'win32')) &&
    !hostPathSegments(p, 'win32').includes('..') && !UNSAFE_HOST_PATH_CHARS.test(p);
}

/** Environment variable names allowed by `--env NAME=VALUE`. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const envNameError = 'must be a name matching [A-Za-z_][A-Za-z0-9_]*';
/** Longest environment value, in characters (a single docker CLI argument is capped at 128 KiB by the kernel). */
export const MAX_ENV_VALUE_CHARS = 32768;
const envValueError = `must be a string without NUL characters, at most ${MAX_ENV_VALUE_CHARS} characters long`;

const userError = 'must be a numeric, non-root "UID:GID" such as "65534:65534" (UID and GID from 1 to 2147483647, no leading zeros)';
const imageError =
  'must be an image reference such as "python:3.12-slim" or "registry.example/team/tool@sha256:…" (letters, digits, ".", "_", "-", "/", ":", "@"; not starting with "-")';
const languageError = 'must be a list of VS Code language ids such as ["python"]';
const extensionError = 'must be a list of file extensions with a leading dot, such as [".py"]';
const commandError = `must be a non-empty list of strings without NUL characters (argv, no shell) that contains "${FILE_PLACEHOLDER}" where the snippet path goes (or "${OUT_PLACEHOLDER}", the compiled program, after a compile step)`;
const compileError = `must be a non-empty list of strings without NUL characters (argv, no shell) that contains "${FILE_PLACEHOLDER}" (the source) and usually "${OUT_PLACEHOLDER}" (the program it writes)`;
const dependenciesError = `must be a list of at most ${MAX_DEPENDENCIES} requirement strings by name, such as ["requests>=2.31"] (python) or ["lodash@^4.17"] (node); URLs, paths, VCS, "file:" and entries starting with "-" are refused`;
const shebangError = 'must be a list of interpreter names such as ["python3", "python"] (letters, digits, ".", "_", "+", "-")';

/** Schemas of container paths: any allowed one, and one outside {@link RESERVED_CONTAINER_PATHS} (the workdir). */
function containerPathSchemas() {
  const z = zod();
  /** An absolute, normalised container path outside the forbidden roots. */
  const containerPath = z.string({ error: containerPathError }).check(
    z.refine(
      (p) =>
        p.startsWith('/') &&
        p !== '/' &&
        posix.normalize(p) === p &&
        !p.endsWith('/') &&
        !p.split('/').includes('..') &&
        !UNSAFE_CONTAINER_PATH_CHARS.test(p) &&
        posix.normalize(p).replace(/\/$/, '') !== '' &&
        !FORBIDDEN_CONTAINER_ROOTS.some((root) => isPathInside(posix.normalize(p), root)),
      { error: containerPathError },
    ),
  );

  /** A container path that is not, and is not inside, a reserved path. */
  const ownContainerPath = containerPath.check(
    z.refine(
      (p) =>
        typeof p !== 'string' || !RESERVED_CONTAINER_PATHS.some((root) => isPathInside(posix.normalize(p).replace(/\/$/, ''), root)),
      { error: `must not be ${RESERVED_CONTAINER_PATHS.join(', ')} or inside them: the sandbox mounts its own file systems there` },
    ),
  );

  return { containerPath, ownContainerPath };
}

/** One bind mount (`--mount type=bind,src=…,dst=…[,readonly]`). Host paths are checked again at run time. */
function mountSchema(containerPath: ReturnType<typeof containerPathSchemas>['containerPath']) {
  const z = zod();
  return withDescription(
    z.strictObject({
      source: withDescription(
        z.string({ error: hostPathError }).check(
          z.refine(hostPathSyntaxOk, {
            error: hostPathError,
          }),
        ),
        'Absolute host path of a directory (single files cannot be mounted), or one starting with ${workspaceFolder} (the document\'s workspace folder) or ${fileDirname} (the folder of the file being run), resolved per run; resolved through symlinks and pinned before use.',
      ),
      // Reserved targets (RESERVED_CONTAINER_PATHS) are refused at run time by `resolveMounts`.
      target: withDescription(containerPath, 'Absolute path inside the container.'),
      mode: withDescription(
        z._default(z.enum(['ro', 'rw'], { error: 'must be "ro" (read-only, the default) or "rw"' }), 'ro'),
        '"ro" (default) or "rw".',
      ),
    }, { error: mountError }),
    'A bind mount; named volumes are not supported.',
  );
}

/** The fields of a profile that say what runs and with what: image, command, languages, limits, network, mounts, env. */
function runFields(paths: ReturnType<typeof containerPathSchemas>) {
  const z = zod();
  return {
    image: withDescription(
      z.string({ error: imageError }).check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$/, { error: imageError })),
      'Image to run; it must already be present locally (runs never pull).',
    ),
    command: withDescription(
      z
        .array(z.string({ error: commandError }).check(z.refine((a) => !a.includes('\0'), { error: commandError })), {
          error: commandError,
        })
        .check(
          z.minLength(1, { error: commandError }),
          z.refine((argv) => argv.some((a) => a.includes(FILE_PLACEHOLDER) || a.includes(OUT_PLACEHOLDER)), { error: commandError }),
        ),
      `Command argv; "${FILE_PLACEHOLDER}" is replaced by the in-container snippet path, "${OUT_PLACEHOLDER}" by ${COMPILED_PROGRAM_PATH} (what "compile" wrote).`,
    ),
    compile: withDescription(
      z.optional(
        z
          .array(z.string({ error: compileError }).check(z.refine((a) => !a.includes('\0'), { error: compileError })), { error: compileError })
          .check(
            z.minLength(1, { error: compileError }),
            z.refine((argv) => argv.some((a) => a.includes(FILE_PLACEHOLDER)), { error: compileError }),
          ),
      ),
      `Compile step argv, run in the same container before "command" (no shell; "${FILE_PLACEHOLDER}" and "${OUT_PLACEHOLDER}" as in "command"). A non-zero exit ends the run as "compilation failed"; its output is shown and its error lines link to the source. The time limit covers both steps. Needs sh in the image.`,
    ),
    shebangs: withDescription(
      z._default(
        z.array(z.string({ error: shebangError }).check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/, { error: shebangError })), { error: shebangError }),
        [],
      ),
      'Interpreter names this profile answers for in a first line "#!": "#!/usr/bin/env bash" and "#!/bin/bash" name "bash". A shebang picks the profile before the language id does.',
    ),
    languages: withDescription(
      z._default(
        z.array(z.string({ error: languageError }).check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, { error: languageError })), {
          error: languageError,
        }),
        [],
      ),
      'VS Code language ids this profile runs.',
    ),
    extensions: withDescription(
      z._default(
        z.array(z.string({ error: extensionError }).check(z.regex(/^\.[A-Za-z0-9_+-]{1,16}$/, { error: extensionError })), {
          error: extensionError,
        }),
        [],
      ),
      'File extensions this profile runs; the first names the snippet file.',
    ),
    limits: z.prefault(limitsSchema(), {}),
    network: withDescription(
      z._default(
        z.enum(['none', 'bridge'], { error: 'must be "none" (the default) or "bridge"; host and container networks are refused' }),
        'none',
      ),
      '"none" (default): no network. "bridge": outbound network (opt-in).',
    ),
    mounts: withDescription(z._default(z.array(mountSchema(paths.containerPath), { error: 'must be a list of bind mounts' }), []), 'Extra bind mounts.'),
    dependencies: withDescription(
      z._default(
        z
          .array(
            z.string({ error: dependenciesError }).check(
              // Which manager reads a list is known per run (the profile's language); here an entry
              // must be allowed for at least one, and the run checks it again for its own.
              z.refine((d) => pythonSpecProblem(d) === undefined || npmSpecProblem(d) === undefined, { error: dependenciesError }),
            ),
            { error: dependenciesError },
          )
          .check(z.maxLength(MAX_DEPENDENCIES, { error: dependenciesError })),
        [],
      ),
      'Packages a run of this profile needs (issue 22): PEP 508 requirements for python ("requests>=2.31"), registry names with an optional version for node ("lodash@^4.17"). Installed (by sandbox-run --dependencies, by the editor after consent, for agents when the user allows it) in a separate install container, the only phase with network, and mounted read-only into the run (pip for python, npm for node; see docs/dependencies.md). From workspace settings a loosening that needs consent.',
    ),
    env: withDescription(
      z._default(
        z.record(
          z.string().check(z.regex(ENV_NAME, { error: envNameError })),
          z.string({ error: envValueError }).check(
            z.refine((v) => !v.includes('\0') && v.length <= MAX_ENV_VALUE_CHARS, { error: envValueError }),
          ),
          { error: (iss) => (iss.code === 'invalid_key' ? envNameError : 'must be an object of NAME: "value" strings') },
        ),
        {},
      ),
      'Environment variables (nothing is inherited from the host).',
    ),
  };
}

/** The fields of a profile that shape the container: user, workdir, line endings, workspace, module path, runtime. */
function containerFields(paths: ReturnType<typeof containerPathSchemas>) {
  const z = zod();
  return {
    user: withDescription(
      z._default(
        z.string({ error: userError }).check(
          z.refine(
            (u) => {
              // No leading zeros: docker reads "010" as 10, the kernel's tmpfs uid= option as octal 8.
              const m = /^([1-9]\d{0,9}):([1-9]\d{0,9})$/.exec(u);
              if (!m) return false;
              const [uid, gid] = [Number(m[1]), Number(m[2])];
              return uid >= 1 && gid >= 1 && uid <= 2147483647 && gid <= 2147483647;
            },
            { error: userError },
          ),
        ),
        DEFAULT_USER,
      ),
      'Numeric non-root "UID:GID" (`--user`).',
    ),
    workdir: withDescription(z._default(paths.ownContainerPath, DEFAULT_WORKDIR), 'Working directory (a tmpfs owned by the user).'),
    lineEndings: withDescription(
      z._default(z.enum(['lf', 'keep'], { error: 'must be "lf" (the default: CRLF line endings become LF) or "keep"' }), 'lf'),
      '"lf" (default): CRLF line endings in the code become LF before it runs, so a script saved with Windows line endings runs as it reads. "keep": the code runs byte for byte.',
    ),
    workspace: withDescription(
      z._default(z.enum(['none', 'ro'], { error: 'must be "none" (the default) or "ro" (the workspace folder, read-only)' }), 'none'),
      '"none" (default): the container sees no project files. "ro": the document\'s workspace folder is mounted read-only at /workspace/<folder name>, a saved file runs from its own path there with its folder as the working directory (siblings import as in a terminal), and .git plus the files matching sandboxRunner.maskedFiles are hidden.',
    ),
    modulePathEnv: withDescription(
      z.optional(z.string().check(z.regex(ENV_NAME, { error: envNameError }))),
      'With "workspace": "ro", for a selection or unsaved code (which runs from /sandbox): the environment variable that puts the file\'s folder on the language\'s module path, e.g. "PYTHONPATH" or "NODE_PATH".',
    ),
    runtime: withDescription(
      z.optional(z.enum(['runsc'], { error: 'must be "runsc" (gVisor) or left out for the engine default' })),
      'Optional stronger OCI runtime (`--runtime`), e.g. gVisor "runsc".',
    ),
  };
}

/**
 * Builds the profile schema. Constructing zod schemas runs many small constructors, about as long as
 * everything else the activation bundle does at load (issue 12's activation budget), so it happens
 * on the first validation ({@link profileSchema}), never at load.
 */
function buildProfileSchema() {
  const paths = containerPathSchemas();
  return withDescription(zod().strictObject({ ...runFields(paths), ...containerFields(paths) }), 'A sandbox profile.');
}

let built: ReturnType<typeof buildProfileSchema> | undefined;

/** The profile schema (zod mini), built once on first use; the settings schema generator reads it whole (`z.partial`). */
export function profileSchema(): ReturnType<typeof buildProfileSchema> {
  return (built ??= buildProfileSchema());
}

/** A fully resolved, valid profile. */
export type Profile = z.output<ReturnType<typeof profileSchema>>;
/** A profile as written in settings (defaults may be omitted). */
export type ProfileInput = z.input<ReturnType<typeof profileSchema>>;

/**
 * Validation of a profile (the fields of {@link profileSchema}; everything except `image` and
 * `command` has a default). The schema is built on the first call.
 */
export const ProfileSchema = {
  /** @throws z.core.$ZodError when `value` is not a valid profile */
  parse: (value: unknown): Profile => profileSchema().parse(value),
  /** Validates without throwing: `{ success: true, data }` or `{ success: false, error }`. */
  safeParse: (value: unknown) => profileSchema().safeParse(value),
};

/** Profile names: used in labels and messages. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
