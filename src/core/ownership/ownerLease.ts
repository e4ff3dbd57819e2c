/**
 * Owner leases: how the orphan sweep (reaper.ts) tells a live owner from a dead one on every OS,
 * without /proc. Not to be confused with lease.ts, which is a *container's* run lease.
 *
 * Each process that creates containers (an extension host, a `sandbox-run` process) holds one
 * lease: the file `<state dir>/owners/<lease id>.lease` (stateDir.ts), created at its first
 * container (or sweep), its mtime touched every refresh period (default 10 000 ms), removed on
 * clean exit. Its containers carry the lease id and this client's host id (labels.ts). The host
 * id is a random 128-bit value kept in `<state dir>/host-id`, created once per user and machine,
 * so "this container's owner ran on this client host" is decidable without /proc.
 *
 * A lease is dead when its file is missing, or when its mtime is older than {@link STALE_PERIODS}
 * refresh periods (the period the owner wrote into the file, so a sweeper with another setting
 * never misjudges it). This is the stale-lock rule of `proper-lockfile` (mtime older than
 * `stale` ms), written out here because that library is a mutual-exclusion lock (a `<file>.lock`
 * directory that one process wins) with a 2000 ms floor on `stale`, a "compromised" callback
 * that fails the holder, and three dependencies; nobody competes for a lease, so none of that fits.
 *
 * A sweeper that was itself suspended (a laptop asleep) sees every other owner's lease as stale
 * until those owners' own timers catch up: after a gap in its own refresh ticks longer than
 * {@link GAP_PERIODS} periods, a sweeper does not judge staleness for two periods
 * ({@link OwnerLease.clockTrusted}); a missing file is still judged.
 *
 * Ids in labels are never paths: {@link leasePathFor} accepts only 32 lower-case hex digits and
 * derives the path inside the state directory, so a hostile label value cannot make the sweep
 * stat or delete anything else (it never deletes lease files at all).
 */
import { randomBytes } from 'node:crypto';
import { linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { join, type PlatformPath } from 'node:path';
import { stateDir } from '../stateDir';

/** Shape of a lease id and of a client host id: 128 random bits as 32 lower-case hex digits. */
export const OWNER_ID = /^[0-9a-f]{32}$/;
/** Default refresh period of a lease, in ms. */
export const DEFAULT_LEASE_PERIOD_MS = 10_000;
/** A lease whose mtime is older than this many of its refresh periods is dead. */
export const STALE_PERIODS = 6;
/** A gap in a sweeper's own ticks longer than this many periods means it was suspended. */
export const GAP_PERIODS = 3;
/** Test-only: the refresh period of this process's lease in ms (100 … 600 000), e.g. 500. */
export const LEASE_PERIOD_ENV = 'SANDBOX_RUNNER_LEASE_PERIOD_MS';
/** Sub-folder of the state directory holding the lease files. */
export const LEASE_DIR = 'owners';
/** File of the state directory holding the client host id. */
export const HOST_ID_FILE = 'host-id';

/** A new random id (lease or host): 32 lower-case hex digits. */
export function newOwnerId(): string {
  return randomBytes(16).toString('hex');
}

/**
 * The lease file of `id` inside state directory `dir`, or undefined when `id` is not an id
 * ({@link OWNER_ID}): label values never name a path of their own. Pure.
 * @param flavour `path.win32` or `path.posix` (default: this platform's)
 */
export function leasePathFor(dir: string, id: string, flavour: Pick<PlatformPath, 'join'> = { join }): string | undefined {
  return OWNER_ID.test(id) ? flavour.join(dir, LEASE_DIR, `${id}.lease`) : undefined;
}

/** The refresh period from the environment ({@link LEASE_PERIOD_ENV}) in ms, else the default. */
export function leasePeriodMs(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const n = Number(env[LEASE_PERIOD_ENV]);
  return Number.isInteger(n) && n >= 100 && n <= 600_000 ? n : DEFAULT_LEASE_PERIOD_MS;
}

/** What reading a lease file showed. */
export type LeaseFile =
  | { readonly kind: 'missing' }
  /** mtime in ms since the epoch; the owner's refresh period in ms (default when unreadable). */
  | { readonly kind: 'file'; readonly mtimeMs: number; readonly periodMs: number }
  | { readonly kind: 'unreadable'; readonly why: string };

/** A lease's liveness: only `dead` allows removal. */
export interface LeaseLiveness {
  readonly state: 'dead' | 'alive' | 'unknown';
  readonly reason: string;
}

/**
 * Judges a lease file (see the module comment). Pure.
 * @param nowMs the sweeper's clock, ms since the epoch
 * @param clockTrusted false right after the sweeper was suspended: staleness is then not judged
 */
export function leaseLiveness(file: LeaseFile, nowMs: number, clockTrusted: boolean): LeaseLiveness {
  if (file.kind === 'missing') return { state: 'dead', reason: 'its owner\'s lease is gone (the owner exited)' };
  if (file.kind === 'unreadable') return { state: 'unknown', reason: `its owner's liveness is unknown: its lease cannot be read (${file.why})` };
  const age = Math.round(nowMs - file.mtimeMs);
  const limit = STALE_PERIODS * file.periodMs;
  if (age <= limit) return { state: 'alive', reason: `its owner's lease was refreshed ${Math.max(0, age)} ms ago` };
  if (!clockTrusted) {
    return { state: 'unknown', reason: `its owner's liveness is unknown: its lease is ${age} ms old, but this process was just suspended itself` };
  }
  return { state: 'dead', reason: `its owner's lease was last refreshed ${age} ms ago (more than ${STALE_PERIODS} refresh periods of ${file.periodMs} ms)` };
}

/**
 * Reads the lease file at `path` without following a symlink (lstat); a regular file only.
 * The period comes from the file's JSON `periodMs` (100 … 600 000), else the default.
 */
export function readLeaseFile(path: string): LeaseFile {
  try {
    const st = lstatSync(path);
    if (!st.isFile()) return { kind: 'unreadable', why: 'not a regular file' };
    let periodMs = DEFAULT_LEASE_PERIOD_MS;
    if (st.size < 4096) {
      try {
        periodMs = leasePeriodMs({ [LEASE_PERIOD_ENV]: String((JSON.parse(readFileSync(path, 'utf8')) as { periodMs?: unknown }).periodMs) });
      } catch {
        // half-written or foreign content: the default period
      }
    }
    return { kind: 'file', mtimeMs: st.mtimeMs, periodMs };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { kind: 'missing' } : { kind: 'unreadable', why: code ?? String(e) };
  }
}

/** Writes `text` to `path` atomically (a temporary file renamed over it). */
function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * The client host id kept in `dir` ({@link HOST_ID_FILE}), created once when missing or
 * malformed. Concurrent creators agree: the first file linked into place wins.
 * @throws Error (fs) when the state directory cannot be created or read
 */
export function hostIdIn(dir: string): string {
  const file = join(dir, HOST_ID_FILE);
  const read = () => {
    try {
      const t = readFileSync(file, 'utf8').trim();
      return OWNER_ID.test(t) ? t : undefined;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  };
  const existing = read();
  if (existing) return existing;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const id = newOwnerId();
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, `${id}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(tmp, file);
      return id;
    } catch (e) {
      const won = (e as NodeJS.ErrnoException).code === 'EEXIST' ? read() : undefined;
      if (won) return won;
      renameSync(tmp, file); // malformed file, or a file system without hard links
      return id;
    }
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Injected time for tests: ms since the epoch. */
export type Clock = () => number;

/** One process's lease (see the module comment). */
export class OwnerLease {
  /** Lease id (32 hex digits), as put on containers. */
  readonly id = newOwnerId();
  /** The lease file. */
  readonly path: string;
  private timer: NodeJS.Timeout | undefined;
  private lastTick: number;
  private distrustUntil = -Infinity;
  private readonly onExit = () => this.close();

  /**
   * Creates the lease file (and the state directory) and starts the unref'd refresh timer.
   * @param dir the state directory; `periodMs` the refresh period in ms
   * @throws Error (fs) when the file cannot be created
   */
  constructor(readonly dir: string, readonly hostId: string, readonly periodMs: number, private readonly clock: Clock = Date.now) {
    this.path = leasePathFor(dir, this.id)!;
    mkdirSync(join(dir, LEASE_DIR), { recursive: true, mode: 0o700 });
    this.write();
    this.lastTick = clock();
    this.timer = setInterval(() => this.tick(), periodMs);
    this.timer.unref();
    process.on('exit', this.onExit);
  }

  private write(): void {
    writeAtomic(this.path, `${JSON.stringify({ pid: process.pid, periodMs: this.periodMs, created: new Date(this.clock()).toISOString() })}\n`);
  }

  /** One refresh: touches the mtime (recreates a deleted file) and notes gaps in its own ticks. */
  tick(): void {
    const now = this.clock();
    if (now - this.lastTick > GAP_PERIODS * this.periodMs) this.distrustUntil = now + 2 * this.periodMs;
    this.lastTick = now;
    const at = new Date(now);
    void utimes(this.path, at, at).catch(() => {
      if (this.timer) {
        try {
          this.write();
        } catch {
          // the state directory went away or is read-only: the next tick tries again
        }
      }
    });
  }

  /**
   * Whether this process may judge other leases stale now: false while its own ticks are late
   * by more than {@link GAP_PERIODS} periods, and for two periods after such a gap.
   */
  clockTrusted(now: number = this.clock()): boolean {
    return now - this.lastTick <= GAP_PERIODS * this.periodMs && now >= this.distrustUntil;
  }

  /** Stops the refresh and removes the lease file (clean exit). Idempotent; never throws. */
  close(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    process.off('exit', this.onExit);
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

/** A lease file untouched this long (ms) is deleted by the sweep: long dead, kept meanwhile for people to read. */
export const LEASE_GC_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the lease files (and half-written temporary files) in `<dir>/owners` whose mtime is
 * older than {@link LEASE_GC_MS}: dead owners' leases whether or not a container still names them
 * (a missing lease is as dead as a stale one). Nothing when `clockTrusted` is false (this process
 * was just suspended). Only regular files with the names this module writes are touched.
 * @returns the deleted file names
 */
export function removeOldLeaseFiles(dir: string, nowMs: number, clockTrusted: boolean): string[] {
  if (!clockTrusted) return [];
  const owners = join(dir, LEASE_DIR);
  let names: string[];
  try {
    names = readdirSync(owners);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!/^[0-9a-f]{32}\.lease(\.[0-9a-f]{12}\.tmp)?$/.test(name)) continue;
    try {
      const st = lstatSync(join(owners, name));
      if (!st.isFile() || nowMs - st.mtimeMs <= LEASE_GC_MS) continue;
      unlinkSync(join(owners, name));
      removed.push(name);
    } catch {
      // gone meanwhile
    }
  }
  return removed.sort();
}

let current: OwnerLease | undefined;
let failed = false;

/**
 * This process's lease, opened at the first call (the first container or sweep); undefined when
 * the state directory cannot be used (containers then carry the /proc labels only). Never throws.
 */
export function processLease(): OwnerLease | undefined {
  if (current || failed) return current;
  try {
    const dir = stateDir();
    current = new OwnerLease(dir, hostIdIn(dir), leasePeriodMs());
  } catch {
    failed = true;
  }
  return current;
}

/** Closes this process's lease (the extension's `deactivate`); a later container opens a new one. */
export function closeProcessLease(): void {
  current?.close();
  current = undefined;
}
