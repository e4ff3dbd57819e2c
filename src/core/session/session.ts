/**
 * One sandboxed session (issue 24): a long-lived container from a profile (start.ts: the same
 * floor, limits, checks and owner labels as a run) running the Python kernel (kernelSource.ts),
 * with cells sent and results read as frames (frames.ts) over the container's stdin and stdout.
 * The API a notebook controller or an agent tool sits on: {@link startSession}, then
 * {@link SandboxSession.execute} per cell (one at a time, in call order), `interrupt`, `close`.
 * Bounds, all from the profile: each cell's output (stream bytes, display and error messages) at
 * most `limits.outputBytes` (then the cell is interrupted), each cell's time `limits.timeoutSeconds`
 * (then SIGINT; a cell that does not return within `limits.interruptGraceSeconds` ends the
 * session), memory `limits.memoryMiB` for the whole session (an OOM kill ends it, naming the rule).
 * A protocol error, the kernel's exit or the engine's failure end it too, saying why; the container
 * is removed whenever a session ends ({@link closeAllSessions} at the host's exit; the orphan sweep
 * after a crash of the host). Nothing the kernel sends makes the host do anything but show it.
 * No `vscode` import here.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { performance } from 'node:perf_hooks';
import type { AttachExit } from '../container/lease';
import { scheduleRemoval } from '../container/removals';
import { CONTROL_TIMEOUT_MS } from '../engine/contracts';
import { SandboxError } from '../errors';
import { diagnoseExit } from '../run/diagnose';
import type { RuleNote } from '../run/result';
import { sandboxRule } from '../run/rules';
import { encodeCell, encodeCellFiles, encodeInputReply, encodeInterrupt, FrameReader, isRelativeFileName, type CellFrame, type DisplayData, type InputAnswer, type KernelFrame, type KernelMessage } from './frames';
import { KERNEL_SOURCE } from './kernelSource';
import { startSessionContainer, type SessionContainer, type SessionContainerRequest } from './start';

/** What one cell produced, as it arrives (bounded; text and images are untrusted data). */
export type CellEvent =
  | { readonly kind: 'stdout' | 'stderr'; readonly bytes: Buffer }
  | { readonly kind: 'display'; readonly data: DisplayData }
  | { readonly kind: 'error'; readonly ename: string; readonly evalue: string; readonly traceback: readonly string[]; readonly frames: readonly CellFrame[] }
  | { readonly kind: 'files'; readonly files: readonly { readonly name: string; readonly data: Buffer }[]; readonly dropped: number }
  | { readonly kind: 'notice'; readonly text: string };

/** Why a session ended; `message` is one sentence for people, `rule` the sandbox rule when one ended it. */
export interface SessionEnd {
  readonly reason: 'closed' | 'idle' | 'timed-out' | 'output-limit' | 'oom-killed' | 'exited' | 'protocol-error' | 'engine-error' | 'start-failed';
  readonly message: string;
  readonly rule?: RuleNote;
}

/** How one cell ended. `session-ended`: the session ended during (or before) it; see `ended`. */
export interface CellResult {
  readonly status: 'ok' | 'error' | 'interrupted' | 'timed-out' | 'output-limit' | 'session-ended';
  /** The kernel's count for this cell (1, 2, …), null when it never answered. */
  readonly executionCount: number | null;
  /** From sending the cell to its end, ms. */
  readonly durationMs: number;
  /** Bytes of output kept (streams, display and error messages), at most `limits.outputBytes`. */
  readonly outputBytes: number;
  /** True when output past the bound was dropped. */
  readonly truncated: boolean;
  readonly rule?: RuleNote;
  readonly ended?: SessionEnd;
}

/** The kernel asks for a line of input (the cell called `input()` or `getpass`): `prompt` is the program's text (data, at most frames.ts `INPUT_PROMPT_MAX` characters). */
export interface InputRequest {
  readonly prompt: string;
  /** True for `getpass`: the answer should not be shown. */
  readonly password: boolean;
}

/**
 * Answers a cell's input request; `signal` aborts when the answer is no longer wanted (the cell
 * was interrupted or ended, the session ended): dismiss the question then (the answer is ignored).
 */
export type InputHandler = (request: InputRequest, signal: AbortSignal) => Promise<InputAnswer>;

/** The answer when a caller gives no {@link InputHandler}: an EOFError with this text. */
export const NO_INPUT = 'input() is not available here: pass data as files or in the code';

/** A session's start request: the container's ({@link SessionContainerRequest}) and an idle limit. */
export interface SessionRequest extends SessionContainerRequest {
  /** Closes the session after this long without a cell running, ms (reason `idle`); none when absent. */
  readonly idleMs?: number;
}

/** The one cell in flight. */
interface Cell {
  readonly sink: (e: CellEvent) => void;
  readonly t0: number;
  /** The kernel's number for it (cells sent so far, this one included). */
  readonly n: number;
  /** This cell's time limit, seconds. */
  readonly timeoutSeconds: number;
  bytes: number;
  truncated: boolean;
  stop?: 'timed-out' | 'output-limit' | 'interrupted';
  timers: NodeJS.Timeout[];
  /** Answers input requests (none: EOFError {@link NO_INPUT}). */
  readonly onInput: InputHandler | undefined;
  /** Aborted when the cell ends or is interrupted: an open question is dismissed. */
  readonly questions: AbortController;
  finish(r: CellResult): void;
  /** Called once the cell ended (done, or the session ended), for {@link SandboxSession.interrupt}. */
  readonly over: Promise<void>;
}

/** Attached CLI grace after its container was removed before it is killed, ms (as stop.ts). */
const ATTACH_EXIT_GRACE_MS = 5000;
/** Bytes of the kernel's own stderr kept (Python's words before the kernel took fd 2), for the end's detail. */
const STDERR_TAIL = 4000;

const live = new Set<SandboxSession>();

/**
 * Starts a session: the container (start.ts), then the kernel, and waits for its `hello`.
 * @throws SandboxError as start.ts `startSessionContainer`; `start-failed` when the kernel did not
 *   answer within the control timeout or the profile's command did not run it (the container is removed)
 */
export async function startSession(req: SessionRequest): Promise<SandboxSession> {
  const container = await startSessionContainer(req);
  const session = new SandboxSession(req, container);
  await session.started;
  return session;
}

/** Ends every open session of this process and waits for their containers' removal (a host's exit). */
export async function closeAllSessions(): Promise<void> {
  await Promise.allSettled([...live].map((s) => s.close()));
}

/** One session; made by {@link startSession}. */
export class SandboxSession {
  /** Random id (a UUID) by which callers name it. */
  readonly id = randomUUID();
  readonly profileName: string;
  readonly containerName: string;
  /** When it started, ms since the epoch. */
  readonly startedAt = Date.now();
  /** The kernel's `hello`: Python version and whether IPython formats displays. */
  kernel: { python: string; ipython: boolean } | undefined;
  /** Settles once the kernel said hello; rejects (SandboxError `start-failed`) when it did not. */
  readonly started: Promise<void>;
  /** Settles once the session ended, with why. */
  readonly ended: Promise<SessionEnd>;
  private endInfo: SessionEnd | undefined;
  private settleEnd!: (e: SessionEnd) => void;
  private settleStart!: { ok: () => void; fail: (e: Error) => void };
  private readonly input = new PassThrough();
  private readonly reader: FrameReader;
  private cell: Cell | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;
  private removal: Promise<void> | undefined;
  private stderrTail = '';
  private pending = 0;
  private sent = 0;

  constructor(private readonly req: SessionRequest, private readonly c: SessionContainer) {
    this.profileName = req.profileName;
    this.containerName = c.lease.name;
    this.reader = new FrameReader(c.profile.limits.outputBytes + 64 * 1024);
    this.ended = new Promise((r) => (this.settleEnd = r));
    this.started = new Promise<void>((ok, fail) => (this.settleStart = { ok, fail }));
    const startTimer = setTimeout(() => this.startFailed('the kernel did not answer within the control timeout'), c.docker.controlTimeoutMs ?? CONTROL_TIMEOUT_MS);
    void this.started.catch(() => undefined).finally(() => clearTimeout(startTimer));
    live.add(this);
    c.lease.consume((stream, chunk) => (stream === 'stdout' ? this.onFrames(this.reader.push(chunk)) : this.onStderr(chunk)));
    c.lease.send(KERNEL_SOURCE, this.input);
    void c.lease.exit.then((exit) => this.onExit(exit));
  }

  /** True while a cell runs or waits. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /** Why it ended, once it did. */
  get end(): SessionEnd | undefined {
    return this.endInfo;
  }

  /**
   * Runs one cell after those already asked for; `onEvent` gets its output as it arrives.
   * Never throws for cell or session failures: they are results (`session-ended` with `ended`).
   * @param opts `signal`: aborting it interrupts the cell (SIGINT), as {@link interrupt};
   *   `timeoutSeconds`: this cell's time limit when lower than the profile's `limits.timeoutSeconds`;
   *   `files`: written under /sandbox before the code runs (relative names); `collectOutFiles`:
   *   the files of /sandbox/out/ changed by the cell come back as a `files` event (at most 8, 1 MiB in all);
   *   `onInput`: answers the cell's `input()`/`getpass` (without it they raise EOFError {@link NO_INPUT});
   *   the cell's time limit runs on while a question waits
   * @throws SandboxError `invalid-arguments` for a file name that is not relative (nothing is sent)
   */
  execute(
    code: string, onEvent: (e: CellEvent) => void = () => undefined,
    opts: { readonly signal?: AbortSignal; readonly timeoutSeconds?: number; readonly files?: Readonly<Record<string, Uint8Array>>; readonly collectOutFiles?: boolean; readonly onInput?: InputHandler } = {},
  ): Promise<CellResult> {
    const bad = Object.keys(opts.files ?? {}).find((n) => !isRelativeFileName(n));
    if (bad !== undefined) throw new SandboxError('invalid-arguments', `The file name ${JSON.stringify(bad)} is not a relative name under /sandbox, so nothing ran.`, 'Give names such as data.csv or in/data.csv (no leading /, no . or .. parts).');
    const io = opts.files || opts.collectOutFiles ? encodeCellFiles(opts.files ?? {}, opts.collectOutFiles === true) : undefined;
    this.pending++;
    const limit = Math.min(this.c.profile.limits.timeoutSeconds, opts.timeoutSeconds ?? Infinity);
    const run = this.queue.then(() => this.runCell(code, onEvent, limit, opts, io));
    this.queue = run.catch(() => undefined).finally(() => this.pending--);
    return run;
  }

  /**
   * Interrupts the running cell: an `i` frame naming it, on which the kernel sends itself SIGINT
   * (KeyboardInterrupt in the cell's code; a blocking call returns EINTR first).
   * @returns true when the cell ended within `limits.interruptGraceSeconds` (or none ran), false otherwise (the session goes on; the caller may close it)
   */
  async interrupt(): Promise<boolean> {
    const cell = this.cell;
    if (!cell || this.endInfo) return true;
    cell.stop ??= 'interrupted';
    cell.questions.abort();
    this.input.write(encodeInterrupt(cell.n));
    const grace = new Promise<false>((r) => setTimeout(() => r(false), this.c.profile.limits.interruptGraceSeconds * 1000).unref());
    return Promise.race([cell.over.then(() => true), grace]);
  }

  /** Ends the session and waits for its container's removal (a removal failure is kept by removals.ts `awaitRemovals`). */
  async close(): Promise<void> {
    this.finish({ reason: 'closed', message: 'The session was closed and its container removed.' });
    await this.removal?.catch(() => undefined);
  }

  private runCell(code: string, onEvent: (e: CellEvent) => void, timeoutSeconds: number, opts: { readonly signal?: AbortSignal; readonly onInput?: InputHandler }, io?: Buffer): Promise<CellResult> {
    const t0 = performance.now();
    const signal = opts.signal;
    if (this.endInfo) return Promise.resolve(endedResult(this.endInfo, t0));
    clearTimeout(this.idleTimer);
    let finish!: (r: CellResult) => void;
    const result = new Promise<CellResult>((r) => (finish = r));
    let over!: () => void;
    const cell: Cell = {
      sink: onEvent, t0, n: ++this.sent, timeoutSeconds, bytes: 0, truncated: false, timers: [], onInput: opts.onInput, questions: new AbortController(),
      finish, over: new Promise((r) => (over = r)),
    };
    const onAbort = () => void this.interrupt();
    signal?.addEventListener('abort', onAbort, { once: true });
    void result.then(() => {
      signal?.removeEventListener('abort', onAbort);
      for (const t of cell.timers) clearTimeout(t);
      cell.questions.abort();
      over();
      this.armIdle();
    });
    this.cell = cell;
    cell.timers.push(setTimeout(() => this.stopCell(cell, 'timed-out'), timeoutSeconds * 1000));
    if (io) this.input.write(io);
    this.input.write(encodeCell(code));
    if (signal?.aborted) onAbort();
    return result;
  }

  /** A bound passed (time, output): interrupt the cell; if it does not return within the grace, end the session. */
  private stopCell(cell: Cell, why: 'timed-out' | 'output-limit'): void {
    if (this.cell !== cell || (cell.stop && cell.stop !== 'interrupted')) return;
    cell.stop = why;
    const l = this.c.profile.limits;
    const rule = cellRule(why, { timeoutSeconds: cell.timeoutSeconds, outputBytes: l.outputBytes });
    cell.sink({ kind: 'notice', text: `\n[sandbox-runner] ${rule.text} Interrupting it (SIGINT).\n` });
    this.input.write(encodeInterrupt(cell.n));
    cell.timers.push(setTimeout(() => {
      this.finish({
        reason: why,
        message: `${rule.text} The cell did not return within limits.interruptGraceSeconds (${l.interruptGraceSeconds} s) of the interrupt, so the session was ended and its container removed.`,
        rule,
      });
    }, l.interruptGraceSeconds * 1000));
  }

  private onStderr(chunk: Buffer): void {
    this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
  }

  private onFrames(frames: KernelFrame[]): void {
    for (const f of frames) {
      if (this.endInfo) return;
      if (f.kind === 'protocol-error') return this.protocolError(f.why);
      if (f.kind === 'message' && f.message.t === 'hello') {
        if (this.kernel) return this.protocolError('a second hello');
        this.kernel = { python: f.message.python, ipython: f.message.ipython };
        this.settleStart.ok();
        this.armIdle();
        continue;
      }
      const cell = this.cell;
      if (!cell || !this.kernel) return this.protocolError('output while no cell runs');
      if (f.kind === 'message' && f.message.t === 'done') {
        this.cell = undefined;
        const status = cell.stop === 'timed-out' || cell.stop === 'output-limit' ? cell.stop : f.message.status;
        const rule = status === 'timed-out' || status === 'output-limit' ? cellRule(status, { timeoutSeconds: cell.timeoutSeconds, outputBytes: this.c.profile.limits.outputBytes }) : undefined;
        cell.finish({ status, executionCount: f.message.n, durationMs: performance.now() - cell.t0, outputBytes: cell.bytes, truncated: cell.truncated, ...(rule ? { rule } : {}) });
        continue;
      }
      this.deliver(cell, f);
    }
  }

  /** One frame of output: counted against the cell's bound, passed on while within it. */
  private deliver(cell: Cell, f: Exclude<KernelFrame, { kind: 'protocol-error' }>): void {
    const bound = this.c.profile.limits.outputBytes;
    const size = f.kind === 'stdout' || f.kind === 'stderr' ? f.bytes.length : f.bytes as number;
    if (cell.truncated) return;
    if (f.kind === 'oversize' || cell.bytes + size > bound) {
      if ((f.kind === 'stdout' || f.kind === 'stderr') && cell.bytes < bound) {
        cell.sink({ kind: f.kind, bytes: f.bytes.subarray(0, bound - cell.bytes) });
        cell.bytes = bound;
      }
      cell.truncated = true;
      return this.stopCell(cell, 'output-limit');
    }
    cell.bytes += size;
    if (f.kind === 'stdout' || f.kind === 'stderr') return cell.sink({ kind: f.kind, bytes: f.bytes });
    if (f.kind !== 'message') return;
    const m = f.message;
    if (m.t === 'error' && m.frames.some((c) => c.cell > cell.n)) this.protocolError('a traceback frame of a cell not sent yet');
    else if (m.t === 'input') this.ask(cell, m);
    else if (m.t !== 'hello' && m.t !== 'done') cell.sink(eventOf(m));
  }

  /**
   * The cell's input request `n`: asks its handler and sends the answer while the cell still runs
   * (a cell interrupted or ended meanwhile gets none; the kernel drops an answer to an older request).
   */
  private ask(cell: Cell, m: { readonly n: number; readonly prompt: string; readonly password: boolean }): void {
    const questions = cell.questions;
    const answer = cell.onInput && !questions.signal.aborted
      ? cell.onInput({ prompt: m.prompt, password: m.password }, questions.signal).catch((): InputAnswer => ({ cancel: true }))
      : Promise.resolve<InputAnswer>({ eof: NO_INPUT });
    void answer.then((a) => {
      if (this.cell === cell && !this.endInfo && !questions.signal.aborted) this.input.write(encodeInputReply(m.n, a));
    });
  }

  private protocolError(why: string): void {
    this.finish({ reason: 'protocol-error', message: `The session's kernel sent ${why}, which the session protocol does not allow, so the session was ended and its container removed.` });
  }

  private startFailed(why: string): void {
    this.finish({ reason: 'start-failed', message: `The session did not start: ${why}.` });
  }

  private armIdle(): void {
    const ms = this.req.idleMs;
    if (ms === undefined || this.endInfo) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (!this.cell && this.pending === 0) this.finish({ reason: 'idle', message: `The session was idle for ${Math.round(ms / 1000)} s (its idle limit), so it was closed and its container removed; its state is gone.` });
    }, ms);
    this.idleTimer.unref();
  }

  /** The container ended by itself: the engine's diagnosis (an OOM kill, a signal) names the rule. */
  private async onExit(exit: AttachExit): Promise<void> {
    if (this.endInfo) return;
    const profile = this.c.profile;
    let end: SessionEnd;
    try {
      const d = await diagnoseExit(this.c.docker, this.c.lease, exit, this.stderrTail);
      if (d.outcome === 'oom-killed' || d.oomKilledChild) {
        end = {
          reason: 'oom-killed',
          message: `The memory limit limits.memoryMiB (${profile.limits.memoryMiB} MiB, no swap) ended the session: the engine reported an OOM kill, and the session's state is gone.`,
          rule: { key: 'limits.memoryMiB', certain: true, text: `The memory limit limits.memoryMiB (${profile.limits.memoryMiB} MiB, no swap) ended the session: the engine reported an OOM kill.` },
        };
      } else if (d.outcome === 'engine-error') {
        end = { reason: 'engine-error', message: d.error ? `${d.error.message} ${d.error.fix}` : 'The engine failed; the session ended.' };
      } else {
        const rule = sandboxRule(d.outcome, d.exitCode, profile);
        end = { reason: 'exited', message: `The session's kernel exited (status ${d.exitCode ?? 'unknown'}), so the session ended.${rule ? ` ${rule.text}` : ''}`, ...(rule ? { rule } : {}) };
      }
    } catch (e) {
      end = { reason: 'engine-error', message: e instanceof SandboxError ? `${e.message} ${e.fix}` : `The session ended: ${String(e)}.` };
    }
    this.finish(end);
  }

  /** Ends the session once: the cell in flight and the start settle, the container is removed. */
  private finish(end: SessionEnd): void {
    if (this.endInfo) return;
    this.endInfo = end;
    live.delete(this);
    clearTimeout(this.idleTimer);
    const cell = this.cell;
    this.cell = undefined;
    if (cell) {
      cell.sink({ kind: 'notice', text: `\n[sandbox-runner] ${end.message}\n` });
      cell.finish({ ...endedResult(end, cell.t0), outputBytes: cell.bytes, truncated: cell.truncated });
    }
    if (!this.kernel) this.settleStart.fail(new SandboxError('start-failed', end.message, 'Check that the profile runs python3 (its "command" is python3 ${file}) and that the engine is healthy, then start the session again.', this.stderrTail));
    const lease = this.c.lease;
    this.input.end();
    this.removal = scheduleRemoval(this.c.docker, this.containerName, Promise.race([lease.waiting, lease.exit]));
    void this.removal.catch(() => undefined).finally(() => {
      if (!lease.ended) setTimeout(() => lease.kill('SIGKILL'), ATTACH_EXIT_GRACE_MS).unref();
    });
    this.settleEnd(end);
  }
}

/** The rule of a cell stopped by a bound. */
function cellRule(why: 'timed-out' | 'output-limit', l: { timeoutSeconds: number; outputBytes: number }): RuleNote {
  return why === 'timed-out'
    ? { key: 'limits.timeoutSeconds', certain: true, text: `The cell ran past the per-cell time limit limits.timeoutSeconds (${l.timeoutSeconds} s).` }
    : { key: 'limits.outputBytes', certain: true, text: `The cell's output passed the per-cell bound limits.outputBytes (${l.outputBytes} bytes); the rest was dropped.` };
}

function endedResult(end: SessionEnd, t0: number): CellResult {
  return { status: 'session-ended', executionCount: null, durationMs: performance.now() - t0, outputBytes: 0, truncated: false, ended: end, ...(end.rule ? { rule: end.rule } : {}) };
}

function eventOf(m: Exclude<KernelMessage, { t: 'hello' | 'done' | 'input' }>): CellEvent {
  if (m.t === 'files') return { kind: 'files', files: m.files, dropped: m.dropped };
  return m.t === 'display' ? { kind: 'display', data: m.data } : { kind: 'error', ename: m.ename, evalue: m.evalue, traceback: m.traceback, frames: m.frames };
}
