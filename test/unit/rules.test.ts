import assert from 'node:assert/strict';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { readOnlyWrite, StreamTail } from '../../src/core/run/readOnlyHint';
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

  // Issue 25: "Read-only root named" (a hint from the program's last error lines, never a decision).
  it('reads a failed write to a read-only place from the last error lines: root, read-only mount or workspace; none where writing works', () => {
    const withMounts = ProfileSchema.parse({ image: 'i', command: ['${file}'], mounts: [{ source: '/srv/data', target: '/data' }, { source: '/srv/out', target: '/out', mode: 'rw' }] });
    const py = 'Traceback (most recent call last):\n  File "/sandbox/main.py", line 1, in <module>\nOSError: [Errno 30] Read-only file system: \'/var/tmp/x\'\n';
    assert.deepEqual(readOnlyWrite(py, profile), { kind: 'root' });
    assert.deepEqual(readOnlyWrite('/sandbox/main.sh: 1: cannot create /x: Read-only file system\n', profile), { kind: 'root' });
    assert.deepEqual(readOnlyWrite("sh: can't create /x: Read-only file system\n", profile), { kind: 'root' });
    const node = "node:fs:1\nError: EROFS: read-only file system, open '/data/y'\n    at Object.openSync (node:fs:573:18)\n{\n  errno: -30\n}\n\nNode.js v20.19.0\n";
    assert.deepEqual(readOnlyWrite(node, withMounts), { kind: 'mount', target: '/data' });
    assert.deepEqual(readOnlyWrite("OSError: [Errno 30] Read-only file system: '/ws/a.txt'\n", profile, '/ws'), { kind: 'mount', target: '/ws' });
    // Writable places, a "rw" mount, no path, nothing said, or said long before the end: no hint.
    for (const p of ['/tmp/x', '/home/sandbox/x', '/workspace/x', '/dev/shm/x']) assert.equal(readOnlyWrite(`OSError: [Errno 30] Read-only file system: '${p}'\n`, profile), undefined, p);
    assert.equal(readOnlyWrite("OSError: [Errno 30] Read-only file system: '/out/z'\n", withMounts), undefined);
    assert.equal(readOnlyWrite('Read-only file system\n', profile), undefined);
    assert.equal(readOnlyWrite('ValueError: bad\n', profile), undefined);
    assert.equal(readOnlyWrite("OSError: [Errno 30] Read-only file system: '/x'\n" + 'later\n'.repeat(30), profile), undefined);
    const tail = new StreamTail();
    tail.push(Buffer.alloc(5000, 0x61));
    tail.push(Buffer.from("\ncan't create /x: Read-only file system\n"));
    assert.deepEqual(readOnlyWrite(tail.text(), profile), { kind: 'root' });
  });

  it('words the read-only hint as a hint after a non-zero exit only, with the key and where writing works', () => {
    const root = sandboxRule('exited', 1, profile, { readOnlyWrite: { kind: 'root' } });
    assert.deepEqual([root?.key, root?.certain], ['mounts', false]);
    assert.match(root!.text, /a hint from its output\): the root filesystem is read-only; write under \/tmp or HOME \(\/home\/sandbox\) or the working directory \(\/workspace\), or mount a folder/);
    const ws = sandboxRule('exited', 1, profile, { readOnlyWrite: { kind: 'mount', target: '/ws' }, workspaceTarget: '/ws' });
    assert.deepEqual([ws?.key, ws?.certain], ['workspace', false]);
    assert.match(ws!.text, /workspace folder is mounted read-only at \/ws/);
    const m = sandboxRule('exited', 2, profile, { readOnlyWrite: { kind: 'mount', target: '/data' } });
    assert.match(m!.text, /the mount at \/data is read-only; set its "mode" to "rw"/);
    assert.equal(sandboxRule('exited', 0, profile, { readOnlyWrite: { kind: 'root' } }), undefined);
    assert.equal(sandboxRule('cancelled', 1, profile, { readOnlyWrite: { kind: 'root' } }), undefined);
  });
});
