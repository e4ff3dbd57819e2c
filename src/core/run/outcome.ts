/**
 * The outcome wording: the one- or two-sentence summary of a result (how it ended, then the
 * sandbox rule behind it, rules.ts), and the result of a run refused before anything started.
 */
import { performance } from 'node:perf_hooks';
import type { SandboxErrorInfo } from '../errors';
import { newContainerName } from '../layout';
import type { Profile } from '../profiles/profileSchema';
import type { RunOutcome, RunResult } from './result';
import type { RuleNote } from './rules';

/**
 * The summary of a result: one sentence on how it ended, then the sandbox rule behind it when
 * there is one (a fact, or a hint worded as such; see rules.ts).
 * @param facts.exitCode for `cancelled`/`timed-out`: the program's own status when it exited
 *   within the interrupt grace period, else null
 */
export function describeOutcome(
  outcome: RunOutcome,
  facts: { exitCode: number | null; durationMs: number; profile: Profile; overflowStream?: string; error?: SandboxErrorInfo; rule?: RuleNote },
): string {
  const ms = Math.round(facts.durationMs);
  const own = (signal: string) =>
    facts.exitCode === null ? '' : `the program had exited with code ${facts.exitCode} within the grace period after ${signal}; `;
  const withRule = (text: string) => (facts.rule && (outcome === 'exited' || facts.rule.key === 'limits.pids') ? `${text} ${facts.rule.text}` : text);
  switch (outcome) {
    case 'exited':
      return withRule(`Exited with code ${facts.exitCode} in ${ms} ms.`);
    case 'timed-out':
      return withRule(`Timed out after ${facts.profile.limits.timeoutSeconds} s (limits.timeoutSeconds); ${own('SIGTERM')}the container was removed.`);
    case 'cancelled':
      return withRule(`Cancelled after ${ms} ms; ${own('SIGINT')}the container was removed.`);
    case 'output-limit':
      return withRule(`Stopped because ${facts.overflowStream ?? 'output'} passed its limit of ${facts.profile.limits.outputBytes} bytes (limits.outputBytes); the container was removed.`);
    case 'oom-killed':
      return withRule(`Killed by the out-of-memory killer at the ${facts.profile.limits.memoryMiB} MiB memory limit (limits.memoryMiB).`);
    case 'failed-to-start':
    case 'engine-error':
      return facts.error ? `${facts.error.message} ${facts.error.fix}` : 'The run failed.';
  }
}

/** The result of a run refused because its profile is invalid (`failed-to-start`, `invalid-profile`). */
export function invalidProfileResult(profileName: string, issues: readonly { key: string; message: string }[], t0: number): RunResult {
  const error: SandboxErrorInfo = {
    code: 'invalid-profile',
    message: `The profile "${profileName}" is invalid: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}.`,
    fix: 'Fix the profile in your settings and run again.',
    detail: '',
  };
  return refusedResult(error, t0);
}

/** The result of a run refused before anything started (`failed-to-start` with `error`). */
export function refusedResult(error: SandboxErrorInfo, t0: number): RunResult {
  const none = { bytesKept: 0, truncated: false };
  return {
    outcome: 'failed-to-start', exitCode: null, signal: null, durationMs: performance.now() - t0,
    stdout: none, stderr: none, message: `${error.message} ${error.fix}`, containerName: newContainerName().name, error,
  };
}
