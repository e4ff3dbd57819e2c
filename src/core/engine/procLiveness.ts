/**
 * What this process reads from `/proc` to prove an owner's liveness (proc(5)): its pid namespace,
 * its start time, this boot's id, and the parser of `/proc/<pid>/stat` lines the sweep uses on
 * other pids. labels.ts writes these values into the owner labels; reaper.ts compares them with a
 * container's labels. Where /proc is unavailable (macOS, Windows) each answers "unknown" and the
 * owner leases (ownerLease.ts) decide alone.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/**
 * Test-only switch: with `SANDBOX_RUNNER_NO_PROC=1` this process reads nothing from /proc for
 * owner liveness (labels get "unknown", the sweep's /proc probe answers "unknown"), as on macOS
 * and Windows, so the owner leases alone must decide (package.json `test:engine`).
 */
export function procEvidenceOff(): boolean {
  return process.env.SANDBOX_RUNNER_NO_PROC === '1';
}

/** This process's pid namespace, e.g. `pid:[4026531836]`, or "unknown" where /proc is unavailable. */
export function currentPidNamespace(): string {
  if (procEvidenceOff()) return 'unknown';
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return 'unknown';
  }
}

/**
 * Field 22 (`starttime`, clock ticks since boot) of a `/proc/<pid>/stat` line, or undefined when
 * the line is malformed. Field 2 (`comm`) may hold spaces and parentheses, so fields are counted
 * after the last ")" (proc(5)).
 */
export function statStartTime(statLine: string): string | undefined {
  const close = statLine.lastIndexOf(')');
  if (close < 0) return undefined;
  // After ")" come field 3 (state), 4 (ppid), …: field 22 is the 20th.
  const value = statLine.slice(close + 1).trim().split(/\s+/)[19];
  return value && /^\d+$/.test(value) ? value : undefined;
}

/**
 * Field 3 (`state`, e.g. "R", "S", "Z" for a zombie) of a `/proc/<pid>/stat` line, or undefined.
 */
export function statState(statLine: string): string | undefined {
  const close = statLine.lastIndexOf(')');
  if (close < 0) return undefined;
  return statLine.slice(close + 1).trim().split(/\s+/)[0] || undefined;
}

let selfStart: string | undefined;
/** This process's start time in clock ticks since boot (cached; it never changes), or "unknown". */
export function currentStartTime(): string {
  if (selfStart === undefined) {
    if (procEvidenceOff()) return 'unknown';
    try {
      selfStart = statStartTime(readFileSync('/proc/self/stat', 'utf8')) ?? 'unknown';
    } catch {
      selfStart = 'unknown';
    }
  }
  return selfStart;
}

let bootId: string | undefined;
/** This machine's boot id (cached), or "unknown" where /proc is unavailable. */
export function currentBootId(): string {
  if (bootId === undefined) {
    if (procEvidenceOff()) return 'unknown';
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || 'unknown';
    } catch {
      bootId = 'unknown';
    }
  }
  return bootId;
}
