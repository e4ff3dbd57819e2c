import assert from 'node:assert/strict';
import { cgroupNamesContainer, hostPidOf, runscGoferPid, statCommAndParent } from '../../src/core/engine/hostPid';

const ID = 'a'.repeat(8) + '0123456789abcdef'.repeat(3) + 'b'.repeat(8);

describe('host pid of a container (unit)', () => {
  it('accepts a /proc/<pid>/cgroup text that names the full container ID (docker cgroupfs, systemd, Podman, cgroup v2)', () => {
    assert.equal(cgroupNamesContainer(`12:pids:/docker/${ID}\n11:memory:/docker/${ID}\n`, ID), true);
    assert.equal(cgroupNamesContainer(`1:name=systemd:/system.slice/docker-${ID}.scope\n`, ID), true);
    assert.equal(cgroupNamesContainer(`0::/machine.slice/libpod-${ID}.scope/container\n`, ID), true);
    assert.equal(cgroupNamesContainer(`7:pids:/sandbox-runner-engine2/${ID}\n`, ID), true);
  });

  it('refuses another process\'s cgroup, a longer or shorter hex word, a short ID, and malformed text', () => {
    assert.equal(cgroupNamesContainer('12:pids:/\n0::/init.scope\n', ID), false, 'a host process (engine 2\'s pid number on the host)');
    assert.equal(cgroupNamesContainer(`12:pids:/docker/f${ID}\n`, ID), false);
    assert.equal(cgroupNamesContainer(`12:pids:/docker/${ID}0\n`, ID), false);
    assert.equal(cgroupNamesContainer(`12:pids:/docker/${ID}\n`, ID.slice(0, 12)), false, 'a short ID proves nothing');
    assert.equal(cgroupNamesContainer(`12:pids:/docker/${ID}\n`, ''), false);
    assert.equal(cgroupNamesContainer(`${ID}\n`, ID), false, 'not a cgroup line');
    assert.equal(cgroupNamesContainer(`12:pids:/docker/${ID.toUpperCase()}\n`, ID), false);
  });

  it('gives 0 for no pid, and for this very process (its cgroup does not name the container)', async () => {
    assert.equal(await hostPidOf(ID, 0), 0);
    assert.equal(await hostPidOf(ID, -1), 0);
    assert.equal(await hostPidOf(ID, process.pid), 0);
  });

  it('reads comm and parent pid from /proc/<pid>/stat, a comm with spaces and parentheses included', () => {
    assert.deepEqual(statCommAndParent('1944 (runsc-sandbox) S 1890 1944 1890 0 -1 4194560'), { comm: 'runsc-sandbox', ppid: 1890 });
    assert.deepEqual(statCommAndParent('7 (a) b) (c) R 6 7 7 0'), { comm: 'a) b) (c', ppid: 6 });
    assert.equal(statCommAndParent(''), undefined);
    assert.equal(statCommAndParent('7 (x) R'), undefined);
  });

  it('looks for a gVisor gofer only when the process is a runsc sandbox (this process is not)', async () => {
    assert.equal(await runscGoferPid(ID, process.pid), undefined);
  });
});
