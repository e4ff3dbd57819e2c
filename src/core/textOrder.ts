/**
 * Ordering of names (profile names, container names, environment keys) for lists and keys.
 *
 * By UTF-16 code units, as `Array.prototype.sort` without a comparator: deterministic across
 * locales and cheap. `String.prototype.localeCompare` is not used on these paths: its first call
 * in a process builds ICU's collator, which cost a plain `sandbox-run FILE` about 10 ms of its
 * start-up (a CPU profile of the CLI, 2026-12-02) for names that are identifiers, not prose.
 */

/** A comparator for `sort`: negative when `a` comes first, 0 when equal, positive otherwise. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
