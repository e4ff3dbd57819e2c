import assert from 'node:assert/strict';
import { buildCreateArgv, buildRunArgv, type ContainerSpec, DOCKER_CLIENT_PROXY_VARS } from '../../src/core/container/argv';
import { engineWorkDir } from '../../src/core/engine/workDir';
import { isSandboxError } from '../../src/core/errors';
import { LAUNCHER } from '../../src/core/container/launcher';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { programArgv } from '../../src/core/container/programArgv';
import { SPAWN_OPTIONS, spawnOptions } from '../../src/core/engine/spawnEnv';
import { profileOf } from '../support/profiles';

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
  it('emits the whole isolation floor for a default profile, exactly: one `docker run -i`, the code over stdin', () => {
    const argv = buildRunArgv(spec({ image: 'python:3.12-slim', command: ['python3', '${file}'], env: { PYTHONUNBUFFERED: '1' } }));
    assert.deepEqual(argv, [
      'run', '--interactive', '--sig-proxy=false',
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
      // exec: a shebang snippet may be the command itself; written by the launcher from stdin.
      '--tmpfs', '/sandbox:rw,exec,nosuid,nodev,size=64m,uid=65534,gid=65534,mode=0700',
      '--workdir', '/workspace',
      '--env', 'HOME=/home/sandbox',
      '--env', 'XDG_CACHE_HOME=/home/sandbox/.cache',
      '--env', 'TMPDIR=/tmp',
      '--env', 'PYTHONUNBUFFERED=1',
      '--env', 'TINI_KILL_PROCESS_GROUP=1',
      // Docker client proxies (the CLI's config.json): named without a value, so the CLI adds none.
      '--env', 'HTTP_PROXY', '--env', 'http_proxy', '--env', 'HTTPS_PROXY', '--env', 'https_proxy',
      '--env', 'FTP_PROXY', '--env', 'ftp_proxy', '--env', 'NO_PROXY', '--env', 'no_proxy',
      '--env', 'ALL_PROXY', '--env', 'all_proxy',
      '--label', 'sandbox-runner=1',
      '--label', 'sandbox-runner.run-id=r1',
      '--entrypoint', 'sh',
      '--',
      'python:3.12-slim',
      '-c', LAUNCHER, '/sandbox/main.py',
      'python3', '/sandbox/main.py',
    ]);
    assert.equal(argv.includes('--rm'), false, 'the runner removes the container itself, after reading its state');
    assert.equal(argv.some((a) => a.startsWith('type=bind')), false, 'no host directory for the snippet');
  });

  it('runs the command directly, without the launcher, for images without sh: create, the snippet bind-mounted read-only, same floor', () => {
    const s = spec({ image: 'img', command: ['python3', '${file}'] });
    const argv = buildCreateArgv(s);
    assert.deepEqual(argv.slice(argv.indexOf('--') - 2), ['--entrypoint', '', '--', 'img', 'python3', '/sandbox/main.py']);
    assert.equal(argv[0], 'create');
    assert.ok(argv.includes('type=bind,src=/tmp/sandbox-runner-abc,dst=/sandbox,readonly'));
    const floor = (a: readonly string[]) => a.slice(0, a.indexOf('--entrypoint')).filter((x) => !x.includes('/sandbox') && !['--interactive', '--sig-proxy=false', '--mount', '--tmpfs', 'run', 'create'].includes(x));
    assert.deepEqual(floor(argv), floor(buildRunArgv(s)));
  });

  it('maps tightened limits, bridge network, mounts, user and runtime to their flags', () => {
    const argv = buildRunArgv(
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
    assert.ok(joined.endsWith(`--runtime runsc --entrypoint sh -- img -c ${LAUNCHER} /sandbox/main.sh sh -c cat "$1" sh /sandbox/main.sh`));
  });

  it('never lets profile values become flags: the image follows "--" and env is one NAME=VALUE item', () => {
    const argv = buildRunArgv(
      spec({ image: 'img', command: ['${file}', '--privileged'], env: { X: '--network=host; rm -rf /' } }),
    );
    const sep = argv.indexOf('--');
    assert.equal(argv[sep + 1], 'img');
    assert.deepEqual(argv.slice(sep + 2), ['-c', LAUNCHER, '/sandbox/main.py', '/sandbox/main.py', '--privileged']);
    assert.ok(argv.includes('X=--network=host; rm -rf /'));
    assert.equal(argv.filter((a) => a === '--privileged').length, 1);
  });

  it('names every Docker client proxy variable the profile does not set, bare, and keeps the profile\'s own', () => {
    const argv = buildCreateArgv(spec({ image: 'img', command: ['${file}'], env: { HTTPS_PROXY: 'http://mine:8080', no_proxy: '' } }));
    const envs = argv.flatMap((a, i) => (argv[i - 1] === '--env' ? [a] : []));
    for (const name of DOCKER_CLIENT_PROXY_VARS) {
      const own = name === 'HTTPS_PROXY' ? 'HTTPS_PROXY=http://mine:8080' : name === 'no_proxy' ? 'no_proxy=' : name;
      assert.deepEqual(envs.filter((e) => e === name || e.startsWith(`${name}=`)), [own], name);
    }
    // The docker CLI process for that argv runs without those bare names in its environment, so
    // "--env NAME" copies nothing into the container; a profile's NAME=VALUE is untouched.
    process.env.HTTP_PROXY = 'http://host-env:3128';
    try {
      const env = (spawnOptions({ env: { DOCKER_HOST: 'unix:///x.sock' } }, argv) as { env: Record<string, string | undefined> }).env;
      assert.ok(Object.hasOwn(env, 'HTTP_PROXY') && env.HTTP_PROXY === undefined);
      assert.ok(Object.hasOwn(env, 'all_proxy') && env.all_proxy === undefined);
      assert.equal(Object.hasOwn(env, 'HTTPS_PROXY'), false);
      assert.equal(env.DOCKER_HOST, 'unix:///x.sock');
      // Other calls (inspect, rm, attach) keep the CLI environment as it is.
      const { cwd, ...rest } = spawnOptions({}, ['rm', '-f', 'x']) as typeof SPAWN_OPTIONS & { cwd: string; env?: unknown };
      assert.deepEqual(rest, SPAWN_OPTIONS);
      assert.equal(cwd, engineWorkDir());
    } finally {
      delete process.env.HTTP_PROXY;
    }
  });

  it('mounts a pinned directory as a local-driver volume of its /proc/<pid>/fd link, never copying image files into it', () => {
    const argv = buildCreateArgv(spec({ image: 'img', command: ['${file}'] }, {
      mounts: [
        { source: '/home/u/p', target: '/ro', readOnly: true, pinned: '/proc/42/fd/20/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
        { source: '/home/u/q', target: '/rw', readOnly: false, pinned: '/proc/42/fd/20/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' },
      ],
    }));
    assert.ok(argv.includes('type=volume,dst=/ro,volume-nocopy,volume-driver=local,volume-opt=type=none,"volume-opt=o=bind,ro",volume-opt=device=/proc/42/fd/20/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'));
    assert.ok(argv.includes('type=volume,dst=/rw,volume-nocopy,volume-driver=local,volume-opt=type=none,"volume-opt=o=bind",volume-opt=device=/proc/42/fd/20/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'));
    assert.equal(argv.some((a) => a.includes('/home/u/')), false, 'the checked path itself never reaches docker');
  });

  it('refuses, at build time, any value that would break out of the docker syntax it lands in', () => {
    const base = profileOf();
    const forged: Array<[string, Partial<ContainerSpec>]> = [
      ['workdir /tmp:mode=777', { profile: { ...base, workdir: '/tmp:mode=777' } }],
      ['workdir /w,exec', { profile: { ...base, workdir: '/w,exec' } }],
      ['mount target with ":"', { mounts: [{ source: '/srv/p', target: '/d:ro', readOnly: true }] }],
      ['mount target with ","', { mounts: [{ source: '/srv/p', target: '/d,readonly=false', readOnly: true }] }],
      ['mount source with ","', { mounts: [{ source: '/srv/p,dst=/etc', target: '/d', readOnly: true }] }],
      ['mount source with a quote', { mounts: [{ source: '/srv/"p', target: '/d', readOnly: true }] }],
      ['pinned source not a /proc fd link', { mounts: [{ source: '/srv/p', target: '/d', readOnly: true, pinned: '/etc' }] }],
      ['pinned source without its anchor entry', { mounts: [{ source: '/srv/p', target: '/d', readOnly: true, pinned: '/proc/42/fd/21' }] }],
      ['snippet dir with ","', { snippetHostDir: '/tmp/a,dst=/etc' }],
      ['ulimit fsize not a whole number', { profile: { ...base, limits: { ...base.limits, fileSizeMiB: 1.5 } } }],
      ['pids not a whole number', { profile: { ...base, limits: { ...base.limits, pids: Number.NaN } } }],
      ['tmpfs size not a whole number', { profile: { ...base, limits: { ...base.limits, tmpfsMiB: 1e400 } } }],
      ['user with a third field', { profile: { ...base, user: '1:1:1' } }],
      ['env name with "="', { profile: { ...base, env: { 'A=B': 'x' } } }],
      ['label value with a line break', { labels: { 'sandbox-runner.profile': 'a\nb' } }],
      ['label key with "="', { labels: { 'a=b': 'c' } }],
      ['image that is a flag', { profile: { ...base, image: '--privileged' } }],
    ];
    for (const [what, extra] of forged) {
      assert.throws(() => buildCreateArgv(spec({ image: 'img', command: ['${file}'] }, extra)), (e: unknown) => isSandboxError(e) && e.code === 'invalid-profile', what);
    }
  });

  it('replaces every ${file} occurrence inside command items', () => {
    const profile = ProfileSchema.parse({ image: 'i', command: ['run', '--src=${file}', '${file}.out'] });
    assert.deepEqual(programArgv(profile, '/sandbox/main.c'), ['run', '--src=/sandbox/main.c', '/sandbox/main.c.out']);
  });
});

describe('argv builder, launcher (unit)', () => {
  it('the launcher is constant: no profile text inside', () => {
    assert.doesNotMatch(LAUNCHER, /python|main/);
  });
});
