import assert from 'node:assert/strict';
import { classifyEngineFailure } from '../../src/core/engine/failures';
import { describeOutcome } from '../../src/core/run/outcome';
import { signalFromExitCode } from '../../src/core/run/rules';
import { spawnErrno } from '../../src/core/engine/cli';
import type { RunResult } from '../../src/core/run/result';
import { EXIT, exitCodeFor } from '../../src/cli/exitCodes';
import { profileOf } from '../support/profiles';

const profile = profileOf({ limits: { outputBytes: 4096 } });

describe('result mapping (unit)', () => {
  it('infers the signal from the init process 128+N status', () => {
    assert.equal(signalFromExitCode(137), 'SIGKILL');
    assert.equal(signalFromExitCode(143), 'SIGTERM');
    assert.equal(signalFromExitCode(130), 'SIGINT');
    assert.equal(signalFromExitCode(0), null);
    assert.equal(signalFromExitCode(128), null);
    assert.equal(signalFromExitCode(255), null);
    assert.equal(signalFromExitCode(null), null);
  });

  it('describes each outcome in one sentence with its numbers', () => {
    const f = { exitCode: 3, durationMs: 312.4, profile };
    assert.equal(describeOutcome('exited', f), 'Exited with code 3 in 312 ms.');
    assert.match(describeOutcome('timed-out', f), /^Timed out after 30 s/);
    assert.match(describeOutcome('output-limit', { ...f, overflowStream: 'stdout' }), /stdout passed its limit of 4096 bytes/);
    assert.match(describeOutcome('oom-killed', f), /512 MiB memory limit/);
    const error = { code: 'image-missing' as const, message: 'Missing.', fix: 'Pull it.', detail: '' };
    assert.equal(describeOutcome('failed-to-start', { ...f, error }), 'Missing. Pull it.');
  });

  it('maps engine stderr to typed errors with fixes', () => {
    assert.equal(
      classifyEngineFailure('Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?', 'x').code,
      'daemon-unreachable',
    );
    assert.equal(
      classifyEngineFailure('permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock', 'x').code,
      'permission-denied',
    );
    const missing = classifyEngineFailure('Error response from daemon: No such image: python:3.12-slim', 'create', 'python:3.12-slim');
    assert.equal(missing.code, 'image-missing');
    assert.match(missing.fix, /docker pull python:3\.12-slim/);
    const other = classifyEngineFailure('Error response from daemon: Conflict. The name is in use', 'create the container');
    assert.equal(other.code, 'engine-error');
    assert.equal(other.message, 'Docker could not create the container: Conflict. The name is in use.');
  });

  it('recognises a failed spawn only when the process never started', () => {
    assert.equal(spawnErrno({ failed: true, code: 'ENOENT' }), 'ENOENT');
    assert.equal(spawnErrno({ failed: true, exitCode: 1, code: 'ENOENT' }), undefined);
    assert.equal(spawnErrno({ failed: false }), undefined);
  });

  it('gives the CLI a distinct exit status per outcome and the program status on exit', () => {
    const base = { exitCode: null, signal: null, durationMs: 1, stdout: { bytesKept: 0, truncated: false }, stderr: { bytesKept: 0, truncated: false }, message: '', containerName: 'c' };
    const code = (r: Partial<RunResult>) => exitCodeFor({ ...base, outcome: 'exited', ...r } as RunResult);
    assert.equal(code({ exitCode: 7 }), 7);
    assert.equal(code({ outcome: 'timed-out' }), EXIT.timedOut);
    assert.equal(code({ outcome: 'cancelled' }), EXIT.cancelled);
    assert.equal(code({ outcome: 'output-limit' }), EXIT.outputLimit);
    assert.equal(code({ outcome: 'oom-killed', exitCode: 137 }), EXIT.oomKilled);
    assert.equal(code({ outcome: 'failed-to-start' }), EXIT.failedToStart);
    const all = Object.values(EXIT);
    assert.equal(new Set(all).size, all.length);
  });
});
