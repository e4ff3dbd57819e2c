/** Time limits of a host run: a deadline promise, a bounded await, and limits read from the environment. */

/** Rejects after `ms` with `message`; `clear()` stops the timer. */
export function deadline(ms: number, message: () => string): { promise: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  promise.catch(() => {});
  return { promise, clear: () => clearTimeout(timer) };
}

/** Runs `fn` and fails if it does not settle within `ms`. */
export async function within<T>(ms: number, what: string, fn: () => Promise<T>): Promise<T> {
  const d = deadline(ms, () => `${what} did not finish within ${ms} ms`);
  try {
    return await Promise.race([fn(), d.promise]);
  } finally {
    d.clear();
  }
}

/** Seconds from an environment variable, or the default. */
export function envSeconds(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}
