/**
 * Container leases: one started container for one run, behind one interface whatever made it
 * (cold: `docker run -i` spawned by the run; warm: the same, spawned ahead of time by the pool;
 * later other engines). A lease holds the attached engine CLI process and its streams, reads the
 * launcher's markers off stderr (launcher.ts), and sends the code frame. Program bytes are held
 * until the run consumes them, so nothing is lost between preparation and the run.
 */
import { execa, type ResultPromise } from 'execa';
import { dockerBinary, spawnOptions, type DockerOptions } from './docker';
import { encodeFrame, PreambleReader } from './launcher';

/** How the attached CLI process ended. */
export interface AttachExit {
  readonly exitCode?: number;
  readonly signal?: string;
  readonly failed: boolean;
  /** For a spawn failure: execa's error code (ENOENT, EACCES). */
  readonly code?: string;
  readonly cause?: unknown;
}

/** Receives the program's bytes (after the launcher's `ready` marker on stderr; all of stdout). */
export type ProgramSink = (stream: 'stdout' | 'stderr', chunk: Buffer) => void;

/** One started container serving one run. */
export interface ContainerLease {
  readonly kind: 'cold' | 'warm' | 'direct';
  readonly name: string;
  /** The container's init process on the host when known (after the checks), else 0. */
  pid: number;
  /** The launcher's markers; undefined on the direct path (no launcher). */
  readonly launcher?: PreambleReader;
  /** True once the launcher waits for the frame; false when the CLI ended first. */
  readonly waiting: Promise<boolean>;
  /** Settles when the attached CLI process ended. */
  readonly exit: Promise<AttachExit>;
  /** True once `exit` settled. */
  readonly ended: boolean;
  /** Sends the code frame and closes stdin (the program then sees EOF after the frame). */
  send(code: string | Uint8Array): void;
  /** Starts passing program bytes to `sink` (held bytes first). */
  consume(sink: ProgramSink): void;
  /** Kills the attached CLI process (not the container). */
  kill(signal?: NodeJS.Signals): void;
}

/**
 * FOR TESTS ONLY. Bytes written to stdin right after the code frame, before stdin is closed: the
 * engine suite proves with it that the rest of stdin reaches the program (interactive runs later).
 * Never set by the product.
 */
export const leaseTestHooks: { stdinAfterFrame?: Uint8Array } = {};

/** A lease over an attached `docker run -i` (or `start -a`) process. */
export class AttachedLease implements ContainerLease {
  pid = 0;
  readonly launcher: PreambleReader | undefined;
  readonly waiting: Promise<boolean>;
  readonly exit: Promise<AttachExit>;
  ended = false;
  private sink: ProgramSink | undefined;
  private held: [('stdout' | 'stderr'), Buffer][] = [];

  /**
   * Spawns the engine CLI with `args` (argv after `docker`); stdin is a pipe only when the
   * launcher is used. Never throws: a spawn failure shows in `exit`.
   */
  constructor(readonly kind: ContainerLease['kind'], readonly name: string, readonly proc: ResultPromise, withLauncher: boolean) {
    this.launcher = withLauncher ? new PreambleReader() : undefined;
    let settleWaiting: (v: boolean) => void = () => undefined;
    this.waiting = withLauncher ? new Promise((r) => (settleWaiting = r)) : Promise.resolve(true);
    proc.stdin?.on('error', () => undefined); // EPIPE when the container is gone meanwhile
    proc.stdout?.on('data', (chunk: Buffer) => this.emit('stdout', chunk));
    proc.stderr?.on('data', (chunk: Buffer) => {
      if (!this.launcher) return this.emit('stderr', chunk);
      const program = this.launcher.push(chunk);
      if (this.launcher.waited) settleWaiting(true);
      if (program.length > 0) this.emit('stderr', program);
    });
    this.exit = Promise.resolve(proc as PromiseLike<AttachExit>).then((r) => r, (e: AttachExit) => e).then((r) => {
      this.ended = true;
      this.launcher?.end();
      settleWaiting(false);
      return r;
    });
  }

  send(code: string | Uint8Array): void {
    const after = leaseTestHooks.stdinAfterFrame;
    this.proc.stdin?.end(after ? Buffer.concat([encodeFrame(code), after]) : encodeFrame(code));
  }

  consume(sink: ProgramSink): void {
    this.sink = sink;
    for (const [stream, chunk] of this.held.splice(0)) sink(stream, chunk);
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    this.proc.kill(signal);
  }

  private emit(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    if (this.sink) this.sink(stream, chunk);
    else this.held.push([stream, chunk]);
  }
}

/**
 * Starts `docker run -i …` (argv from `buildRunArgv`) and returns its lease at once.
 * @param kind `cold` for a run's own container, `warm` for the pool's
 */
export function openRunLease(opts: DockerOptions, kind: 'cold' | 'warm', name: string, argv: readonly string[]): AttachedLease {
  const proc = execa(dockerBinary(opts), argv, { ...spawnOptions(opts, argv), stdin: 'pipe', buffer: false });
  return new AttachedLease(kind, name, proc, true);
}

/** Starts `docker start -a NAME` for a created container on the direct path (no launcher, no stdin). */
export function openDirectLease(opts: DockerOptions, name: string): AttachedLease {
  const proc = execa(dockerBinary(opts), ['start', '--attach', name], { ...spawnOptions(opts), stdin: 'ignore', buffer: false });
  return new AttachedLease('direct', name, proc, false);
}
