/**
 * Escape attempts against the real engine, as one table ({@link ATTEMPTS}). Each row is an
 * attempt: its name (the test title), the isolation floor item it proves ({@link FLOOR}: SECURITY.md
 * "The floor"), a probe (a program or a profile trying to get out of the floor; it must fail) and
 * a control: the same probe in a loosened or raw container, or with the loosened setting, where it
 * gets through, so the attempt proves the floor and not a broken probe. A row without a control
 * says why (`noControl`): the attempt is refused before any engine call, or no loosened setting
 * can run it. The summary line "escape suite: N attempts, M escaped" is what CI logs report, on
 * every engine (the remote and Podman suites run this same file).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { mountTestHooks, resolveMounts } from '../../src/core/mounts/mounts';
import { resolveProfiles } from '../../src/core/profiles/profileResolution';
import { runInSandbox } from '../../src/core/run/runner';
import { WarmPool } from '../../src/core/run/warm';
import type { Profile } from '../../src/core/profiles/profileSchema';
import { BRIDGE, TEST_RUNTIME } from '../support/profiles';
import { RUNSC_MIN_PIDS } from '../../src/core/profiles/limits';
import { bridgeGateway, chunkText, CLI, ENGINE, ENGINE_KIND, engineCli, engineDocker, engineSeesClientFiles, hostProcesses, IMAGES, LOCAL_DOCKER_HOST, productContainers, pythonProfile, requireEngine, requireSomeRan, routedEngine, run, shellProfile, TEST_PATH } from './helpers';

/** A variant of the python test image with a setuid-root copy of python (built here, never pulled). */
const SUID_IMAGE = 'sandbox-runner-test/suid-probe:1';

/** The items of the isolation floor the attempts prove (SECURITY.md "The floor"; flags in src/core/container/argv.ts). */
const FLOOR = {
  network: '`--network none` unless the profile opts into `bridge`; host and container networks refused',
  hostFiles: 'a new container per run: no host file but the snippet and the checked mounts',
  engineSocket: 'no engine socket inside the container, and none can be mounted',
  environment: 'no host environment: only HOME, XDG_CACHE_HOME, TMPDIR, TINI_KILL_PROCESS_GROUP and the profile\'s variables',
  mounts: 'mount sources resolved (realpath), checked against the protected host paths and pinned; read-only unless "rw"',
  volumes: 'images that declare VOLUMEs are refused',
  argv: 'argv arrays only: no shell string is ever built from input',
  user: '`--user 65534:65534`: never root',
  capabilities: '`--cap-drop ALL`',
  noNewPrivileges: '`--security-opt no-new-privileges`',
  namespaces: 'the engine\'s default seccomp profile and private pid, ipc, cgroup and uts namespaces',
  readOnly: '`--read-only` root; /proc/sys, /sysrq-trigger and /sys not writable',
  noexec: 'noexec tmpfs for /tmp and HOME (and /dev/shm)',
  devices: 'no devices (never `--device` or `--privileged`) and no kernel log or keyring',
  pids: '`--pids-limit`',
  memory: '`--memory` = `--memory-swap`: no swap',
  fileSize: '`--ulimit fsize`',
  output: 'a per-stream output bound enforced by the runner',
  lifetime: 'timeout and cancel remove the container with every process in it',
  validation: 'every profile re-validated by ProfileSchema in the core before any engine call',
} as const;

/** One row of the table; `S` is what `setup` hands to the probe, the control and `cleanup`. */
interface Attempt<S> {
  /** The test title. */
  readonly name: string;
  /** The floor item the attempt proves. */
  readonly floor: keyof typeof FLOOR;
  /** Set-up shared by probe and control (directories, this process's environment). */
  setup?(): Promise<S>;
  /** Undoes `setup`, after the probe and the control, whatever happened. */
  cleanup?(state: S): Promise<void>;
  /** The escape attempt; asserts that it failed. */
  probe(state: S): Promise<void>;
  /** The same probe with the floor item loosened; asserts that it gets through there. */
  control?(state: S): Promise<void>;
  /** Why the row has no control, when it has none. */
  readonly noControl?: string;
}

/** A table row, its set-up's type inferred. */
function row<S>(attempt: Attempt<S>): Attempt<unknown> {
  return attempt as Attempt<unknown>;
}

/** What the suite's `before` sets up: the bridge gateway, a host listener and a scratch directory. */
const env = { gateway: '', port: 0, accepted: 0, dir: '' };

/** A random number usable as a unique `sleep` argument (visible in host process lists). */
const marker = () => `${31_000_000 + Math.floor(Math.random() * 8_000_000)}`;

/**
 * Runs a throw-away control container outside the product (no product label), returning its output.
 * `routed`: on the engine of {@link routedEngine} (the local one when the engine under test has no
 * route to the host, as engine 2), for controls that must reach a host address.
 */
async function control(args: string[], routed = false): Promise<string> {
  const routedEnv = routed ? (await routedEngine())?.env : undefined;
  const r = await engineCli(['run', '--rm', '--pull', 'never', '--log-driver', 'none', ...args], { reject: false, timeout: 30_000, ...(routedEnv ? { env: routedEnv } : {}) });
  return `${String(r.stdout)}\n${String(r.stderr)}`;
}

/**
 * Podman cannot pin a mount source (argv.ts `refusePodmanMounts`): there every profile with mounts
 * must be refused before anything runs, with a message naming Podman; that is what the mount
 * attempts check on Podman.
 */
async function assertMountsRefusedOnPodman(profile: Profile): Promise<void> {
  assert.equal(ENGINE_KIND, 'podman');
  let created = false;
  const r = await run(profile, 'echo ran > /data/ran; echo ran\n', { onArgv: () => (created = true) });
  assert.equal(r.result.outcome, 'failed-to-start', r.result.message);
  assert.equal(r.result.error?.code, 'invalid-mount');
  assert.match(r.result.message, /Podman cannot pin a mount's checked source directory/);
  assert.equal(r.stdout, '');
  assert.equal(created, false, 'no argv may be built, so nothing reaches the engine');
}

/**
 * Runs `code` with `profile` and asserts it printed exactly `expected` (most probes print only
 * what got through, then "end").
 */
async function assertPrints(profile: Profile, code: string, expected: string): Promise<void> {
  const r = await run(profile, code);
  assert.equal(r.stdout, expected);
}

/**
 * Runs a forged profile (never validated by the caller) through the core and asserts it was refused
 * as `invalid-profile` naming `key`, before any argv was built.
 */
async function assertForgedRefused(name: string, profile: unknown, key: string, code: string): Promise<void> {
  let created = false;
  const r = await runInSandbox({ profileName: name, profile: profile as Profile, code, onArgv: () => (created = true), docker: engineDocker() });
  assert.equal(r.outcome, 'failed-to-start', key);
  assert.equal(r.error?.code, 'invalid-profile', key);
  assert.match(r.message, new RegExp(`sandboxRunner\\.profiles\\.${name}\\.${key.replace('.', '\\.')}`));
  assert.equal(created, false, key);
}

/** Why a row that is refused before any engine call has no control: nothing runs to loosen. */
const REFUSED_EARLY = 'refused before any engine call (no argv is built): there is no container to loosen';

const TCP_PROBE = () => `ip -o link 2>/dev/null | cut -d: -f2 | tr -d ' ' | tr '\\n' ' '; echo; nc -w 2 ${env.gateway} ${env.port} && echo CONNECTED || echo refused\n`;

/** The DNS probe: route checks to the resolvers of /etc/resolv.conf (nothing sent), one datagram to the gateway. */
const DNS_PROBE = () => [
  'import socket',
  'ns = [l.split()[1] for l in open("/etc/resolv.conf") if l.startswith("nameserver")]',
  'print("resolvers", len(ns))',
  'for t in ns:',
  '    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
  '    try:',
  '        s.connect((t, 53))',
  '        print("route")',
  '    except OSError as e:',
  '        print("no-route", e.errno)',
  's = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
  'try:',
  `    s.sendto(b"\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x07example\\x03com\\x00\\x00\\x01\\x00\\x01", ("${env.gateway}", 53))`,
  '    print("sent")',
  'except OSError as e:',
  '    print("blocked", e.errno)',
].join('\n');

const NETWORK: readonly Attempt<unknown>[] = [
  row({
    name: 'TCP to a host listener through the bridge gateway IP',
    floor: 'network',
    async probe() {
      const before = env.accepted;
      const r = await run(shellProfile(), TCP_PROBE());
      assert.equal(r.stdout, 'lo \nrefused\n');
      // No route: Linux says ENETUNREACH; gVisor's own network stack EHOSTUNREACH.
      assert.match(r.stderr, /Network is unreachable|No route to host/);
      assert.equal(env.accepted, before, 'the host listener saw a connection');
    },
    // The same probe with the opt-in bridge network reaches the listener (on the local engine when
    // the engine under test has no bridge: engine 2 has no route to the host at all).
    async control() {
      const before = env.accepted;
      const open = await run(shellProfile(BRIDGE), TCP_PROBE(), { docker: await routedEngine() });
      assert.match(open.stdout, /host-secret-banner\nCONNECTED/);
      assert.equal(env.accepted, before + 1);
    },
  }),
  row({
    name: 'TCP to a host listener on 127.0.0.1',
    floor: 'network',
    async probe() {
      const before = env.accepted;
      const r = await run(shellProfile(), `nc -w 2 127.0.0.1 ${env.port} && echo CONNECTED || echo refused\n`);
      assert.equal(r.stdout, 'refused\n');
      assert.equal(env.accepted, before);
    },
    // With the host's network namespace (never allowed by a profile) the probe connects.
    // (On engine 2 its "host" network is its own namespace, not this one: the local engine's is.)
    async control() {
      const open = await control(['--network', 'host', '--user', '65534:65534', IMAGES.busybox, 'nc', '-w', '2', '127.0.0.1', String(env.port)], true);
      assert.match(open, /host-secret-banner/);
    },
  }),
  row({
    name: 'DNS: no route to the configured resolver, and a query to the gateway cannot leave',
    floor: 'network',
    // Only the bridge gateway is ever sent a packet. The resolvers of /etc/resolv.conf are only
    // route-checked: connect() on a UDP socket looks the route up and sends nothing.
    async probe() {
      const r = await run(pythonProfile(), DNS_PROBE());
      const [count, ...rest] = r.stdout.trim().split('\n');
      assert.match(count ?? '', /^resolvers [1-9]/, r.stdout + r.stderr);
      // No route: 101 = ENETUNREACH from Linux, 113 = EHOSTUNREACH from gVisor's own network stack.
      const errno = TEST_RUNTIME === 'runsc' ? 113 : 101;
      assert.deepEqual(rest, [...Array(Number(count!.split(' ')[1])).fill(`no-route ${errno}`), `blocked ${errno}`]);
    },
    // With the bridge network the resolver is routable and the datagram leaves (on the local
    // engine when the engine under test has no bridge).
    async control() {
      const open = await run(pythonProfile(BRIDGE), DNS_PROBE(), { docker: await routedEngine() });
      assert.match(open.stdout, /^route$/m);
      assert.match(open.stdout, /^sent$/m);
    },
  }),
  row({
    name: 'ICMP / raw sockets (ping needs CAP_NET_RAW)',
    floor: 'network',
    probe: () => assertPrints(shellProfile(), `ping -c 1 -W 1 127.0.0.1 >/dev/null 2>&1 && echo PING || echo no-ping\nping -c 1 -W 1 ${env.gateway} >/dev/null 2>&1 && echo PING || echo no-ping\n`, 'no-ping\nno-ping\n'),
    noControl: 'a raw socket needs CAP_NET_RAW, which Podman 4 does not grant even by default; the capability drop has its own attempt',
  }),
];

/** A directory of the scratch directory holding `file.txt` ("original"), writable by anyone: only the mount mode protects it. */
async function writableData(name: string): Promise<string> {
  const data = join(env.dir, name);
  await mkdir(data, { recursive: true });
  await writeFile(join(data, 'file.txt'), 'original\n');
  await chmod(data, 0o777);
  await chmod(join(data, 'file.txt'), 0o666);
  return data;
}

/** A world-readable directory of the scratch directory holding `nonce.txt` with a fresh nonce. */
async function nonceDir(name: string): Promise<{ data: string; nonce: string }> {
  const data = join(env.dir, name);
  await mkdir(data, { recursive: true });
  const nonce = `seen${marker()}`;
  await writeFile(join(data, 'nonce.txt'), `${nonce}\n`, { mode: 0o644 });
  await chmod(data, 0o755);
  return { data, nonce };
}

const RO_WRITE = 'echo changed > /data/file.txt && echo WROTE; rm -f /data/file.txt && echo REMOVED; touch /data/new && echo CREATED; chmod 777 /data/file.txt && echo CHMOD; echo end\n';
const NONCE_READ = 'cat /data/nonce.txt; echo ran\n';

/** The proxy variable names the docker CLI fills in from its client configuration. */
const PROXY_NAMES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'FTP_PROXY', 'ftp_proxy', 'NO_PROXY', 'no_proxy', 'ALL_PROXY', 'all_proxy'];

const HOST_FILES: readonly Attempt<unknown>[] = [
  row({
    name: 'read a host canary file outside the mounts',
    floor: 'hostFiles',
    async probe() {
      const [p1, p2] = [`canary${marker()}`, `secret${marker()}`];
      const root = join(env.dir, 'canary-root');
      await mkdir(root, { recursive: true });
      const canary = join(root, 'canary.txt');
      await writeFile(canary, `${p1}${p2}\n`, { mode: 0o644 });
      // The snippet directory is made inside `root`, next to the canary: the closest a run gets to it.
      const code = [
        `P1=${p1}; P2=${p2}`,
        `test -e '${canary}' && echo VISIBLE || echo absent`,
        'ls /sandbox',
        'for d in /*; do case $d in /proc|/sys|/dev) ;; *) grep -rlsF "$P1$P2" "$d";; esac; done',
        'grep -lsF "$P1$P2" /proc/1/root/* 2>/dev/null',
        'echo searched',
      ].join('\n');
      const r = await run(shellProfile(), code + '\n', { tempRoot: root });
      assert.equal(r.stdout, 'absent\nmain.sh\nsearched\n');
    },
    noControl: 'no profile setting shows a host path outside its mounts; the mount attempts below run their controls',
  }),
  row({
    name: 'reach an engine socket file (docker, containerd)',
    floor: 'engineSocket',
    probe: () => assertPrints(shellProfile(), [
      'for s in /var/run/docker.sock /run/docker.sock /run/containerd/containerd.sock /var/run/docker/containerd/containerd.sock /run/podman/podman.sock; do',
      '  test -e $s && echo "FOUND $s"',
      'done',
      'find / -xdev -type s 2>/dev/null; for d in /tmp /home/sandbox /workspace /sandbox /run /var/run; do find $d -type s 2>/dev/null; done',
      'echo done',
    ].join('\n') + '\n', 'done\n'),
    noControl: 'mounting a socket is refused before any engine call (see "mount the docker socket through a profile")',
  }),
  row({
    name: 'reach an abstract unix socket of the host (containerd-shim style)',
    floor: 'network',
    // Abstract sockets belong to the network namespace; the host's would be listed here.
    probe: async () => {
      const r = await run(shellProfile(), 'cat /proc/net/unix | tail -n +2 | wc -l\n');
      assert.equal(r.stdout.trim(), '0');
    },
    // In the host's network namespace the same count sees the host's sockets.
    async control() {
      const hostView = await control(['--network', 'host', '--user', '65534:65534', IMAGES.busybox, 'sh', '-c', 'tail -n +2 /proc/net/unix | wc -l']);
      assert.ok(Number(hostView.trim().split('\n')[0]) > 0, `control saw no host sockets: ${hostView}`);
    },
  }),
  row({
    name: 'read host environment secrets',
    floor: 'environment',
    async setup() {
      const secret = `hunter${marker()}`;
      process.env.SANDBOX_RUNNER_ESCAPE_SECRET = secret;
      return secret;
    },
    async cleanup() {
      delete process.env.SANDBOX_RUNNER_ESCAPE_SECRET;
    },
    async probe(secret) {
      const r = await run(shellProfile(), 'env; cat /proc/1/environ /proc/self/environ 2>/dev/null | tr "\\0" "\\n"\n');
      assert.doesNotMatch(r.stdout, new RegExp(secret));
      // Only the sandbox's own variables (and what the shell and the engine add) exist.
      const names = new Set(r.stdout.split('\n').filter(Boolean).map((l) => l.split('=')[0]));
      assert.deepEqual([...names].sort(), ['HOME', 'HOSTNAME', 'PATH', 'PWD', 'SHLVL', 'TINI_KILL_PROCESS_GROUP', 'TMPDIR', 'XDG_CACHE_HOME']);
      assert.match(r.stdout, /^PATH=\/bin:\/usr\/bin$/m); // the image's PATH, not the host's
    },
    noControl: 'a profile names its variables itself; the proxy attempt below runs a plain engine control',
  }),
  row({
    name: 'a symlinked mount source pointing at /etc is refused before running',
    floor: 'mounts',
    async probe() {
      const link = join(env.dir, 'innocent-project');
      await symlink('/etc', link).catch(() => undefined);
      let created = false;
      const r = await run(shellProfile({ mounts: [{ source: link, target: '/data' }] }), 'cat /data/shadow\n', { onArgv: () => (created = true) });
      assert.equal(r.result.outcome, 'failed-to-start');
      assert.equal(r.result.error?.code, 'invalid-mount');
      assert.match(r.result.message, /resolves to \/etc/);
      assert.equal(created, false, 'docker create was reached');
    },
    noControl: REFUSED_EARLY,
  }),
  row({
    name: 'mount the docker socket through a profile (directly and through a symlink)',
    floor: 'engineSocket',
    async probe() {
      const link = join(env.dir, 'sock-link');
      await symlink('/var/run/docker.sock', link).catch(() => undefined);
      for (const source of ['/var/run/docker.sock', '/run/docker.sock', link]) {
        let created = false;
        const r = await run(shellProfile({ mounts: [{ source, target: '/data/docker.sock', mode: 'rw' }] }), 'echo ran\n', { onArgv: () => (created = true) });
        assert.equal(r.result.outcome, 'failed-to-start', source);
        assert.equal(r.result.error?.code, 'invalid-mount', source);
        assert.equal(r.stdout, '');
        assert.equal(created, false, source);
      }
    },
    noControl: REFUSED_EARLY,
  }),
  row({
    name: 'write through a read-only profile mount',
    floor: 'mounts',
    setup: () => writableData('ro-data'),
    async probe(data) {
      if (ENGINE_KIND === 'podman') {
        for (const mode of ['ro', 'rw'] as const) await assertMountsRefusedOnPodman(shellProfile({ mounts: [{ source: data, target: '/data', mode }] }));
        assert.equal(await readFile(join(data, 'file.txt'), 'utf8'), 'original\n');
        assert.equal(existsSync(join(data, 'ran')), false);
        return;
      }
      const r = await run(shellProfile({ mounts: [{ source: data, target: '/data', mode: 'ro' }] }), RO_WRITE);
      assert.equal(await readFile(join(data, 'file.txt'), 'utf8'), 'original\n');
      assert.equal(existsSync(join(data, 'new')), false);
      if (!(await engineSeesClientFiles())) {
        // An engine that cannot see this client's files (engine 2) mounts nothing: refused, nothing ran
        // (the attempt below checks the message).
        assert.equal(r.result.outcome, 'failed-to-start', r.result.message);
        assert.equal(r.stdout, '');
        return;
      }
      assert.equal(r.stdout, 'end\n');
    },
    // Mode "rw" lets the same program write (where a mount runs at all: not on Podman, nor on an
    // engine that cannot see this client's files).
    async control(data) {
      if (ENGINE_KIND === 'podman' || !(await engineSeesClientFiles())) return;
      const rw = await run(shellProfile({ mounts: [{ source: data, target: '/data', mode: 'rw' }] }), 'echo changed > /data/file.txt && echo WROTE\n');
      assert.equal(rw.stdout, 'WROTE\n');
    },
  }),
  row({
    name: 'mount a host path on an engine that cannot see the client\'s files (refused, naming the engine)',
    floor: 'mounts',
    setup: () => nonceDir('engine-view'),
    async probe({ data, nonce }) {
      const profile = shellProfile({ mounts: [{ source: data, target: '/data', mode: 'ro' }] });
      if (ENGINE_KIND === 'podman') return assertMountsRefusedOnPodman(profile);
      const r = await run(profile, NONCE_READ);
      if (await engineSeesClientFiles()) {
        // A local engine sees the client's files: the mount shows them.
        assert.equal(r.stdout, `${nonce}\nran\n`, r.result.message);
        return;
      }
      // Whatever the engine would mount under this path (its own /tmp on engine 2, another host's
      // files on a remote one) is not the directory the profile names: refused, and the message says
      // which engine cannot see it.
      assert.equal(r.result.outcome, 'failed-to-start', r.result.message);
      assert.equal(r.stdout, '');
      assert.ok(r.result.message.includes(data), `the message does not name the mount source: ${r.result.message}`);
      assert.ok(r.result.message.includes(ENGINE.host ?? ''), `the message does not name the engine (${ENGINE.describe()}): ${r.result.message}`);
    },
    // Where the engine under test cannot see the client's files: the local engine, which sees
    // them, mounts the same source (elsewhere the probe itself already showed the mount working).
    async control({ data, nonce }) {
      if (ENGINE_KIND === 'podman' || (await engineSeesClientFiles())) return;
      const profile = shellProfile({ mounts: [{ source: data, target: '/data', mode: 'ro' }] });
      const local = await run(profile, NONCE_READ, { docker: { env: { DOCKER_HOST: LOCAL_DOCKER_HOST } } });
      assert.equal(local.stdout, `${nonce}\nran\n`, local.result.message);
    },
  }),
  row({
    name: 'an image that declares a VOLUME (writable, outlives the run) is refused',
    floor: 'volumes',
    async probe() {
      let created = false;
      const r = await run(shellProfile({ image: IMAGES.volume }), 'echo x > /data/persist; echo ran\n', { onArgv: () => (created = true) });
      assert.equal(r.result.outcome, 'failed-to-start');
      assert.equal(r.result.error?.code, 'image-has-volumes');
      assert.equal(r.stdout, '');
      // The container may be created (in parallel with the image check) but never started, and is gone.
      assert.ok(created);
    },
    noControl: 'the image is refused before its container starts: nothing runs to loosen',
  }),
  row({
    name: 'a file name with shell metacharacters runs nothing on the host',
    floor: 'argv',
    async probe() {
      const ws = join(env.dir, 'ws-meta');
      await mkdir(join(ws, '.vscode'), { recursive: true });
      await writeFile(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'sandboxRunner.profiles': { shell: { image: IMAGES.busybox } } }));
      const pwned = `pwned${marker()}`;
      const file = join(ws, `x$(touch ${pwned});\`touch ${pwned}\`|touch ${pwned}&'"\n.sh`);
      await writeFile(file, 'echo "$0"\n');
      const r = await execa('node', [CLI, '--workspace', ws, '--quiet', file], { reject: false, stdin: 'ignore', cwd: ws });
      assert.equal(r.exitCode, 0, String(r.stderr));
      assert.equal(r.stdout, '/sandbox/main.sh');
      assert.equal(existsSync(join(ws, pwned)), false, 'a command in the file name ran on the host');
      assert.equal(existsSync(join(tmpdir(), pwned)), false, 'a command in the file name ran on the host');
    },
    noControl: 'the product builds no shell string to loosen; the file name must simply run',
  }),
];

const SUID_PROBE = 'import os; print(os.getuid(), os.geteuid())';

const PRIVILEGES: readonly Attempt<unknown>[] = [
  row({
    name: 'run as root',
    floor: 'user',
    probe: () => assertPrints(shellProfile(), 'id -u; id -g; grep -E "^(Uid|Gid):" /proc/self/status | tr -s "\\t " " "\n', '65534\n65534\nUid: 65534 65534 65534 65534\nGid: 65534 65534 65534 65534\n'),
    noControl: 'a profile cannot choose root (user 0 is refused by the schema: "image flag injection and root user" below)',
  }),
  row({
    name: 'hold any capability (CapInh/CapPrm/CapEff/CapBnd/CapAmb)',
    floor: 'capabilities',
    async probe() {
      const r = await run(shellProfile(), 'grep -E "^Cap" /proc/self/status; grep -E "^Cap" /proc/1/status\n');
      const lines = r.stdout.trim().split('\n');
      // Five sets per process under Linux; gVisor's kernel has no ambient set (no CapAmb line), so four.
      const sets = TEST_RUNTIME === 'runsc' ? ['Inh', 'Prm', 'Eff', 'Bnd'] : ['Inh', 'Prm', 'Eff', 'Bnd', 'Amb'];
      assert.deepEqual(lines.map((l) => l.slice(3, 6)), [...sets, ...sets], r.stdout);
      for (const l of lines) assert.match(l, /^Cap(Inh|Prm|Eff|Bnd|Amb):\t0000000000000000$/);
    },
    noControl: 'a profile cannot add a capability; the setuid attempt\'s control runs without the floor\'s privilege rules',
  }),
  row({
    name: 'gain root through a setuid-root binary (no-new-privileges)',
    floor: 'noNewPrivileges',
    async probe() {
      const profile = pythonProfile({ image: SUID_IMAGE });
      const r = await run(profile, `import subprocess\nprint(subprocess.run(["/usr/local/bin/suidpython", "-c", "${SUID_PROBE}"], capture_output=True, text=True).stdout.strip())\n`);
      assert.equal(r.stdout, '65534 65534\n');
    },
    // The same binary without no-new-privileges does become root.
    async control() {
      const open = await control(['--user', '65534:65534', '--cap-drop', 'ALL', SUID_IMAGE, '/usr/local/bin/suidpython', '-c', SUID_PROBE]);
      assert.match(open, /^65534 0$/m);
    },
  }),
  row({
    name: 'su to root with the image\'s setuid su',
    floor: 'noNewPrivileges',
    probe: () => assertPrints(pythonProfile(), 'import subprocess\np = subprocess.run(["su", "-c", "id -u", "root"], input="", capture_output=True, text=True)\nprint(p.returncode != 0, "0" not in p.stdout.split())\n', 'True True\n'),
    noControl: 'su needs root\'s password even where setuid works; the setuid attempt above runs the control',
  }),
  row({
    name: 'create a user namespace to become root inside it (unshare -U / -r)',
    floor: 'namespaces',
    probe: () => assertPrints(shellProfile(), 'unshare -U id -u 2>/dev/null && echo USERNS; unshare -r id -u 2>/dev/null && echo MAPPED-ROOT; unshare -m true 2>/dev/null && echo MOUNTNS; echo end\n', 'end\n'),
    noControl: 'only an unconfined seccomp profile would allow it, which no setting offers',
  }),
  row({
    name: 'mount proc, cgroup or tmpfs; setns into pid 1',
    floor: 'namespaces',
    probe: () => assertPrints(shellProfile(), [
      'mkdir -p /tmp/m',
      'mount -t proc proc /tmp/m 2>/dev/null && echo PROC',
      'mount -t cgroup -o memory cgroup /tmp/m 2>/dev/null && echo CGROUP',
      'mount -t tmpfs tmpfs /tmp/m 2>/dev/null && echo TMPFS',
      'nsenter -t 1 -m -p true 2>/dev/null && echo SETNS',
      'echo end',
    ].join('\n') + '\n', 'end\n'),
    noControl: 'only CAP_SYS_ADMIN would allow it, which no setting offers',
  }),
  row({
    name: 'cgroup escape through release_agent (CVE-2022-0492 style)',
    floor: 'namespaces',
    probe: () => assertPrints(shellProfile(), [
      'find /sys/fs/cgroup -name release_agent 2>/dev/null | while read f; do echo "AGENT $f"; echo /x > "$f" 2>/dev/null && echo "WROTE $f"; done',
      'for f in /sys/fs/cgroup/*/notify_on_release; do echo 1 > "$f" 2>/dev/null && echo "NOTIFY $f"; done',
      'for f in /sys/fs/cgroup/*/cgroup.procs; do echo $$ > "$f" 2>/dev/null && echo "MOVED $f"; done',
      'mkdir /sys/fs/cgroup/memory/x 2>/dev/null && echo MKDIR',
      'unshare -UrmC sh -c "mount -t cgroup -o rdma cgroup /tmp" 2>/dev/null && echo REMOUNT',
      'echo end',
    ].join('\n') + '\n', 'end\n'),
    noControl: 'only a privileged container would allow it, which no setting offers',
  }),
  row({
    name: 'see or signal host processes (pid namespace)',
    floor: 'namespaces',
    async probe() {
      const m = marker();
      const host = execa('sleep', [m], { reject: false });
      try {
        const hostPid = host.pid!;
        // The pattern goes through a file so that grep's own command line does not match it.
        const r = await run(shellProfile(), `kill -9 ${hostPid} 2>/dev/null && echo KILLED || echo no-kill\necho ${m} > /tmp/pat\necho "count=$(ls /proc | grep -c '^[0-9]')"\ngrep -lF -f /tmp/pat /proc/[0-9]*/cmdline 2>/dev/null\necho end\n`);
        const m2 = /^no-kill\ncount=(\d+)\nend\n$/.exec(r.stdout);
        assert.ok(m2, r.stdout);
        assert.ok(Number(m2[1]) <= 6, `processes visible: ${m2[1]}`);
        assert.equal(host.exitCode, null, 'the host process was killed');
        assert.deepEqual((await hostProcesses(`sleep ${m}`)).length, 1);
      } finally {
        host.kill('SIGKILL');
        await host;
      }
    },
    noControl: 'a profile cannot share the host\'s pid namespace (`--pid host` is never built)',
  }),
  row({
    name: 'change the host name or the clock',
    floor: 'namespaces',
    probe: () => assertPrints(shellProfile(), 'hostname evil 2>/dev/null && echo HOSTNAME; date -s "2001-01-01 00:00:00" 2>&1 | grep -q "not permitted" || echo CLOCK; echo end\n', 'end\n'),
    noControl: 'only CAP_SYS_ADMIN / CAP_SYS_TIME would allow it, which no setting offers',
  }),
];

const FILE_SYSTEMS: readonly Attempt<unknown>[] = [
  row({
    name: 'write the root file system',
    floor: 'readOnly',
    probe: () => assertPrints(shellProfile(), [
      // (The snippet's own read-only mount is checked by the runner suite: on the warm path it is
      // the container's private tmpfs, which the program may change.)
      'for f in /x /bin/x /usr/x /etc/passwd /etc/x /var/x /root/x /sbin/docker-init; do',
      '  (echo pwned >> "$f") 2>/dev/null && echo "WROTE $f"',
      'done',
      'echo end',
    ].join('\n') + '\n', 'end\n'),
    noControl: 'the root file system is read-only whatever the profile says',
  }),
  row({
    name: 'write /proc/sys, /proc/sysrq-trigger or /sys',
    floor: 'readOnly',
    probe: () => assertPrints(shellProfile(), [
      'for f in /proc/sys/kernel/core_pattern /proc/sys/kernel/hostname /proc/sys/vm/drop_caches /proc/sysrq-trigger /sys/kernel/uevent_helper /sys/fs/cgroup/memory/memory.limit_in_bytes; do',
      '  (echo 1 > "$f") 2>/dev/null && echo "WROTE $f"',
      'done',
      'echo end',
    ].join('\n') + '\n', 'end\n'),
    noControl: 'only a privileged container would allow it, which no setting offers',
  }),
  row({
    name: 'execute a dropped binary from /tmp, HOME or /dev/shm (noexec)',
    floor: 'noexec',
    probe: () => assertPrints(shellProfile(), [
      'for d in /tmp "$HOME" /dev/shm; do',
      '  cp /bin/busybox "$d/b" 2>/dev/null && chmod 755 "$d/b" && "$d/b" true 2>/dev/null && echo "EXEC $d"',
      'done',
      'echo end',
    ].join('\n') + '\n', 'end\n'),
    noControl: 'these tmpfs are noexec whatever the profile says (the exec working directory is tested by the runner suite)',
  }),
  row({
    name: 'use a block device, /dev/mem or /dev/kmsg; mknod one',
    floor: 'devices',
    probe: () => assertPrints(shellProfile(), [
      'find /dev -type b 2>/dev/null',
      'for f in /dev/mem /dev/kmem /dev/kmsg /dev/port /dev/sda /dev/vda; do test -e $f && echo "HAS $f"; done',
      'mknod /tmp/vda b 253 0 2>/dev/null && echo MKNOD',
      'head -c 1 /tmp/vda >/dev/null 2>&1 && echo READ-DEVICE',
      'echo end',
      // gVisor's own tmpfs lets a node be made, with no device behind it (reading it: ENXIO).
    ].join('\n') + '\n', TEST_RUNTIME === 'runsc' ? 'MKNOD\nend\n' : 'end\n'),
    noControl: 'no setting adds a device',
  }),
  row({
    name: 'read the kernel log or the kernel keyring',
    floor: 'devices',
    // Seccomp mode 2: the engine's filter is on (it refuses keyctl/add_key/request_key and syslog).
    probe: () => assertPrints(shellProfile(), [
      'dmesg >/dev/null 2>&1 && echo DMESG',
      'test -s /proc/keys && echo KEYS',
      'grep -E "^Seccomp:" /proc/self/status',
      'echo end',
    ].join('\n') + '\n', 'Seccomp:\t2\nend\n'),
    noControl: 'only an unconfined seccomp profile with CAP_SYSLOG would allow it, which no setting offers',
  }),
];

const RESOURCES: readonly Attempt<unknown>[] = [
  row({
    name: 'fork bomb past the pids limit',
    floor: 'pids',
    async probe() {
      // Every bomb process keeps forking and survives its failed forks, so the bomb stays pressed
      // against the limit while the parent (which never forks again) watches the cgroup's count.
      const code = [
        'import os, time',
        'limit = open("/sys/fs/cgroup/pids/pids.max").read().strip()',
        'if os.fork() == 0:',
        '    while True:',
        '        try:',
        '            os.fork()',
        '        except OSError:',
        '            time.sleep(0.001)',
        'peak, end = 0, time.time() + 5',
        'while time.time() < end and str(peak) != limit:',
        '    peak = max(peak, int(open("/sys/fs/cgroup/pids/pids.current").read()))',
        'print(f"max={limit} peak={peak}", flush=True)',
        'os._exit(0)',
      ].join('\n');
      if (TEST_RUNTIME === 'runsc') {
        // gVisor shows no pids cgroup inside, and its own host tasks share the limit (RUNSC_MIN_PIDS):
        // the bomb is held when it is ended by the host's pids cgroup, which the footer names.
        const bomb = pythonProfile({ limits: { pids: RUNSC_MIN_PIDS, timeoutSeconds: 20 } });
        const held = await run(bomb, 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n');
        assert.notEqual(held.result.outcome, 'timed-out', held.result.message);
        assert.match(held.result.message, /The process limit limits\.pids \(128, threads count too\) refused/, held.result.message);
        return;
      }
      const r = await run(pythonProfile({ limits: { pids: 32, timeoutSeconds: 20 } }), code);
      const m = /^max=(\d+) peak=(\d+)$/m.exec(r.stdout);
      assert.ok(m, r.stdout + r.stderr + r.result.message);
      assert.equal(m[1], '32');
      assert.equal(m[2], '32', `peak ${m[2]}: the bomb did not reach the limit (or passed it)`);
    },
    noControl: 'the probe reaches the limit itself (peak = pids.max): it shows the bomb would go further',
  }),
  row({
    name: 'memory bomb: killed by the OOM killer at the limit, no swap to spill into',
    floor: 'memory',
    async probe() {
      // gVisor shows no /sys/fs/cgroup inside: there the bomb's own count of what it got is the evidence.
      const gvisor = TEST_RUNTIME === 'runsc';
      const r = await run(pythonProfile({ limits: { memoryMiB: 32 } }), [
        ...(gvisor ? [] : [
          'mem = int(open("/sys/fs/cgroup/memory/memory.limit_in_bytes").read())',
          'memsw = int(open("/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes").read())',
          'print(mem, memsw, flush=True)',
        ]),
        'x = []',
        'while True:',
        '    x.append(bytearray(4 * 1024 * 1024))',
        '    print("MiB", 4 * len(x), flush=True)',
      ].join('\n'));
      const lines = r.stdout.trim().split('\n');
      if (!gvisor) assert.equal(lines.shift(), `${32 * 1024 * 1024} ${32 * 1024 * 1024}`);
      const got = Math.max(0, ...lines.map((l) => Number(/^MiB (\d+)$/.exec(l)?.[1] ?? NaN)));
      assert.ok(got < 32, `the bomb got ${got} MiB of a 32 MiB limit: ${r.stdout}`);
      assert.equal(r.result.outcome, 'oom-killed', r.result.message);
      assert.equal(r.result.exitCode, 137);
    },
    noControl: 'the bomb never stops by itself: the OOM kill at the limit is the evidence',
  }),
  row({
    name: 'file-size bomb past the fsize limit',
    floor: 'fileSize',
    async probe() {
      const r = await run(shellProfile({ limits: { fileSizeMiB: 1 } }), 'dd if=/dev/zero of=/tmp/big bs=65536 count=256 2>/dev/null; echo "dd=$?"; wc -c < /tmp/big; ulimit -f\n');
      const [dd, size, ulimit] = r.stdout.trim().split('\n');
      assert.notEqual(dd, 'dd=0');
      assert.equal(size, String(1024 * 1024));
      assert.equal(ulimit, '2048'); // 512-byte blocks
    },
    noControl: 'the write stops at exactly the limit, short of the 16 MiB asked for',
  }),
  row({
    name: 'output flood past the bound',
    floor: 'output',
    async probe() {
      const r = await run(shellProfile({ limits: { outputBytes: 4096, timeoutSeconds: 20 } }), 'while :; do echo flood flood flood; done\n');
      assert.equal(r.result.outcome, 'output-limit');
      assert.equal(Buffer.byteLength(r.stdout), 4096);
      assert.ok(r.result.durationMs < 10_000, `${r.result.durationMs} ms`);
    },
    noControl: 'the flood never ends by itself: the bound is what stops it',
  }),
  row({
    name: 'a daemonised child outlives the timeout',
    floor: 'lifetime',
    async probe() {
      const m = marker();
      const r = await run(shellProfile({ limits: { timeoutSeconds: 1 } }), `(setsid sh -c 'trap "" TERM HUP INT; exec sleep ${m}' &) ; nohup sleep ${m} >/dev/null 2>&1 &\nsleep 600\n`);
      assert.equal(r.result.outcome, 'timed-out');
      assert.deepEqual(await hostProcesses(`sleep ${m}`), []);
    },
    noControl: 'the host process check is the one "see or signal host processes" shows finding a live sleep',
  }),
  row({
    name: 'a daemonised child that ignores signals outlives cancel',
    floor: 'lifetime',
    async probe() {
      const m = marker();
      const controller = new AbortController();
      const pending = run(shellProfile(), `trap "" TERM HUP INT\n(setsid sh -c 'trap "" TERM HUP INT; exec sleep ${m}' &)\necho started\nsleep 600\n`, {
        signal: controller.signal,
        onOutput: (_s, text) => {
          if (chunkText(text).includes('started')) controller.abort();
        },
      });
      const r = await pending;
      assert.equal(r.result.outcome, 'cancelled');
      assert.deepEqual(await hostProcesses(`sleep ${m}`), []);
    },
    noControl: 'the host process check is the one "see or signal host processes" shows finding a live sleep',
  }),
];

/** The workdirs in docker's `--tmpfs` syntax that would rewrite the tmpfs table. */
const TMPFS_WORKDIRS = ['/tmp:mode=777', '/home/sandbox:exec', '/etc:uid=65534', '/sandbox:rw', '/w,exec'];

const VALIDATION: readonly Attempt<unknown>[] = [
  row({
    name: 'network "host" from workspace settings, and passed to the core unvalidated',
    floor: 'validation',
    async probe() {
      const set = resolveProfiles([{ source: 'workspace', value: { evil: { image: IMAGES.busybox, command: ['sh', '${file}'], network: 'host' } } }]);
      assert.equal(set.profiles.find((p) => p.name === 'evil'), undefined);
      assert.match(set.issues.find((i) => i.key === 'sandboxRunner.profiles.evil.network')?.message ?? '', /host and container networks are refused/);
      await assertForgedRefused('evil', { ...shellProfile(), network: 'host' }, 'network', `nc -w 1 127.0.0.1 ${env.port}\n`);
    },
    noControl: REFUSED_EARLY,
  }),
  row({
    name: 'image flag injection and root user passed to the core unvalidated',
    floor: 'validation',
    async probe() {
      for (const [key, forged] of [
        ['image', { ...shellProfile(), image: '--privileged' }],
        ['user', { ...shellProfile(), user: '0:0' }],
        ['workdir', { ...shellProfile(), workdir: '/proc/sys' }],
        ['limits.pids', { ...shellProfile(), limits: { ...shellProfile().limits, pids: -1 } }],
        ['limits', { image: IMAGES.busybox, command: ['sh', '${file}'], limits: 'none' }],
      ] as const) {
        await assertForgedRefused('forged', forged, key, 'id\n');
      }
    },
    noControl: REFUSED_EARLY,
  }),
  row({
    name: 'Docker client proxies (DOCKER_CONFIG/config.json, credentials in the URL) reach the snippet',
    floor: 'environment',
    async setup() {
      const config = await mkdtemp(join(tmpdir(), 'sr-dockerconfig-'));
      const secret = `pw${marker()}`;
      const url = `http://corp:${secret}@proxy.example:3128`;
      await writeFile(join(config, 'config.json'), JSON.stringify({
        proxies: { default: { httpProxy: url, httpsProxy: url, ftpProxy: url, allProxy: url, noProxy: `internal-${secret}` } },
      }));
      const saved = { DOCKER_CONFIG: process.env.DOCKER_CONFIG, HTTP_PROXY: process.env.HTTP_PROXY };
      // The CLI also copies a bare --env NAME from its own environment: that channel must be shut too.
      process.env.DOCKER_CONFIG = config;
      process.env.HTTP_PROXY = `http://env:${secret}@proxy.example:3128`;
      return { config, secret, saved };
    },
    async cleanup({ config, saved }) {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      await rm(config, { recursive: true, force: true });
    },
    async probe({ secret }) {
      const code = 'env | sort\n';
      const r = await run(shellProfile(), code);
      assert.equal(r.result.exitCode, 0, r.stderr);
      assert.doesNotMatch(r.stdout, new RegExp(secret));
      for (const n of PROXY_NAMES) assert.doesNotMatch(r.stdout, new RegExp(`^${n}=`, 'm'), n);
      // A profile that sets a proxy itself keeps its own value, and only that one.
      const own = await run(shellProfile({ env: { HTTPS_PROXY: 'http://profile-proxy:8080' } }), code);
      assert.match(own.stdout, /^HTTPS_PROXY=http:\/\/profile-proxy:8080$/m);
      assert.doesNotMatch(own.stdout, new RegExp(secret));
      for (const n of PROXY_NAMES.filter((x) => x !== 'HTTPS_PROXY')) assert.doesNotMatch(own.stdout, new RegExp(`^${n}=`, 'm'), n);
    },
    async control({ secret }) {
      const open = await control([IMAGES.busybox, 'env']);
      if (ENGINE_KIND === 'podman') {
        // On Podman (its CLI reads no DOCKER_CONFIG proxies): a plain `podman run` copies the
        // caller's proxy variables in (`--http-proxy`, default true); the product passes false.
        assert.match(open, new RegExp(`^HTTP_PROXY=http://env:${secret}@`, 'm'), 'control: HTTP_PROXY');
      } else {
        // A plain docker run with the same client config gets every proxy variable.
        for (const n of PROXY_NAMES) assert.match(open, new RegExp(`^${n}=`, 'm'), `control: ${n}`);
        assert.match(open, new RegExp(secret));
      }
    },
  }),
  row({
    name: 'a workdir in docker\'s --tmpfs syntax ("/tmp:mode=777" and the like) rewrites the tmpfs table',
    floor: 'validation',
    async probe() {
      for (const workdir of TMPFS_WORKDIRS) {
        // As workspace settings: an invalid profile, never run.
        const set = resolveProfiles([{ source: 'workspace', value: { evil: { image: IMAGES.busybox, command: ['sh', '${file}'], workdir } } }]);
        assert.equal(set.profiles.find((p) => p.name === 'evil'), undefined, workdir);
        assert.match(set.issues.find((i) => i.key === 'sandboxRunner.profiles.evil.workdir')?.message ?? '', /colons, commas/, workdir);
        // Passed to the core unvalidated: refused before docker create.
        await assertForgedRefused('evil', { ...shellProfile(), workdir }, 'workdir', 'mount | grep tmpfs\n');
      }
      // The CLI: a bad profile, exit 2, nothing run.
      const ws = await mkdtemp(join(tmpdir(), 'sr-ws-'));
      try {
        await mkdir(join(ws, '.vscode'));
        await writeFile(join(ws, '.vscode', 'settings.json'), JSON.stringify({
          'sandboxRunner.profiles': { shell: { image: IMAGES.busybox, command: ['sh', '${file}'], workdir: '/tmp:mode=777' } },
        }));
        await writeFile(join(ws, 'x.sh'), 'echo RAN\n');
        const cli = await execa('node', [CLI, '--workspace', ws, '--profile', 'shell', join(ws, 'x.sh')], { reject: false });
        assert.equal(cli.exitCode, 2, String(cli.stderr));
        assert.match(String(cli.stderr), /sandboxRunner\.profiles\.shell\.workdir: must be an absolute container path .*colons/);
        assert.doesNotMatch(String(cli.stdout), /RAN/);
      } finally {
        await rm(ws, { recursive: true, force: true });
      }
    },
    noControl: REFUSED_EARLY,
  }),
  row({
    name: 'a mount source swapped for a symlink to /etc between the check and the engine call',
    floor: 'mounts',
    probe: mountSwapProbe,
    // The same swap before the check is caught by the check itself.
    async control() {
      if (ENGINE_KIND === 'podman') return;
      for (const mode of ['ro', 'rw'] as const) {
        const data = join(env.dir, `swap-project-${mode}`, 'data');
        await rename(data, `${data}.checked`);
        await symlink('/etc', data);
        try {
          const refused = await run(shellProfile({ mounts: [{ source: data, target: '/data', mode }] }), 'echo ran\n', { warm: undefined });
          assert.equal(refused.result.error?.code, 'invalid-mount');
        } finally {
          await rm(data, { force: true });
          await rename(`${data}.checked`, data);
        }
      }
    },
  }),
];

/**
 * The swap attempt's probe: for each mount mode, the source is swapped for a symlink to /etc after
 * the check pinned it and before the engine call; then a pinned path is tried from another
 * process's view.
 */
async function mountSwapProbe(): Promise<void> {
  if (ENGINE_KIND === 'podman') {
    // Refused before any engine call, so there is no window between check and mount to use.
    const data = join(env.dir, 'swap-project-podman', 'data');
    await mkdir(data, { recursive: true });
    for (const mode of ['ro', 'rw'] as const) await assertMountsRefusedOnPodman(shellProfile({ mounts: [{ source: data, target: '/data', mode }] }));
    assert.equal(existsSync('/etc/ran'), false);
    return;
  }
  const sees = await engineSeesClientFiles();
  for (const mode of ['ro', 'rw'] as const) await swapAfterCheck(mode, sees);
  await pinnedPathElsewhere();
}

/** One mode of {@link mountSwapProbe}: the swap happens in the product's test hook, after the check. */
async function swapAfterCheck(mode: 'ro' | 'rw', sees: boolean): Promise<void> {
  const project = join(env.dir, `swap-project-${mode}`);
  const data = join(project, 'data');
  await mkdir(data, { recursive: true });
  await writeFile(join(data, 'marker.txt'), 'checked\n');
  await chmod(data, 0o777);
  let swapped = 0;
  // Test hook: runs after resolveMounts checked and pinned the source, before docker is called
  // (cold path: in the run; warm path: in the pool's preparation of the container).
  mountTestHooks.afterCheck = async (checked) => {
    if (!checked.includes(data)) return;
    mountTestHooks.afterCheck = undefined;
    await rename(data, `${data}.checked`);
    await symlink('/etc', data);
    swapped += 1;
  };
  // The shared test pool comes from the first suite file's bundle, whose copy of mounts.ts has
  // its own hook object: on the warm path this attempt prepares its container in a pool of its own.
  const pool = TEST_PATH === 'warm' ? new WarmPool({ docker: engineDocker() }) : undefined;
  try {
    const code = 'cat /data/marker.txt; test -e /data/passwd && echo HOST-ETC; echo w > /data/written 2>/dev/null && echo WROTE; echo end\n';
    const profile = shellProfile({ mounts: [{ source: data, target: '/data', mode }] });
    let prepared: string | undefined;
    if (pool) {
      pool.prepare({ name: 'test', profile });
      const ready = await pool.ready({ name: 'test', profile });
      if (sees) assert.equal(ready, true, 'the warm container was not prepared');
      [prepared] = pool.idleNames();
    }
    const r = await run(profile, code, pool ? { warm: pool } : {});
    if (sees) {
      if (pool) assert.equal(r.result.containerName, prepared, 'the run did not take the warm container');
      assert.equal(swapped, 1, 'the hook did not run');
      assert.equal(r.stdout, mode === 'rw' ? 'checked\nWROTE\nend\n' : 'checked\nend\n', `${mode}: ${r.stdout}${r.stderr}`);
      if (mode === 'rw') assert.equal(await readFile(join(`${data}.checked`, 'written'), 'utf8'), 'w\n');
    } else {
      // An engine that cannot see this client's files (engine 2) mounts nothing: refused, nothing ran.
      assert.equal(r.result.outcome, 'failed-to-start', `${mode}: ${r.result.message}`);
      assert.equal(r.stdout, '');
    }
    assert.equal(existsSync('/etc/written'), false);
  } finally {
    mountTestHooks.afterCheck = undefined;
    await pool?.dispose();
    // Not a directory unless the hook never ran (then the assertion above already failed).
    await rm(data, { force: true }).catch(() => undefined);
    await rename(`${data}.checked`, data).catch(() => undefined);
  }
}

/**
 * An engine that sees another process under this pid (another pid namespace) mounts nothing: the
 * pinned path leads through this process's anchor directory, which no other process has. Pinned
 * for the local engine (the mount probe of another engine may refuse this /tmp source); the forged
 * path is then tried on the engine under test.
 */
async function pinnedPathElsewhere(): Promise<void> {
  const pins = await resolveMounts({ name: 'swap', profile: shellProfile({ mounts: [{ source: env.dir, target: '/data' }] }) }, [], { docker: { host: LOCAL_DOCKER_HOST } });
  const sleeper = execa('sleep', ['60'], { reject: false });
  try {
    const pinned = pins.mounts[0]!.pinned!;
    const elsewhere = pinned.replace(`/proc/${process.pid}/`, `/proc/${sleeper.pid}/`);
    const out = await control([
      '--mount', `type=volume,dst=/data,volume-nocopy,volume-driver=local,volume-opt=type=none,volume-opt=o=bind,volume-opt=device=${elsewhere}`,
      IMAGES.busybox, 'sh', '-c', 'echo MOUNTED; ls /data',
    ]);
    assert.doesNotMatch(out, /MOUNTED/);
    assert.match(out, /no such file or directory|not a directory/i);
  } finally {
    sleeper.kill('SIGKILL');
    await sleeper;
    await pins.dispose();
  }
}

/** Every escape attempt, in the order the suite runs them. */
const ATTEMPTS: readonly Attempt<unknown>[] = [...NETWORK, ...HOST_FILES, ...PRIVILEGES, ...FILE_SYSTEMS, ...RESOURCES, ...VALIDATION];

/**
 * Every attempt has a unique name, a floor item and either a control or the reason it has none, and
 * every floor item is proved by some attempt. Throws an AssertionError naming the row.
 */
function assertTableComplete(): void {
  assert.equal(new Set(ATTEMPTS.map((a) => a.name)).size, ATTEMPTS.length, 'two attempts share a name');
  for (const a of ATTEMPTS) {
    assert.ok(a.floor in FLOOR, `${a.name}: unknown floor item ${a.floor}`);
    assert.ok((a.control === undefined) !== (a.noControl === undefined), `${a.name}: needs exactly one of control and noControl`);
  }
  assert.deepEqual(Object.keys(FLOOR).filter((item) => !ATTEMPTS.some((a) => a.floor === item)), [], 'floor items no attempt proves');
}

let attempts = 0;
let escaped = 0;

describe('escape attempts (engine)', function () {
  this.timeout(60_000);
  let listener: Server;

  before(async function () {
    this.timeout(120_000);
    assertTableComplete();
    await requireEngine();
    env.gateway = await bridgeGateway();
    // A host service on every interface: what a container must not reach.
    listener = createServer((socket) => {
      env.accepted += 1;
      socket.end('host-secret-banner\n');
    });
    await new Promise<void>((ok) => listener.listen(0, '0.0.0.0', ok));
    env.port = (listener.address() as { port: number }).port;
    env.dir = await mkdtemp(join(tmpdir(), 'sr-escape-'));
    if ((await engineCli(['image', 'inspect', SUID_IMAGE], { reject: false })).exitCode !== 0) {
      const dockerfile = `FROM ${IMAGES.python}\nRUN cp /usr/bin/python3.11 /usr/local/bin/suidpython && chmod 4755 /usr/local/bin/suidpython\n`;
      await engineCli(['build', '--network', 'none', '-q', '-t', SUID_IMAGE, '-'], { input: dockerfile, env: { DOCKER_BUILDKIT: '0' } });
    }
  });

  after(async () => {
    listener?.close();
    if (env.dir) await rm(env.dir, { recursive: true, force: true });
    console.log(`    escape suite: ${attempts} attempts, ${escaped} escaped`);
    requireSomeRan('escape suite', attempts);
  });

  // Each attempt: counted, its probe and then its control run, and checked for leftover containers.
  for (const attempt of ATTEMPTS) {
    it(attempt.name, async () => {
      attempts += 1;
      try {
        const state = await attempt.setup?.();
        try {
          await attempt.probe(state);
          await attempt.control?.(state);
        } finally {
          await attempt.cleanup?.(state);
        }
        assert.deepEqual(await productContainers(), [], 'the attempt left a container behind');
      } catch (e) {
        escaped += 1;
        throw e;
      }
    });
  }
});
