/**
 * Resource limits of a profile and their allowed ranges. Each limit maps to one docker flag
 * (named on the field) or to a runner rule; the isolation floor is in SECURITY.md ("The floor").
 */
import { MiB } from '../layout';
import type * as z from '../zod';
import { zod } from '../zodLoader';

// `zod/mini` ships without a locale (3 KB we do not load): every check here carries its own
// message, and unknown keys are worded by `toProfileIssues`, so zod's default texts never show.

/** Inclusive range and unit of one numeric limit, used for validation and messages. */
interface Range {
  readonly min: number;
  readonly max: number;
  readonly unit: string;
  readonly integer: boolean;
}

/** Allowed ranges. Negative, non-finite and "unlimited" values are always refused; zero only where `min` is 0 (the interrupt grace). */
export const LIMIT_RANGES = {
  memoryMiB: { min: 16, max: 65536, unit: 'MiB', integer: true },
  cpus: { min: 0.01, max: 64, unit: 'CPUs', integer: false },
  pids: { min: 8, max: 4096, unit: 'processes', integer: true },
  timeoutSeconds: { min: 0.1, max: 86400, unit: 'seconds', integer: false },
  outputBytes: { min: 1024, max: 256 * MiB, unit: 'bytes per stream', integer: true },
  fileSizeMiB: { min: 1, max: 16384, unit: 'MiB', integer: true },
  tmpfsMiB: { min: 1, max: 16384, unit: 'MiB', integer: true },
  shmMiB: { min: 1, max: 16384, unit: 'MiB', integer: true },
  interruptGraceSeconds: { min: 0, max: 60, unit: 'seconds', integer: false },
} as const satisfies Record<string, Range>;

/** Built-in defaults, used for every limit a profile leaves out. */
export const DEFAULT_LIMITS = {
  memoryMiB: 512,
  cpus: 1,
  pids: 128,
  timeoutSeconds: 30,
  outputBytes: MiB,
  fileSizeMiB: 16,
  tmpfsMiB: 64,
  shmMiB: 64,
  interruptGraceSeconds: 2,
} as const;

/** The message for a limit: says what is allowed, so a bad value is fixable from the message. */
export function rangeMessage(range: Range): string {
  const kind = range.integer ? 'a whole number' : 'a number';
  return `must be ${kind} from ${range.min} to ${range.max} (${range.unit})`;
}

/**
 * `zod/mini` form of classic `.describe()`: a clone of `schema` (keeping it as the clone's parent)
 * registered in the global registry with `description`, which `z.toJSONSchema` emits. Unlike a
 * `z.describe()` check it adds no check, so `z.partial` still accepts described objects.
 */
export function withDescription<T extends z.ZodMiniType>(schema: T, description: string): T {
  const described = schema.clone();
  zod().globalRegistry.add(described, { description });
  return described;
}

function limit(name: keyof typeof LIMIT_RANGES, description: string) {
  const z = zod();
  const range = LIMIT_RANGES[name];
  const error = rangeMessage(range);
  let schema = z.number({ error }).check(z.gte(range.min, { error }), z.lte(range.max, { error }));
  if (range.integer) schema = schema.check(z.int({ error }));
  return withDescription(z._default(schema, DEFAULT_LIMITS[name]), description);
}

/** Builds the schema of `limits` (see {@link limitsSchema}). */
function buildLimitsSchema() {
  return withDescription(
    zod().strictObject({
      memoryMiB: limit('memoryMiB', 'Memory limit in MiB; swap is disabled (`--memory` = `--memory-swap`).'),
      cpus: limit('cpus', 'CPU quota in CPUs (`--cpus`).'),
      pids: limit('pids', 'Maximum number of processes and threads, including the init process (`--pids-limit`).'),
      timeoutSeconds: limit('timeoutSeconds', 'Wall-clock limit in seconds, counted from the moment the code reaches the container (a compile step included; the engine creating and starting the container is not counted); when it expires the program gets SIGTERM and the container is removed interruptGraceSeconds later.'),
      outputBytes: limit(
        'outputBytes',
        'Bytes kept per stream (stdout and stderr each); the first byte past it ends the run.',
      ),
      fileSizeMiB: limit('fileSizeMiB', 'Largest file the program may write, in MiB (`--ulimit fsize`).'),
      tmpfsMiB: limit('tmpfsMiB', 'Size of each writable tmpfs (/tmp, the working directory, HOME), in MiB.'),
      shmMiB: limit(
        'shmMiB',
        'Size of /dev/shm (POSIX shared memory, multiprocessing) in MiB (`--shm-size` with `--ipc private`); counted against the memory limit like any tmpfs. A single shared-memory block is also capped by fileSizeMiB.',
      ),
      interruptGraceSeconds: limit(
        'interruptGraceSeconds',
        'On cancel (SIGINT) or timeout (SIGTERM) the program\'s process group gets the signal first and the container is removed this many seconds later; 0 removes it at once.',
      ),
    }, { error: 'must be an object of limits such as {"memoryMiB": 256, "timeoutSeconds": 10}' }),
    'Resource limits; every field is optional and defaults to the built-in value.',
  );
}

let built: ReturnType<typeof buildLimitsSchema> | undefined;

/** Zod schema of `limits` in a profile (unknown keys are refused), built once on first use: see profileSchema.ts `profileSchema`. */
export function limitsSchema(): ReturnType<typeof buildLimitsSchema> {
  return (built ??= buildLimitsSchema());
}

/** Fully resolved limits (every field present). */
export type Limits = z.output<ReturnType<typeof limitsSchema>>;

/**
 * Smallest `limits.pids` a profile may have under gVisor (`runtime: "runsc"`). Under runsc the
 * container's pids cgroup (`--pids-limit`) holds gVisor's own host tasks too, the Sentry's and
 * the gofer's threads plus one ptrace stub per program thread, not the program's processes alone:
 * measured on Debian's runsc 0.0~20221219 with `--platform=ptrace` on 2 CPUs, 59 host tasks for a
 * container running one `sleep`. With `--pids-limit 32` (and 16) the gofer could not start its
 * threads: the start failed ("urpc method containerManager.StartRoot failed: EOF") or hung in the
 * engine, blocking inspect and removal of that container. The limit still bounds the program (its
 * processes and threads need host tasks), but only above gVisor's own share, so a lower value is
 * refused before anything starts ({@link runscPidsProblem}).
 */
export const RUNSC_MIN_PIDS = 128;

/**
 * Why a profile's pids limit cannot run under `runtime` (one sentence), or undefined.
 * @param runtime the OCI runtime the run uses (profile `runtime`), undefined: the engine's default
 */
export function runscPidsProblem(runtime: string | undefined, pids: number): string | undefined {
  if (runtime !== 'runsc' || pids >= RUNSC_MIN_PIDS) return undefined;
  return `The profile's limits.pids is ${pids}, but under gVisor (runtime "runsc") the pids limit also counts gVisor's own threads (about 60), so a container needs at least ${RUNSC_MIN_PIDS}; nothing ran.`;
}
