/**
 * Container leases: one started container for one run, behind one interface whatever made it
 * (cold: `docker run -i` spawned by the run; warm: the same, spawned ahead of time by the pool;
 * later other engines; tty: `docker start -a -i` of a container created with a terminal). A lease
 * holds the attached engine CLI process and its streams, reads the launcher's markers off stderr
 * (off the one terminal stream for tty, launcher.ts), and sends the code frame, then an
 * interactive run's input. Program bytes are held until the run consumes them, so nothing is
 * lost between preparation and the run.
 */
import { PassThrough, Writable, type Readable, type Transform } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { execa, type ResultPromise } from 'execa';
import { buildTtyStartArgv } from './ttyStart';
import { dockerBinary } from '../engine/cli';
import { spawnOptions } from '../engine/spawnEnv';
import type { DockerOptions } from '../engine/contracts';
import type { TtySize } from '../interactive';
import { encodeFrame, encodeTtyFrame, PreambleReader, TTY_PREAMBLE } from './launcher';

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
  /** `tty`: a terminal run's container (created with `-t -i`, started attached; cold only). */
  readonly kind: 'cold' | 'warm' | 'direct' | 'tty';
  readonly name: string;
  /** The container's init process on the host when known (after the checks), else 0. */
  pid: number;
  /** The launcher's markers; undefined on the direct path (no launcher). */
  readonly launcher?: PreambleReader;
  /** True once the launcher waits for the frame; false when the CLI ended first. */
  readonly waiting: Promise<boolean>;
  /**
   * Settles when the attached CLI process ended AND both of its output streams ended with every
   * byte handed on (to the sink, or held for it): a result built after it never misses output.
   */
  readonly exit: Promise<AttachExit>;
  /** True once `exit` settled. */
  readonly ended: boolean;
  /**
   * Sends the code frame. Without `input` stdin is then closed (the program sees EOF after the
   * frame). With `input` (an interactive run, interactive.ts), its bytes follow as they arrive
   * (with backpressure) and its end closes stdin; on a terminal lease they follow only once the
   * launcher said `ready` (the terminal is cooked again), and their end is sent as one 0x04 (the
   * terminal's end-of-file) while stdin stays open: closing a terminal run's attached stdin would
   * end the attachment's output too (moby `CopyStreams`), measured. An input error counts as its
   * end. Input is no longer read once the attached CLI ended. `args`: program arguments
   * (checked by programArgs.ts), carried in the frame after the code (launcher.ts `encodeFrame`).
   */
  send(code: string | Uint8Array, input?: Readable, args?: readonly string[]): void;
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
export const leaseTestHooks: {
  stdinAfterFrame?: Uint8Array;
  /**
   * A stage put in each stream's way from the lease to its sink, after the launcher's markers
   * (a Transform, one per stream): the engine suite makes it hold the program's bytes until after
   * the CLI process ended, which makes "output arrives after the exit" deterministic. `ended`
   * settles when the process did.
   */
  outputStage?: (ended: Promise<unknown>) => Transform;
} = {};

/**
 * Program bytes of one stream, in order, from the lease's reader to its sink: a pass-through that
 * ends when the CLI's pipe ended (or failed), read to its end. `done` resolves once its last chunk
 * was handed on (never rejects).
 */
function relay(pipe: Readable | null | undefined, hand: (chunk: Buffer) => void, ended: Promise<unknown>): { push: (chunk: Buffer) => void; done: Promise<void> } {
  const queue = new PassThrough();
  if (pipe) void finished(pipe).catch(() => undefined).then(() => queue.end());
  else queue.end();
  const reader = new Writable({
    write(chunk: Buffer, _encoding, next) {
      hand(chunk);
      next();
    },
  });
  const stage = leaseTestHooks.outputStage?.(ended);
  const done = (stage ? pipeline(queue, stage, reader) : pipeline(queue, reader)).catch(() => undefined);
  return { push: (chunk) => void queue.write(chunk), done };
}

/** A lease over an attached `docker run -i` (or `start -a`) process. */
export class AttachedLease implements ContainerLease {
  pid = 0;
  readonly launcher: PreambleReader | undefined;
  readonly waiting: Promise<boolean>;
  readonly exit: Promise<AttachExit>;
  ended = false;
  private sink: ProgramSink | undefined;
  private held: [('stdout' | 'stderr'), Buffer][] = [];
  private readonly whenReady: (() => void)[] = [];
  /** Program bytes on their way to the sink, per stream. */
  private readonly relays: Record<'stdout' | 'stderr', ReturnType<typeof relay>>;

  /**
   * Wraps the attached engine CLI process `proc`; stdin is a pipe only when the launcher is used.
   * Never throws: a spawn failure shows in `exit`.
   * @param tty a terminal run ({@link openTtyLease}): the launcher's markers and the program's
   *   output come on the CLI's stdout (one terminal stream, delivered as `stdout`), the CLI's
   *   stderr holds only its own words (kept for diagnostics, never program output), and the frame
   *   carries the size this returns when it is sent
   */
  constructor(readonly kind: ContainerLease['kind'], readonly name: string, readonly proc: ResultPromise, withLauncher: boolean, private readonly tty?: () => TtySize) {
    this.launcher = withLauncher ? new PreambleReader(tty ? TTY_PREAMBLE : undefined) : undefined;
    let settleWaiting: (v: boolean) => void = () => undefined;
    this.waiting = withLauncher ? new Promise((r) => (settleWaiting = r)) : Promise.resolve(true);
    proc.stdin?.on('error', () => undefined); // EPIPE when the container is gone meanwhile
    const preamble = (stream: 'stdout' | 'stderr', chunk: Buffer) => {
      const program = this.launcher!.push(chunk);
      if (this.launcher!.waited) settleWaiting(true);
      if (this.launcher!.verdict === 'ready') for (const f of this.whenReady.splice(0)) f();
      if (program.length > 0) this.relays[stream].push(program);
    };
    const ended = Promise.resolve(proc as PromiseLike<AttachExit>).then((r) => r, (e: AttachExit) => e);
    // The result of a run is built once `exit` settles: it waits for every byte of both streams to
    // be handed on, not only for the process (issue 25: a diagnostic read from incomplete output).
    this.relays = { stdout: relay(proc.stdout, (c) => this.emit('stdout', c), ended), stderr: relay(proc.stderr, (c) => this.emit('stderr', c), ended) };
    proc.stdout?.on('data', (chunk: Buffer) => (tty && this.launcher ? preamble('stdout', chunk) : this.relays.stdout.push(chunk)));
    proc.stderr?.on('data', (chunk: Buffer) => {
      if (!this.launcher) return this.relays.stderr.push(chunk);
      if (tty) return this.launcher.note(chunk);
      preamble('stderr', chunk);
    });
    const read = Promise.all([this.relays.stdout.done, this.relays.stderr.done]);
    this.exit = Promise.all([ended, read]).then(([r]) => {
      this.ended = true;
      this.launcher?.end();
      settleWaiting(false);
      return r;
    });
  }

  send(code: string | Uint8Array, input?: Readable, args: readonly string[] = []): void {
    const stdin = this.proc.stdin;
    if (!stdin) return;
    if (this.tty) {
      stdin.write(encodeTtyFrame(code, this.tty(), args));
      if (input) this.afterReady(() => this.pipeInput(input));
      return;
    }
    const after = leaseTestHooks.stdinAfterFrame;
    const frame = after ? Buffer.concat([encodeFrame(code, args), after]) : encodeFrame(code, args);
    if (!input) return void stdin.end(frame);
    stdin.write(frame);
    this.pipeInput(input);
  }

  /** Calls `f` once the launcher said `ready` (at once if it did already; never if it does not). */
  afterReady(f: () => void): void {
    if (this.launcher?.verdict === 'ready') f();
    else this.whenReady.push(f);
  }

  /** Passes `input` on to the CLI's stdin (see {@link ContainerLease.send}) until it or the CLI ends. */
  private pipeInput(input: Readable): void {
    const stdin = this.proc.stdin!;
    if (this.ended) return;
    const onData = (chunk: Buffer | string) => {
      if (!stdin.write(chunk)) {
        input.pause();
        stdin.once('drain', () => input.resume());
      }
    };
    const detach = () => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onEnd);
    };
    const onEnd = () => {
      detach();
      if (this.ended) return;
      if (this.tty) stdin.write(Buffer.from([0x04]));
      else stdin.end();
    };
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onEnd);
    void this.exit.then(() => {
      detach();
      input.pause();
    });
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

/**
 * Starts a created terminal container (argv.ts `buildTtyCreateArgv`) attached: `docker start
 * --attach --interactive --detach-keys KEYS NAME` (`buildTtyStartArgv`) with stdin a pipe, and
 * returns its lease at once. The launcher's markers are read off the terminal stream.
 * @param keys the run's random detach sequence (ttyStart.ts `detachKeys`)
 * @param size the terminal size to send in the frame, asked when the frame is sent (the launcher
 *   sets it before the program starts)
 * @throws SandboxError `invalid-profile` for a malformed name or keys (argv.ts)
 */
export function openTtyLease(opts: DockerOptions, name: string, keys: string, size: () => TtySize): AttachedLease {
  const argv = buildTtyStartArgv(name, keys);
  const proc = execa(dockerBinary(opts), argv, { ...spawnOptions(opts, argv), stdin: 'pipe', buffer: false });
  return new AttachedLease('tty', name, proc, true, size);
}
