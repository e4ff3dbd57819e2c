import assert from 'node:assert/strict';
import { discardedLimits, limitsDiscardedError } from '../../src/core/engine/engineFlags';

/** Warnings as the docker CLI prints them on stderr after `docker create` (texts from moby's daemon_unix.go). */
const W = {
  memory: 'WARNING: Your kernel does not support memory limit capabilities or the cgroup is not mounted. Limitation discarded.',
  swap: 'WARNING: Your kernel does not support swap limit capabilities or the cgroup is not mounted. Memory limited without swap.',
  pids: 'WARNING: Your kernel does not support pids limit capabilities or the cgroup is not mounted. PIDs limit discarded.',
  quota: 'WARNING: Your kernel does not support CPU cfs quota or the cgroup is not mounted. Quota discarded.',
  period: 'WARNING: Your kernel does not support CPU cfs period or the cgroup is not mounted. Period discarded.',
  cgroupns: 'WARNING: Your kernel does not support cgroup namespaces.  Cgroup namespace setting discarded.',
  kmem: 'WARNING: Your kernel does not support kernel memory limit capabilities or the cgroup is not mounted. Limitation discarded.',
  blkio: 'WARNING: Your kernel does not support Block I/O weight or the cgroup is not mounted. Weight discarded.',
  swappiness: 'WARNING: Your kernel does not support memory swappiness capabilities or the cgroup is not mounted. Memory swappiness discarded.',
};

describe('engine warnings on docker create (unit)', () => {
  it('names the profile limit of each discarded-limit warning', () => {
    const expected: Record<keyof typeof W, RegExp> = {
      memory: /^limits\.memoryMiB \(--memory\)$/,
      swap: /^limits\.memoryMiB \(swap off/,
      pids: /^limits\.pids/,
      quota: /^limits\.cpus/,
      period: /^limits\.cpus/,
      cgroupns: /cgroupns private/,
      kmem: /kernel memory/,
      blkio: /block I\/O/,
      swappiness: /^limits\.memoryMiB/,
    };
    for (const [k, line] of Object.entries(W)) {
      const d = discardedLimits(`${line}\n`);
      assert.equal(d.length, 1, k);
      assert.match(d[0]!.limit, expected[k as keyof typeof W], k);
      assert.equal(`WARNING: ${d[0]!.warning}`, line);
      assert.ok(d[0]!.fix.length > 20, k);
    }
  });

  it('finds every warning among other stderr lines (CRLF too), and the error names them all', () => {
    const stderr = `some progress line\r\n${W.swap}\r\n${W.pids}\n`;
    const d = discardedLimits(stderr);
    assert.deepEqual(d.map((x) => x.limit.split(' ')[0]), ['limits.memoryMiB', 'limits.pids']);
    const e = limitsDiscardedError(d);
    assert.equal(e.code, 'limits-unsupported');
    assert.match(e.message, /cannot enforce limits\.memoryMiB \(swap off: --memory-swap\), limits\.pids \(--pids-limit\) on this host/);
    assert.match(e.message, /Memory limited without swap/);
    assert.match(e.fix, /swapaccount=1/);
    assert.equal(e.detail, `${W.swap}\n${W.pids}`);
  });

  it('fails closed on an unknown warning that says something was discarded or unsupported', () => {
    const d = discardedLimits('WARNING: Your kernel does not support frobnication. Frob limit discarded.\n');
    assert.equal(d.length, 1);
    assert.equal(d[0]!.limit, 'an isolation setting');
    assert.equal(discardedLimits('WARNING: the new thing is unsupported on this host\n').length, 1);
  });

  it('ignores warnings that weaken nothing, and non-warning text', () => {
    for (const harmless of [
      'WARNING: IPv4 forwarding is disabled. Networking will not work.',
      "WARNING: The requested image's platform (linux/arm64) does not match the detected host platform (linux/amd64) and no specific platform was requested",
      'WARNING: Specifying a kernel memory limit is deprecated and will be removed in a future release.',
      'Your kernel does not support swap limit capabilities (not a WARNING line, e.g. program text)',
      '',
      '3f1c0a9e…',
    ]) {
      assert.deepEqual(discardedLimits(harmless), [], harmless);
    }
  });

  it('on Podman, counts bare lines too (podman create prints the engine text without WARNING:)', () => {
    // Measured: Podman 4.3 `create --blkio-weight 100` on this kernel.
    const bare = 'Your kernel does not support Block I/O weight or the cgroup is not mounted. Weight discarded.';
    assert.deepEqual(discardedLimits(`${bare}\n`), [], 'docker: not a WARNING line');
    const d = discardedLimits(`${bare}\n`, { bareLines: true });
    assert.equal(d.length, 1);
    assert.match(d[0]!.limit, /block I\/O/);
    assert.equal(d[0]!.warning, bare);
    assert.deepEqual(discardedLimits('0a056d8299c1\n', { bareLines: true }), []);
  });
});
