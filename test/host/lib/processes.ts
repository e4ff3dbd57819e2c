/**
 * What /proc says about the server's processes (proc(5)): the members of a process group, which
 * of them are VS Code extension hosts, and whether one still runs. The `stat` line is read with
 * core's parser (src/core/ownership/labels.ts), which counts fields after the last ")" of `comm`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { statState } from '../../../src/core/engine/procLiveness';

/** Field 5 (`pgrp`) of a `/proc/<pid>/stat` line, as a number (NaN when malformed). */
function statProcessGroup(statLine: string): number {
  // After ")" come field 3 (state), 4 (ppid), 5 (pgrp).
  return Number(statLine.slice(statLine.lastIndexOf(')') + 1).trim().split(/\s+/)[2]);
}

/** Pids of the processes in process group `pgid` (from /proc; empty where there is none). */
export function groupPids(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    // undefined: exited meanwhile
    const line = statLineOf(Number(entry));
    if (line !== undefined && statProcessGroup(line) === pgid) pids.push(Number(entry));
  }
  return pids;
}

/** The `/proc/<pid>/stat` line, or undefined when the process has gone (or /proc is unreadable). */
function statLineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
}

/** True when `/proc/PID/cmdline` says the process is a VS Code extension host. */
export function isExtensionHost(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--type=extensionHost');
  } catch {
    return false;
  }
}

/** True while `pid` exists and is not a zombie (state "Z", field 3 of `/proc/<pid>/stat`). */
export function isAlive(pid: number): boolean {
  const line = statLineOf(pid);
  return line !== undefined && statState(line) !== 'Z';
}
