/**
 * Waiting with a deadline, for every suite (engine, host, UI checks, benchmark): each helper fails
 * with a message naming what it waited for and for how long (ms), never hangs a suite past its
 * own limit, and leaves no timer running once it returns.
 */

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A promise that rejects after `ms` with `Error(message())`; `clear()` stops the timer. The
 * rejection is pre-handled, so an unraced deadline never surfaces as an unhandled rejection.
 */
export function deadline(ms: number, message: () => string): { promise: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  promise.catch(() => {});
  return { promise, clear: () => clearTimeout(timer) };
}

/**
 * `promise`'s value, or a rejection `"<what> did not settle within <ms> ms"` when it has not
 * settled after `ms` (the promise itself keeps running).
 */
export async function settlesWithin<T>(promise: PromiseLike<T>, ms: number, what: string): Promise<T> {
  const d = deadline(ms, () => `${what} did not settle within ${ms} ms`);
  try {
    return await Promise.race([promise, d.promise]);
  } finally {
    d.clear();
  }
}

/** Runs `fn` and fails with `"<what> did not finish within <ms> ms"` when it has not settled after `ms`. */
export async function within<T>(ms: number, what: string, fn: () => Promise<T>): Promise<T> {
  const d = deadline(ms, () => `${what} did not finish within ${ms} ms`);
  try {
    return await Promise.race([fn(), d.promise]);
  } finally {
    d.clear();
  }
}

/**
 * Resolves when `predicate` holds, polling every `intervalMs` (default 50 ms). The predicate is
 * asked at least once, and once more after the deadline, so a slow last poll still counts.
 * @throws Error `"timed out after <ms> ms waiting for <what>"`
 */
export async function waitFor(predicate: () => boolean | Promise<boolean>, ms: number, what: string, intervalMs = 50): Promise<void> {
  await pollFor(async () => ((await predicate()) ? true : undefined), ms, what, intervalMs);
}

/**
 * The first defined value `probe` returns, polling every `intervalMs` (default 50 ms); asked at
 * least once, and once more after the deadline.
 * @throws Error `"timed out after <ms> ms waiting for <what>"`
 */
export async function pollFor<T>(probe: () => T | undefined | Promise<T | undefined>, ms: number, what: string, intervalMs = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const late = Date.now() > end;
    const value = await probe();
    if (value !== undefined) return value;
    if (late) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Seconds from the environment variable `name` when it holds a positive number, else `fallback`. */
export function envSeconds(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}
