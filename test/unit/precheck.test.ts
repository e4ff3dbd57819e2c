/* eslint-disable @typescript-eslint/no-explicit-any -- the tests edit inspect JSON freely, as an engine could return it */
import assert from 'node:assert/strict';
import { containerProblems, containerRefusedError } from '../../src/core/admission/precheck';
import { devString, parseMountinfo } from '../../src/core/admission/mountProof';
import { MiB } from '../../src/core/layout';
import { parseStatus, podmanFloorProblems } from '../../src/core/engine/podman/podmanProof';
import { PODMAN_NPROC, type ResolvedMount } from '../../src/core/container/argv';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import type { ContainerInspect, ImageInspect } from '../../src/core/engine/contracts';
import type { EngineSpec } from '../../src/core/engine/podman/engineSpec';

const profile = ProfileSchema.parse({ image: 'img', command: ['python3', '${file}'], env: { PYTHONUNBUFFERED: '1' } });
const mounts: ResolvedMount[] = [{ source: '/srv/p', target: '/data', readOnly: true, pinned: '/proc/1/fd/3/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }];
const image: ImageInspect = { Id: 'sha256:1', Config: { Env: ['PATH=/usr/bin:/bin', 'LANG=C.UTF-8'] } };

/** The inspect JSON of a container exactly as asked for (shape of docker 20.10's `docker inspect`). */
function good(): ContainerInspect {
  const l = profile.limits;
  return {
    Image: 'sha256:1',
    State: { Status: 'running', Pid: 42 },
    Config: {
      User: '65534:65534',
      Env: [
        'HOME=/home/sandbox', 'XDG_CACHE_HOME=/home/sandbox/.cache', 'TMPDIR=/tmp', 'PYTHONUNBUFFERED=1', 'TINI_KILL_PROCESS_GROUP=1',
        'HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'FTP_PROXY', 'ftp_proxy', 'NO_PROXY', 'no_proxy', 'ALL_PROXY', 'all_proxy',
        'PATH=/usr/bin:/bin', 'LANG=C.UTF-8',
      ],
    },
    HostConfig: {
      Memory: l.memoryMiB * MiB, MemorySwap: l.memoryMiB * MiB, NanoCpus: l.cpus * 1e9, PidsLimit: l.pids, ShmSize: l.shmMiB * MiB,
      Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }, { Name: 'core', Soft: 0, Hard: 0 }, { Name: 'fsize', Soft: l.fileSizeMiB * MiB, Hard: l.fileSizeMiB * MiB }],
      ReadonlyRootfs: true, Privileged: false, CapDrop: ['ALL'], CapAdd: null, SecurityOpt: ['no-new-privileges'],
      NetworkMode: 'none', IpcMode: 'private', CgroupnsMode: 'private', Init: true, PidMode: '', UTSMode: '', UsernsMode: '', Devices: [],
      Binds: null, VolumesFrom: null,
      Tmpfs: {
        '/tmp': `rw,noexec,nosuid,nodev,size=${l.tmpfsMiB}m`,
        '/home/sandbox': `rw,noexec,nosuid,nodev,size=${l.tmpfsMiB}m,uid=65534,gid=65534,mode=0700`,
        '/workspace': `rw,exec,nosuid,nodev,size=${l.tmpfsMiB}m,uid=65534,gid=65534,mode=0700`,
        '/sandbox': `rw,exec,nosuid,nodev,size=${l.tmpfsMiB}m,uid=65534,gid=65534,mode=0700`,
      },
    },
    Mounts: [{ Type: 'volume', Name: 'abc', Source: '/var/lib/docker/volumes/abc/_data', Destination: '/data', Driver: 'local', RW: false }],
  };
}

/** `good()` with a change made to it. */
function changed(edit: (c: { -readonly [K in keyof ContainerInspect]: any }) => void): ContainerInspect {
  const c = structuredClone(good()) as { -readonly [K in keyof ContainerInspect]: any };
  edit(c);
  return c;
}

const problems = (c: ContainerInspect, img: ImageInspect = image) => containerProblems(c, img, { profile, mounts });

describe('pre-code container checks (unit)', () => {
  it('a container exactly as asked for has no problem', () => {
    assert.deepEqual(problems(good()), []);
  });

  it('refuses each limit or privilege the engine dropped or changed in HostConfig', () => {
    const cases: [string, (c: any) => void, RegExp][] = [
      ['swap limit discarded', (c) => (c.HostConfig.MemorySwap = -1), /MemorySwap is -1.*swap off/],
      ['memory limit discarded', (c) => (c.HostConfig.Memory = 0), /Memory is 0/],
      ['cpus dropped', (c) => (c.HostConfig.NanoCpus = 0), /NanoCpus/],
      ['pids limit dropped', (c) => (c.HostConfig.PidsLimit = null), /PidsLimit is null/],
      ['shm size', (c) => (c.HostConfig.ShmSize = 67108864 * 2), /ShmSize/],
      ['writable root', (c) => (c.HostConfig.ReadonlyRootfs = false), /ReadonlyRootfs/],
      ['privileged', (c) => (c.HostConfig.Privileged = true), /Privileged/],
      ['capabilities kept', (c) => (c.HostConfig.CapDrop = []), /CapDrop lacks ALL/],
      ['capability added', (c) => (c.HostConfig.CapAdd = ['NET_RAW']), /CapAdd/],
      ['no-new-privileges missing', (c) => (c.HostConfig.SecurityOpt = ['seccomp=unconfined']), /no-new-privileges/],
      ['host network', (c) => (c.HostConfig.NetworkMode = 'host'), /NetworkMode/],
      ['host ipc', (c) => (c.HostConfig.IpcMode = 'host'), /IpcMode/],
      ['host cgroupns', (c) => (c.HostConfig.CgroupnsMode = 'host'), /CgroupnsMode/],
      ['no init', (c) => (c.HostConfig.Init = false), /Init/],
      ['host pid', (c) => (c.HostConfig.PidMode = 'host'), /PidMode/],
      ['a device', (c) => (c.HostConfig.Devices = [{ PathOnHost: '/dev/kmsg' }]), /Devices/],
      ['ulimits lost', (c) => (c.HostConfig.Ulimits = []), /Ulimits lacks nofile/],
      ['fsize ulimit changed', (c) => (c.HostConfig.Ulimits[2].Hard = -1), /fsize/],
      ['tmpfs missing', (c) => delete c.HostConfig.Tmpfs['/tmp'], /Tmpfs lacks \/tmp/],
      ['no HostConfig at all', (c) => delete c.HostConfig, /Memory is null/],
    ];
    for (const [what, edit, re] of cases) {
      const found = problems(changed(edit));
      assert.ok(found.length > 0, what);
      assert.equal(found[0]!.code, 'limits-unsupported', what);
      assert.match(found.map((p) => p.text).join('\n'), re, what);
    }
  });

  it('refuses a weaker container that keeps every limit: another user, added groups, unconfined security options, tmpfs options (attack)', () => {
    // What a CLI wrapper, shim or engine default (Podman's containers.conf) could add beside the
    // floor's flags without dropping any of them; each one weakens the sandbox.
    const cases: [string, (c: any) => void, RegExp][] = [
      ['root user', (c) => (c.Config.User = '0:0'), /Config.User/],
      ['user dropped (image default)', (c) => delete c.Config.User, /Config.User/],
      ['root group added', (c) => (c.HostConfig.GroupAdd = ['0']), /GroupAdd/],
      ['seccomp unconfined beside no-new-privileges', (c) => c.HostConfig.SecurityOpt.push('seccomp=unconfined'), /seccomp=unconfined/],
      ['apparmor unconfined', (c) => c.HostConfig.SecurityOpt.push('apparmor=unconfined'), /apparmor=unconfined/],
      ['SELinux labels off', (c) => c.HostConfig.SecurityOpt.push('label=disable'), /label=disable/],
      ['system paths unmasked', (c) => c.HostConfig.SecurityOpt.push('systempaths=unconfined'), /systempaths=unconfined/],
      ['/tmp allows exec', (c) => (c.HostConfig.Tmpfs['/tmp'] = 'rw,nosuid,nodev,size=64m'), /Tmpfs has \/tmp/],
      ['HOME noexec undone', (c) => (c.HostConfig.Tmpfs['/home/sandbox'] += ',exec'), /Tmpfs has \/home\/sandbox/],
      ['workdir tmpfs unbounded', (c) => (c.HostConfig.Tmpfs['/workspace'] = 'rw,exec,nosuid,nodev'), /Tmpfs has \/workspace/],
      ['setuid allowed on /sandbox', (c) => (c.HostConfig.Tmpfs['/sandbox'] += ',suid'), /Tmpfs has \/sandbox/],
    ];
    for (const [what, edit, re] of cases) {
      const found = problems(changed(edit));
      assert.ok(found.length > 0, what);
      assert.match(found.map((p) => p.text).join('\n'), re, what);
    }
    assert.deepEqual(problems(changed((c) => (c.HostConfig.GroupAdd = []))), [], 'an empty GroupAdd is fine');
  });

  it('refuses an image volume (it shows in Mounts), an unasked mount, a missing or writable own mount, and Binds', () => {
    const volume = problems(changed((c) => c.Mounts.push({ Type: 'volume', Destination: '/var/lib/x', Driver: 'local', RW: true })));
    assert.deepEqual(volume.map((p) => p.code), ['image-has-volumes']);
    assert.match(volume[0]!.text, /\/var\/lib\/x/);
    const bind = problems(changed((c) => c.Mounts.push({ Type: 'bind', Source: '/etc', Destination: '/etc2', RW: false })));
    assert.deepEqual(bind.map((p) => p.code), ['container-refused']);
    assert.match(problems(changed((c) => (c.Mounts = [])))[0]!.text, /mount at \/data is missing/);
    const plain = [{ source: '/srv/p', target: '/data', readOnly: true }];
    assert.match(containerProblems(changed((c) => (c.Mounts[0].RW = true)), image, { profile, mounts: plain })[0]!.text, /\/data is writable/);
    // A pinned mount's read-only flag lives in its volume options (RW shows true): proved from mountinfo instead.
    assert.deepEqual(problems(changed((c) => (c.Mounts[0].RW = true))), []);
    assert.match(problems(changed((c) => (c.HostConfig.Binds = ['/:/host'])))[0]!.text, /Binds/);
  });

  it('refuses an environment variable added or changed by the engine or client, and allows the engine constants', () => {
    const proxy = problems(changed((c) => c.Config.Env.push('HTTPS_PROXY=http://proxy:3128')));
    assert.deepEqual(proxy.map((p) => p.code), ['container-refused']);
    assert.match(proxy[0]!.text, /"HTTPS_PROXY"/);
    assert.equal(problems(changed((c) => c.Config.Env.push('EXTRA=1'))).length, 1, 'unknown variable');
    assert.equal(problems(changed((c) => (c.Config.Env[3] = 'PYTHONUNBUFFERED=0'))).length, 1, 'profile value changed');
    assert.equal(problems(changed((c) => (c.Config.Env[16] = 'LANG=C'))).length, 1, 'image value changed');
    assert.equal(problems(changed((c) => (c.Config.Env[4] = 'TINI_KILL_PROCESS_GROUP'))).length, 1, 'a floor variable unset');
    // Docker adds PATH only when the image has none; Podman's TERM/container (flags lost) and a
    // HOSTNAME are additions on Docker.
    assert.equal(problems(changed((c) => c.Config.Env.push('container=podman', 'TERM=xterm', 'HOSTNAME=abc123'))).length, 3);
    assert.equal(problems(changed((c) => c.Config.Env.push('TERM=vt100'))).length, 1, 'a constant with another value');
    const noPath: ImageInspect = { Config: { Env: ['LANG=C.UTF-8'] } };
    const withDefault = changed((c) => (c.Config.Env[15] = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'));
    assert.deepEqual(problems(withDefault, noPath), []);
    assert.equal(problems(withDefault).length, 1, 'the default PATH is not allowed over the image\'s own');
  });

  it('direct path: the snippet directory\'s read-only bind replaces the /sandbox tmpfs, and nothing else changes', () => {
    const snippetBind = { source: '/tmp/sandbox-runner-abc', target: '/sandbox', readOnly: true };
    const direct = changed((c) => {
      delete c.HostConfig.Tmpfs['/sandbox'];
      c.Mounts.push({ Type: 'bind', Source: '/tmp/sandbox-runner-abc', Destination: '/sandbox', RW: false });
    });
    assert.deepEqual(containerProblems(direct, image, { profile, mounts, snippetBind }), []);
    assert.match(problems(direct).map((p) => p.text).join('\n'), /Tmpfs lacks \/sandbox[\s\S]*bind the run did not ask for is mounted at \/sandbox/);
    const writable = changed((c) => c.Mounts.push({ Type: 'bind', Destination: '/sandbox', RW: true }));
    assert.match(containerProblems(writable, image, { profile, mounts, snippetBind })[0]!.text, /\/sandbox is writable/);
  });

  it('words the error by the first problem: one sentence what happened, one what to do', () => {
    const e = containerRefusedError(problems(changed((c) => c.Config.Env.push('EXTRA=1'))), 'img');
    assert.equal(e.code, 'container-refused');
    assert.match(e.message, /differs from what the sandbox asked for .*"EXTRA".*nothing was run\.$/);
    assert.match(e.fix, /^Remove the engine or client setting/);
    const v = containerRefusedError(problems(changed((c) => c.Mounts.push({ Type: 'volume', Destination: '/v', RW: true }))), 'img');
    assert.equal(v.code, 'image-has-volumes');
    assert.match(v.message, /The image "img" declares volumes .*\/v/);
    assert.equal(containerRefusedError(problems(changed((c) => (c.HostConfig.MemorySwap = -1))), 'img').code, 'limits-unsupported');
  });

  it('reads mountinfo (octal escapes) and st_dev as major:minor', () => {
    const lines = parseMountinfo('36 35 98:0 /mnt1 /mnt\\040x rw,noatime master:1 - ext3 /dev/root rw\n37 35 0:52 / /data ro,relatime - tmpfs t rw\n');
    assert.deepEqual(lines.map((l) => [l.dev, l.mountPoint, l.options.includes('ro')]), [['98:0', '/mnt x', false], ['0:52', '/data', true]]);
    assert.equal(devString(0x0803), '8:3');
    assert.equal(devString(52), '0:52');
    assert.equal(devString(0x10300), '259:0');
  });
});

describe('pre-code container checks on Podman (unit)', () => {
  const engine: EngineSpec = { engine: 'podman', seccompProfile: '/tmp/e/seccomp-0.json', initPath: '/usr/bin/catatonit' };
  /** `good()` as Podman 4.3 shows the same run (measured with the runner's argv, no profile mounts). */
  function podmanGood(): any {
    const c = structuredClone(good()) as any;
    const l = profile.limits;
    c.Config.Hostname = 'a1b2c3';
    c.Config.Env.push('HOSTNAME=a1b2c3');
    c.Config.Entrypoint = '/run/sandbox-runner-init';
    c.Config.Cmd = ['-g', '--', 'sh', '-c', 'launcher'];
    Object.assign(c.HostConfig, {
      IpcMode: 'shareable', CgroupMode: 'private', PidMode: 'private', UTSMode: 'private', Runtime: 'oci',
      CapDrop: ['CAP_CHOWN', 'CAP_KILL'], SecurityOpt: ['no-new-privileges', 'seccomp=/tmp/e/seccomp-0.json'],
      Ulimits: [
        { Name: 'RLIMIT_NOFILE', Soft: 1024, Hard: 1024 }, { Name: 'RLIMIT_CORE', Soft: 0, Hard: 0 },
        { Name: 'RLIMIT_FSIZE', Soft: l.fileSizeMiB * MiB, Hard: l.fileSizeMiB * MiB }, { Name: 'RLIMIT_NPROC', Soft: PODMAN_NPROC, Hard: PODMAN_NPROC },
      ],
      Binds: ['/usr/bin/catatonit:/run/sandbox-runner-init:ro,rprivate,rbind'],
    });
    delete c.HostConfig.Init;
    delete c.HostConfig.CgroupnsMode;
    c.Mounts = [{ Type: 'bind', Source: '/usr/bin/catatonit', Destination: '/run/sandbox-runner-init', RW: false }];
    return c;
  }
  const pm = (c: any) => containerProblems(c, image, { profile, mounts: [], engine });
  const edited = (edit: (c: any) => void) => {
    const c = podmanGood();
    edit(c);
    return pm(c);
  };

  it('a Podman container exactly as asked for has no problem; the same JSON fails the Docker checks', () => {
    assert.deepEqual(pm(podmanGood()), []);
    const asDocker = containerProblems(podmanGood(), image, { profile, mounts: [] }).map((p) => p.text).join('\n');
    assert.match(asDocker, /Init is null[\s\S]*CapDrop lacks ALL[\s\S]*Binds is not empty[\s\S]*"HOSTNAME"/);
  });

  it('refuses each Podman floor item that is missing or changed', () => {
    const cases: [string, (c: any) => void, RegExp][] = [
      ['host IPC', (c) => (c.HostConfig.IpcMode = 'host'), /IpcMode/],
      ['host cgroup namespace', (c) => (c.HostConfig.CgroupMode = 'host'), /CgroupMode/],
      ['host pid', (c) => (c.HostConfig.PidMode = 'host'), /PidMode/],
      ['Podman --init instead of catatonit -g', (c) => (c.HostConfig.Init = true), /Init is true/],
      ['entrypoint lost', (c) => (c.Config.Entrypoint = 'sh'), /Entrypoint/],
      ['catatonit without -g', (c) => (c.Config.Cmd = ['--', 'sh']), /Entrypoint/],
      ['default seccomp', (c) => (c.HostConfig.SecurityOpt = ['no-new-privileges']), /seccomp profile/],
      ['capability added', (c) => (c.HostConfig.CapAdd = ['CAP_SYS_ADMIN']), /CapAdd/],
      ['nproc lost', (c) => c.HostConfig.Ulimits.pop(), /nproc=32768/],
      ['fsize lost', (c) => (c.HostConfig.Ulimits[2].Soft = 0), /fsize/],
      ['init bind writable', (c) => (c.Mounts[0].RW = true), /sandbox-runner-init is writable/],
      ['init bind from elsewhere', (c) => (c.Mounts[0].Source = '/tmp/evil'), /is not \/usr\/bin\/catatonit/],
      ['init bind missing', (c) => (c.Mounts = []), /sandbox-runner-init is missing/],
      ['another bind', (c) => c.HostConfig.Binds.push('/etc:/x:ro,rbind'), /Binds is not empty/],
      ['TERM kept', (c) => c.Config.Env.push('TERM=xterm'), /"TERM"/],
      ['container kept', (c) => c.Config.Env.push('container=podman'), /"container"/],
      ['another HOSTNAME', (c) => (c.Config.Env[c.Config.Env.length - 1] = 'HOSTNAME=other'), /"HOSTNAME"/],
    ];
    for (const [what, edit, text] of cases) assert.match(edited(edit).map((p) => p.text).join('\n'), text, what);
  });

  it('an image volume Podman lists in Binds is refused as image-has-volumes', () => {
    const p = edited((c) => {
      c.HostConfig.Binds.push('0123abcd:/data:rprivate,rw,nodev,exec,nosuid,rbind');
      c.Mounts.push({ Type: 'volume', Name: '0123abcd', Destination: '/data', RW: true });
    });
    assert.deepEqual(p.map((x) => x.code), ['image-has-volumes']);
  });

  it('the /proc proof refuses a process that is not a fresh container (this test process)', async () => {
    assert.equal(parseStatus('CapBnd:\t0000000000000000\nNoNewPrivs:\t1\n').get('NoNewPrivs'), '1');
    const text = (await podmanFloorProblems(process.pid)).join('\n');
    for (const ns of ['ipc', 'pid', 'uts', 'cgroup', 'net', 'mnt']) assert.match(text, new RegExp(`${ns} namespace is not its own`));
    assert.match(text, /NoNewPrivs is "0"|Seccomp is "0"/);
    assert.match((await podmanFloorProblems(2 ** 30)).join('\n'), /CapBnd is null/, 'a pid that does not exist proves nothing');
  });
});
