import assert from 'node:assert/strict';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { sandboxRule } from '../../src/core/run/rules';

const profile = ProfileSchema.parse({ image: 'i', command: ['${file}'] });

describe('sandbox rules (unit)', () => {
  it('words a rule read from the exit status alone as a hint, naming signal, key and value', () => {
    const xfsz = sandboxRule('exited', 153, profile);
    assert.deepEqual([xfsz?.key, xfsz?.certain], ['limits.fileSizeMiB', false]);
    assert.match(xfsz!.text, /^Exit 153 is how a process killed by SIGXFSZ ends; the file-size limit limits\.fileSizeMiB \(16 MiB/);
    const bus = sandboxRule('exited', 135, profile);
    assert.deepEqual([bus?.key, bus?.certain], ['limits.shmMiB', false]);
    assert.match(bus!.text, /SIGBUS.*\/dev\/shm is limits\.shmMiB, 64 MiB/);
    const segv = sandboxRule('exited', 139, profile);
    assert.equal(segv?.key, undefined);
    assert.match(segv!.text, /SIGSEGV/);
  });

  it('states evidence as a fact: refused forks, timeout, output bound, OOM kill', () => {
    const pids = sandboxRule('exited', 1, profile, { refusedForks: 3 });
    assert.deepEqual([pids?.key, pids?.certain], ['limits.pids', true]);
    assert.match(pids!.text, /limits\.pids \(128, threads count too\) refused 3 new processes or threads/);
    assert.equal(sandboxRule('timed-out', null, profile)?.key, 'limits.timeoutSeconds');
    assert.equal(sandboxRule('output-limit', null, profile)?.key, 'limits.outputBytes');
    assert.equal(sandboxRule('oom-killed', 137, profile)?.certain, true);
  });

  it('names no rule for a normal exit or a cancel', () => {
    assert.equal(sandboxRule('exited', 0, profile), undefined);
    assert.equal(sandboxRule('exited', 1, profile), undefined);
    assert.equal(sandboxRule('exited', 127, profile), undefined);
    assert.equal(sandboxRule('cancelled', 130, profile), undefined);
  });
});
