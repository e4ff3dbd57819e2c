import assert from 'node:assert/strict';
import { buildCreateArgv, COLD_LAUNCHER, ProfileSchema, programArgv, WARM_LAUNCHER, type ContainerSpec } from '../../src/core';

const labels = { 'sandbox-runner': '1', 'sandbox-runner.run-id': 'r1' };

function spec(profile: unknown, extra: Partial<ContainerSpec> = {}): ContainerSpec {
  return {
    name: 'sandbox-runner-r1',
    profile: ProfileSchema.parse(profile),
    snippetHostDir: '/tmp/sandbox-runner-abc',
    snippetFileName: 'main.py',
    mounts: [],
    labels,
    ...extra,
  };
}

describe('argv builder (unit)', () => {
  it('emits the whole isolation floor for a default profile, exactly', () => {
    const argv = buildCreateArgv(spec({ image: 'python:3.12-slim', command: ['python3', '${file}'], env: { PYTHONUNBUFFERED: '1' } }));
    assert.deepEqual(argv, [
      'create',
      '--name', 'sandbox-runner-r1',
      '--pull', 'never',
      '--init',
      '--restart', 'no',
      '--no-healthcheck',
      '--log-driver', 'none',
      '--user', '65534:65534',
      '--cap-drop', 'ALL',
      '--security-opt', 'no-new-privileges',
      '--ipc', 'private',
      '--cgroupns', 'private',
      '--network', 'none',
      '--memory', '512m',
      '--memory-swap', '512m',
      '--cpus', '1',
      '--pids-limit', '128',
      '--ulimit', 'nofile=1024:1024',
      '--ulimit', 'core=0:0',
      '--ulimit', 'fsize=16777216:16777216',
      '--shm-size', '64m',
      '--read-only',
      '--tmpfs', '/tmp:rw,noexec,nosuid,nodev,size=64m',
      '--tmpfs', '/home/sandbox:rw,noexec,nosuid,nodev,size=64m,uid=65534,gid=65534,mode=0700',
      '--tmpfs', '/workspace:rw,exec,nosuid,nodev,size=64m,uid=65534,gid=65534,mode=0700',
      '--mount', 'type=bind,src=/tmp/sandbox-runner-abc,dst=/sandbox,readonly',
      '--workdir', '/workspace',
      '--env', 'HOME=/home/sandbox',
      '--env', 'XDG_CACHE_HOME=/home/sandbox/.cache',
      '--env', 'TMPDIR=/tmp',
      '--env', 'PYTHONUNBUFFERED=1',
      '--env', 'TINI_KILL_PROCESS_GROUP=1',
      '--label', 'sandbox-runner=1',
      '--label', 'sandbox-runner.run-id=r1',
      '--',
      'python:3.12-slim',
      'sh', '-c', COLD_LAUNCHER, '/sandbox/main.py',
      'python3', '/sandbox/main.py',
    ]);
  });

  it('runs the command directly, without the launcher, for images without sh', () => {
    const argv = buildCreateArgv(spec({ image: 'img', command: ['python3', '${file}'] }, { launcher: false }));
    assert.deepEqual(argv.slice(argv.indexOf('--')), ['--', 'img', 'python3', '/sandbox/main.py']);
  });

  it('maps tightened limits, bridge network, mounts, user and runtime to their flags', () => {
    const argv = buildCreateArgv(
      spec(
        {
          image: 'img',
          command: ['sh', '-c', 'cat "$1"', 'sh', '${file}'],
          limits: { memoryMiB: 64, cpus: 0.5, pids: 16, fileSizeMiB: 1, tmpfsMiB: 8 },
          network: 'bridge',
          user: '1000:1001',
          workdir: '/src',
          runtime: 'runsc',
        },
        { mounts: [{ source: '/home/u/project', target: '/src', readOnly: false }], snippetFileName: 'main.sh' },
      ),
    );
    const joined = argv.join(' ');
    assert.match(joined, /--network bridge /);
    assert.match(joined, /--memory 64m --memory-swap 64m --cpus 0.5 --pids-limit 16 /);
    assert.match(joined, /--ulimit fsize=1048576:1048576 /);
    assert.match(joined, /--user 1000:1001 /);
    assert.match(joined, /--tmpfs \/tmp:rw,noexec,nosuid,nodev,size=8m /);
    // A bind mount on the workdir replaces its tmpfs, and is writable only because mode is rw.
    assert.doesNotMatch(joined, /--tmpfs \/src/);
    assert.match(joined, /--mount type=bind,src=\/home\/u\/project,dst=\/src --workdir \/src /);
    assert.ok(joined.endsWith(`--runtime runsc -- img sh -c ${COLD_LAUNCHER} /sandbox/main.sh sh -c cat "$1" sh /sandbox/main.sh`));
  });

  it('never lets profile values become flags: the image follows "--" and env is one NAME=VALUE item', () => {
    const argv = buildCreateArgv(
      spec({ image: 'img', command: ['${file}', '--privileged'], env: { X: '--network=host; rm -rf /' } }),
    );
    const sep = argv.indexOf('--');
    assert.equal(argv[sep + 1], 'img');
    assert.deepEqual(argv.slice(sep + 2), ['sh', '-c', COLD_LAUNCHER, '/sandbox/main.py', '/sandbox/main.py', '--privileged']);
    assert.ok(argv.includes('X=--network=host; rm -rf /'));
    assert.equal(argv.filter((a) => a === '--privileged').length, 1);
  });

  it('replaces every ${file} occurrence inside command items', () => {
    const profile = ProfileSchema.parse({ image: 'i', command: ['run', '--src=${file}', '${file}.out'] });
    assert.deepEqual(programArgv(profile, '/sandbox/main.c'), ['run', '--src=/sandbox/main.c', '/sandbox/main.c.out']);
  });
});

describe('argv builder, warm delivery (unit)', () => {
  it('replaces the snippet bind mount by an interactive tmpfs and wraps the command in the constant launcher', () => {
    const cold = buildCreateArgv(spec({ image: 'img', command: ['python3', '${file}'] }));
    const warm = buildCreateArgv(spec({ image: 'img', command: ['python3', '${file}'] }, { delivery: 'stdin' }));
    const sep = warm.indexOf('--');
    assert.deepEqual(warm.slice(sep), ['--', 'img', 'sh', '-c', WARM_LAUNCHER, '/sandbox/main.py', 'python3', '/sandbox/main.py']);
    for (const launcher of [WARM_LAUNCHER, COLD_LAUNCHER]) assert.doesNotMatch(launcher, /python|main/, 'the launcher is constant: no profile text inside');
    assert.ok(warm.includes('--interactive'));
    // exec: a shebang snippet may be the command itself, as on the cold path's bind mount.
    assert.ok(warm.includes('/sandbox:rw,exec,nosuid,nodev,size=64m,uid=65534,gid=65534,mode=0700'));
    assert.equal(warm.some((a) => a.startsWith('type=bind')), false);
    // Everything else of the floor is identical to the cold path.
    const floor = (argv: readonly string[]) => argv.slice(0, argv.indexOf('--')).filter((a) => !a.includes('/sandbox') && a !== '--interactive' && a !== '--mount' && a !== '--tmpfs');
    assert.deepEqual(floor(warm), floor(cold));
  });
});
