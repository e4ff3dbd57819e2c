import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCreateArgv, buildRunArgv, type ContainerSpec, PODMAN_INIT, PODMAN_NPROC } from '../../src/core/container/argv';
import { CLONE_NEW_FLAGS, gateNamespaceCalls, type SeccompProfile } from '../../src/core/engine/podman/podmanSeccomp';
import { conmonSawOom, engineWorkDir } from '../../src/core/engine/workDir';
import { engineSpec } from '../../src/core/engine/podman/engineSpec';
import { isSandboxError } from '../../src/core/errors';
import { parseEngineKind, parseVersionFlag } from '../../src/core/engine/engineKind';
import { ProfileSchema } from '../../src/core/profiles/profileSchema';
import { spawnOptions } from '../../src/core/engine/spawnEnv';

const SECCOMP = '/tmp/sandbox-runner-engine-x/seccomp-0.json';
const INIT = '/usr/bin/catatonit';
const PODMAN = { engine: 'podman', seccompProfile: SECCOMP, initPath: INIT } as const;

/** The flags a Podman argv adds after `--read-only`, in order, and what each holds of the floor (argv.ts `podmanFlags`). */
const PODMAN_ADDED: ReadonlyArray<readonly [flags: readonly string[], holds: string]> = [
  [['--security-opt', `seccomp=${SECCOMP}`], 'namespace creation gated as Docker\'s default profile does'],
  [['--read-only-tmpfs=false'], 'no writable tmpfs on /run, /tmp and /var/tmp'],
  [['--http-proxy=false'], 'none of the host\'s proxy variables'],
  [['--unsetenv', 'TERM'], 'no TERM that Docker would not set'],
  [['--unsetenv', 'container'], 'no `container` variable that Docker would not set'],
  [['--ulimit', `nproc=${PODMAN_NPROC}:${PODMAN_NPROC}`], 'an nproc Podman can set without CAP_SYS_RESOURCE'],
];

function spec(extra: Partial<ContainerSpec> = {}, profile: Record<string, unknown> = {}): ContainerSpec {
  return {
    name: 'sandbox-runner-r1',
    profile: ProfileSchema.parse({ image: 'img', command: ['sh', '${file}'], ...profile }),
    snippetHostDir: '/tmp/sandbox-runner-abc',
    snippetFileName: 'main.sh',
    mounts: [],
    labels: { 'sandbox-runner': '1' },
    ...extra,
  };
}

/** The values of every `flag VALUE` pair in `argv` before `--`. */
function values(argv: readonly string[], flag: string): string[] {
  const end = argv.indexOf('--');
  return argv.slice(0, end < 0 ? argv.length : end).flatMap((a, i, all) => (all[i - 1] === flag ? [a] : []));
}

describe('engine kind (unit)', () => {
  it('tells Podman from the docker CLI by what `--version` and `version` print, never by the name', () => {
    assert.equal(parseVersionFlag('Docker version 20.10.24+dfsg1, build 297e128\n'), 'docker');
    assert.equal(parseVersionFlag('Docker version 28.2.2, build e6534b4\n'), 'docker');
    assert.equal(parseVersionFlag('podman version 4.3.1\n'), 'podman');
    // A `docker` symlink to podman (measured) says neither: `version` decides.
    assert.equal(parseVersionFlag('docker version 4.3.1\n'), undefined);
    assert.equal(parseEngineKind('Client:       Podman Engine\nVersion:      4.3.1\nAPI Version:  4.3.1\n'), 'podman');
    assert.equal(parseEngineKind('Client:\n Version:           20.10.24+dfsg1\n API version:       1.41\n\nServer:\n Engine:\n'), 'docker');
    assert.equal(parseEngineKind('Client: Docker Engine - Community\n Version:    28.2.2\n\nServer: Podman Engine\n'), 'docker');
    assert.equal(parseEngineKind(''), 'docker');
  });
});

describe('argv for Podman (unit)', () => {
  it('adds the flags Podman needs for the same floor after --read-only, and changes nothing else', () => {
    const docker = buildRunArgv(spec());
    const podman = buildRunArgv(spec(PODMAN));
    const at = docker.indexOf('--read-only') + 1;
    const expected = [
      ...docker.slice(0, at),
      ...PODMAN_ADDED.flatMap(([flags]) => flags),
      ...docker.slice(at),
    ].map((a) => a.replace(',uid=65534,gid=65534,', ',U,'));
    // `--init` → catatonit bind-mounted read-only as the entrypoint, run with -g, then the launcher.
    expected.splice(expected.indexOf('--init'), 1, '--mount', `type=bind,src=${INIT},dst=${PODMAN_INIT},readonly`);
    const ep = expected.indexOf('--entrypoint');
    assert.deepEqual(expected.slice(ep, ep + 5), ['--entrypoint', 'sh', '--', 'img', '-c']);
    expected.splice(ep, 4, '--entrypoint', PODMAN_INIT, '--', 'img', '-g', '--', 'sh');
    assert.deepEqual(podman, expected);
    assert.equal(podman.includes('--init'), false);
    for (const flag of ['--read-only-tmpfs=false', '--http-proxy=false', '--unsetenv']) assert.equal(docker.includes(flag), false, flag);
    assert.equal(values(docker, '--ulimit').some((u) => u.startsWith('nproc=')), false);
  });

  it('owns the run\'s tmpfs with `U` on Podman (it refuses uid=/gid=), with uid=/gid= on docker', () => {
    const podman = values(buildRunArgv(spec(PODMAN)), '--tmpfs');
    const docker = values(buildRunArgv(spec()), '--tmpfs');
    assert.equal(podman.length, docker.length);
    for (const t of podman) assert.doesNotMatch(t, /uid=|gid=/, t);
    assert.deepEqual(podman.filter((t) => t.includes(',U,')).map((t) => t.split(':')[0]), ['/home/sandbox', '/workspace', '/sandbox']);
    assert.deepEqual(docker.filter((t) => t.includes('uid=65534,gid=65534')).map((t) => t.split(':')[0]), ['/home/sandbox', '/workspace', '/sandbox']);
    assert.deepEqual(podman.map((t) => t.replace(',U,', ',uid=65534,gid=65534,')), docker);
  });

  it('runs a direct command (no launcher) and the warm launcher under catatonit -g too', () => {
    const direct = buildCreateArgv(spec({ ...PODMAN, snippetHostDir: '/tmp/snippet' }));
    assert.deepEqual(direct.slice(direct.indexOf('--entrypoint')), ['--entrypoint', PODMAN_INIT, '--', 'img', '-g', '--', 'sh', '/sandbox/main.sh']);
    const warm = buildRunArgv(spec(PODMAN));
    assert.deepEqual(warm.slice(warm.indexOf('--entrypoint'), warm.indexOf('--entrypoint') + 8), ['--entrypoint', PODMAN_INIT, '--', 'img', '-g', '--', 'sh', '-c']);
    assert.throws(() => buildRunArgv(spec({ engine: 'podman', seccompProfile: SECCOMP })), (e: unknown) => isSandboxError(e) && /catatonit/.test(e.fix));
  });

  it('refuses mounts on Podman (no pinned source), and a Podman argv without its seccomp profile', () => {
    const mounts = [{ source: '/home/u/data', target: '/data', readOnly: true, pinned: `/proc/1/fd/3/${'a'.repeat(32)}` }];
    assert.throws(() => buildRunArgv(spec({ ...PODMAN, mounts })), (e: unknown) =>
      isSandboxError(e) && e.code === 'invalid-mount' && /Podman cannot pin/.test(e.message) && /\/data/.test(e.message));
    assert.ok(buildRunArgv(spec({ mounts })).length > 0, 'docker keeps its pinned mounts');
    assert.throws(() => buildRunArgv(spec({ engine: 'podman', initPath: INIT })), (e: unknown) => isSandboxError(e) && e.code === 'limits-unsupported');
  });
});

describe('Podman seccomp profile (unit)', () => {
  const base: SeccompProfile = {
    defaultAction: 'SCMP_ACT_ERRNO',
    syscalls: [
      { names: ['read', 'clone', 'clone3', 'mount', 'setns', 'unshare', 'write'], action: 'SCMP_ACT_ALLOW', args: [], includes: {}, excludes: {} },
      { names: ['setns'], action: 'SCMP_ACT_ALLOW', includes: { caps: ['CAP_SYS_ADMIN'] } },
      { names: ['unshare'], action: 'SCMP_ACT_ALLOW' },
      { names: ['kexec_load'], action: 'SCMP_ACT_ERRNO' },
    ],
  };

  it('takes namespace creation and mount away from processes without CAP_SYS_ADMIN, as Docker does', () => {
    const out = gateNamespaceCalls(base);
    const granted = (name: string) => out.syscalls!.filter((r) => r.action === 'SCMP_ACT_ALLOW' && !r.includes?.caps?.length && r.names?.includes(name));
    for (const n of ['read', 'write']) assert.equal(granted(n).length, 1, n);
    for (const n of ['mount', 'setns', 'unshare', 'clone3']) assert.deepEqual(granted(n), [], n);
    // clone only without any CLONE_NEW* flag; clone3 refused with ENOSYS (libc falls back to clone).
    assert.deepEqual(granted('clone'), [{ names: ['clone'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value: CLONE_NEW_FLAGS, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }] }]);
    assert.equal(CLONE_NEW_FLAGS, 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000);
    assert.ok(out.syscalls!.some((r) => r.names?.includes('clone3') && r.action === 'SCMP_ACT_ERRNO' && r.errnoRet === 38));
    // Admin-only rules and denials are kept; the input is not changed.
    assert.ok(out.syscalls!.some((r) => r.includes?.caps?.includes('CAP_SYS_ADMIN') && r.names?.includes('setns')));
    assert.ok(out.syscalls!.some((r) => r.names?.includes('kexec_load')));
    assert.ok(base.syscalls![0]!.names!.includes('unshare'));
    assert.throws(() => gateNamespaceCalls({ defaultAction: 'SCMP_ACT_ALLOW' }));
  });
});

describe('engine work directory (unit)', () => {
  it('runs every engine CLI call from a private directory, a container start from its own one', () => {
    const root = engineWorkDir();
    assert.ok(root.startsWith(tmpdir()));
    assert.equal(statSync(root).mode & 0o777, 0o700);
    assert.equal(spawnOptions({}, ['rm', '-f', 'x']).cwd, root);
    assert.equal(spawnOptions({}, ['start', '--attach', 'sandbox-runner-r1']).cwd, `${root}/sandbox-runner-r1`);
    assert.equal(spawnOptions({}, ['start', 'sandbox-runner-r2']).cwd, `${root}/sandbox-runner-r2`);
    assert.ok(existsSync(`${root}/sandbox-runner-r2`));
    assert.equal(spawnOptions({}, ['start', '../x']).cwd, root, 'a name that is not a container name is no path');
    assert.equal(conmonSawOom('sandbox-runner-r1'), false);
  });
});

describe('Podman and a chosen docker engine (unit)', () => {
  // Podman's CLI ignores docker contexts and DOCKER_HOST: a run would go to local Podman while the
  // summary named the chosen engine (found by a fresh-user check of issue 10's work).
  const fakePodman = join(mkdtempSync(join(tmpdir(), 'sr-fake-podman-')), 'podman');
  writeFileSync(fakePodman, '#!/bin/sh\necho "podman version 4.3.1"\n', { mode: 0o755 });
  const refused = (e: unknown) => isSandboxError(e) && e.code === 'invalid-engine' && /Podman, which ignores/.test(e.message);

  it('refuses a host, a context, DOCKER_HOST or DOCKER_CONTEXT on Podman; runs (argv fields) without them', async () => {
    const clean = { DOCKER_HOST: '', DOCKER_CONTEXT: '' };
    await assert.rejects(engineSpec({ dockerPath: fakePodman, env: clean, host: 'unix:///run/other.sock' }), refused);
    await assert.rejects(engineSpec({ dockerPath: fakePodman, env: clean, context: 'colima' }), refused);
    await assert.rejects(engineSpec({ dockerPath: fakePodman, env: { DOCKER_HOST: 'ssh://me@build', DOCKER_CONTEXT: '' } }), refused);
    await assert.rejects(engineSpec({ dockerPath: fakePodman, env: { DOCKER_HOST: '', DOCKER_CONTEXT: 'colima' } }), refused);
    await engineSpec({ dockerPath: fakePodman, env: clean }).then(() => undefined, (e: unknown) => assert.ok(!refused(e), String(e)));
  });
});
