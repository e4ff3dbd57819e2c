import assert from 'node:assert/strict';
import { PROFILES_SETTING, RESERVED_CONTAINER_PATHS, SANDBOX_HOME, SNIPPET_DIR } from '../../src/core/layout';
import { resolveProfiles } from '../../src/core/profiles/profileResolution';
import { BUILTIN_PROFILES } from '../../src/core/profiles/defaults';

/**
 * A corpus of invalid profile values, as a cloned workspace's settings could hold them. Each must
 * be refused by `resolveProfiles` (never a valid profile), with an issue whose key is the full
 * setting key and whose message says what is allowed.
 */
interface BadCase {
  /** What the case tries. */
  readonly what: string;
  /** The profile value (merged over a valid base unless `raw`). */
  readonly profile: unknown;
  /** The expected issue key after `sandboxRunner.profiles.NAME` ("" for the profile itself). */
  readonly key: string;
  /** What the message must say (what is allowed). */
  readonly says: RegExp;
  /** Use `profile` as is, without the valid base. */
  readonly raw?: boolean;
}

const BASE = { image: 'local/tool:1', command: ['sh', '${file}'] };

const IMAGE = /must be an image reference such as "python:3\.12-slim"/;
const COMMAND = /must be a non-empty list of strings .*contains "\$\{file\}"/;
const NETWORK = /must be "none" \(the default\) or "bridge"; host and container networks are refused/;
const HOST_PATH = /must be an absolute host path without "\.\.", commas, quotes or line breaks/;
const CONTAINER_PATH = /must be an absolute container path other than "\/", without "\.\.", colons, commas or quotes, and outside \/proc, \/sys, \/dev, \/etc and \/run/;
const RESERVED = /must not be \/sandbox, \/home\/sandbox, \/tmp or inside them/;
const ENV_NAME = /must be a name matching \[A-Za-z_\]\[A-Za-z0-9_\]\*/;
const ENV_VALUE = /must be a string without NUL characters/;
const USER = /must be a numeric, non-root "UID:GID" such as "65534:65534"/;
const RUNTIME = /must be "runsc" \(gVisor\) or left out/;
const UNKNOWN = /^is not a known setting; remove it/;
const LINE_ENDINGS = /^must be "lf" \(the default: CRLF line endings become LF\) or "keep"$/;
const range = (kind: 'a whole number' | 'a number', min: number, max: number, unit: string) =>
  new RegExp(`^must be ${kind} from ${min} to ${max} \\(${unit.replace(/[()]/g, '\\$&')}\\)$`);
const MEMORY = range('a whole number', 16, 65536, 'MiB');
const CPUS = range('a number', 0.01, 64, 'CPUs');
const PIDS = range('a whole number', 8, 4096, 'processes');
const TIMEOUT = range('a number', 0.1, 86400, 'seconds');
const OUTPUT = range('a whole number', 1024, 268435456, 'bytes per stream');
const FILESIZE = range('a whole number', 1, 16384, 'MiB');
const TMPFS = range('a whole number', 1, 16384, 'MiB');

const limit = (name: string, value: unknown, says: RegExp, what: string): BadCase => ({
  what: `limits.${name} ${what}`,
  profile: { limits: { [name]: value } },
  key: `limits.${name}`,
  says,
});
const mount = (m: Record<string, unknown>, key: string, says: RegExp, what: string): BadCase => ({
  what: `mount ${what}`,
  profile: { mounts: [{ source: '/srv/project', target: '/data', ...m }] },
  key: `mounts.0.${key}`,
  says,
});

const CASES: readonly BadCase[] = [
  // image: flag injection, shell text, wrong types, lengths
  { what: 'image is a docker flag', profile: { image: '--privileged' }, key: 'image', says: IMAGE },
  { what: 'image smuggles a flag after a space', profile: { image: 'alpine --privileged' }, key: 'image', says: IMAGE },
  { what: 'image is a -v mount', profile: { image: '-v/:/host' }, key: 'image', says: IMAGE },
  { what: 'image holds shell text', profile: { image: 'alpine;rm -rf /' }, key: 'image', says: IMAGE },
  { what: 'image is empty', profile: { image: '' }, key: 'image', says: IMAGE },
  { what: 'image is a number', profile: { image: 42 }, key: 'image', says: IMAGE },
  { what: 'image is too long', profile: { image: 'a'.repeat(300) }, key: 'image', says: IMAGE },
  { what: 'image ends in a newline', profile: { image: 'alpine\n' }, key: 'image', says: IMAGE },
  { what: 'new profile without image', profile: { command: ['sh', '${file}'] }, key: 'image', says: IMAGE, raw: true },
  // command
  { what: 'command without ${file}', profile: { command: ['python3'] }, key: 'command', says: COMMAND },
  { what: 'command as a shell string', profile: { command: 'python3 ${file}' }, key: 'command', says: COMMAND },
  { what: 'command empty', profile: { command: [] }, key: 'command', says: COMMAND },
  { what: 'command item not a string', profile: { command: ['python3', 42, '${file}'] }, key: 'command.1', says: COMMAND },
  { what: 'command nested list', profile: { command: [['sh'], '${file}'] }, key: 'command.0', says: COMMAND },
  { what: 'command with $file instead of ${file}', profile: { command: ['sh', '-c', 'cat $file'] }, key: 'command', says: COMMAND },
  { what: 'command with a NUL byte', profile: { command: ['sh\0-c', '${file}'] }, key: 'command.0', says: COMMAND },
  { what: 'new profile without command', profile: { image: 'local/tool:1' }, key: 'command', says: COMMAND, raw: true },
  // limits: zero, negative, huge, "unlimited", NaN-ish, strings, fractions where whole numbers are needed
  limit('memoryMiB', 0, MEMORY, '0'),
  limit('memoryMiB', -1, MEMORY, 'negative'),
  limit('memoryMiB', 1e9, MEMORY, 'huge'),
  limit('memoryMiB', 'unlimited', MEMORY, '"unlimited"'),
  limit('memoryMiB', '512', MEMORY, 'a numeric string'),
  limit('memoryMiB', 512.5, MEMORY, 'fractional'),
  limit('memoryMiB', Number.NaN, MEMORY, 'NaN'),
  limit('memoryMiB', null, MEMORY, 'null (JSON for NaN)'),
  limit('memoryMiB', 8, MEMORY, 'below the minimum'),
  limit('cpus', 0, CPUS, '0'),
  limit('cpus', -0.5, CPUS, 'negative'),
  limit('cpus', 1000, CPUS, 'huge'),
  limit('cpus', '2', CPUS, 'a string'),
  limit('cpus', Number.POSITIVE_INFINITY, CPUS, 'Infinity'),
  limit('pids', 0, PIDS, '0 (docker: unlimited)'),
  limit('pids', -1, PIDS, '-1 (docker: unlimited)'),
  limit('pids', 1e6, PIDS, 'huge'),
  limit('pids', 'unlimited', PIDS, '"unlimited"'),
  limit('pids', 64.5, PIDS, 'fractional'),
  limit('pids', 7, PIDS, 'below the minimum'),
  limit('pids', true, PIDS, 'a boolean'),
  limit('timeoutSeconds', 0, TIMEOUT, '0'),
  limit('timeoutSeconds', -5, TIMEOUT, 'negative'),
  limit('timeoutSeconds', Number.POSITIVE_INFINITY, TIMEOUT, 'Infinity'),
  limit('timeoutSeconds', 86401, TIMEOUT, 'over a day'),
  limit('timeoutSeconds', '30s', TIMEOUT, 'a string with a unit'),
  limit('outputBytes', 0, OUTPUT, '0'),
  limit('outputBytes', 1023, OUTPUT, 'below the minimum'),
  limit('outputBytes', 1e12, OUTPUT, 'huge'),
  limit('outputBytes', 4096.5, OUTPUT, 'fractional'),
  limit('outputBytes', -1, OUTPUT, 'negative'),
  limit('fileSizeMiB', 0, FILESIZE, '0'),
  limit('fileSizeMiB', 1e9, FILESIZE, 'huge'),
  limit('fileSizeMiB', '16', FILESIZE, 'a string'),
  limit('fileSizeMiB', 'unlimited', FILESIZE, '"unlimited"'),
  limit('tmpfsMiB', 0, TMPFS, '0'),
  limit('tmpfsMiB', 2.5, TMPFS, 'fractional'),
  limit('tmpfsMiB', -64, TMPFS, 'negative'),
  { what: 'limits not an object', profile: { limits: 'strict' }, key: 'limits', says: /must be an object of limits such as \{"memoryMiB": 256/ },
  { what: 'limits with an unknown key', profile: { limits: { memorySwapMiB: 1024 } }, key: 'limits.memorySwapMiB', says: UNKNOWN },
  // network
  { what: 'network host', profile: { network: 'host' }, key: 'network', says: NETWORK },
  { what: 'network container:x', profile: { network: 'container:abc' }, key: 'network', says: NETWORK },
  { what: 'network with other case', profile: { network: 'Bridge' }, key: 'network', says: NETWORK },
  { what: 'network as a boolean', profile: { network: true }, key: 'network', says: NETWORK },
  { what: 'network as a custom network name', profile: { network: 'my-net' }, key: 'network', says: NETWORK },
  // mounts: sources
  mount({ source: 'relative/dir' }, 'source', HOST_PATH, 'with a relative source'),
  mount({ source: '/srv/project/../../etc' }, 'source', HOST_PATH, 'with ".." in the source'),
  mount({ source: '/srv/a,dst=/etc' }, 'source', HOST_PATH, 'with a comma (extra --mount field)'),
  mount({ source: '/srv/"a' }, 'source', HOST_PATH, 'with a quote'),
  mount({ source: 'named-volume' }, 'source', HOST_PATH, 'with a named-volume-like source'),
  mount({ source: '' }, 'source', HOST_PATH, 'with an empty source'),
  mount({ source: 7 }, 'source', HOST_PATH, 'with a numeric source'),
  // mounts: targets
  mount({ target: '/' }, 'target', CONTAINER_PATH, 'onto /'),
  mount({ target: '/proc/x' }, 'target', CONTAINER_PATH, 'into /proc'),
  mount({ target: '/etc' }, 'target', CONTAINER_PATH, 'onto /etc'),
  mount({ target: '/data/../etc' }, 'target', CONTAINER_PATH, 'with ".." in the target'),
  mount({ target: 'data' }, 'target', CONTAINER_PATH, 'with a relative target'),
  mount({ target: '/sys/fs/cgroup' }, 'target', CONTAINER_PATH, 'into /sys'),
  mount({ target: '/dev/shm' }, 'target', CONTAINER_PATH, 'into /dev'),
  mount({ target: '/run/docker.sock' }, 'target', CONTAINER_PATH, 'into /run'),
  mount({ target: '//proc' }, 'target', CONTAINER_PATH, 'onto //proc (normalises to /proc)'),
  mount({ target: '/a,b' }, 'target', CONTAINER_PATH, 'with a comma in the target'),
  mount({ target: '/data:ro' }, 'target', CONTAINER_PATH, 'with a colon in the target'),
  mount({ target: '/data,readonly=false' }, 'target', CONTAINER_PATH, 'with a --mount field in the target'),
  mount({ mode: 'rwx' }, 'mode', /must be "ro" \(read-only, the default\) or "rw"/, 'with mode rwx'),
  mount({ propagation: 'rshared' }, 'propagation', UNKNOWN, 'with an unknown key'),
  { what: 'mounts not a list', profile: { mounts: { source: '/srv', target: '/data' } }, key: 'mounts', says: /must be a list of bind mounts/ },
  { what: 'mount given as a string', profile: { mounts: ['/srv:/data'] }, key: 'mounts.0', says: /must be a bind mount such as \{"source": "\/abs\/host\/path"/ },
  // env
  { what: 'env name with a dash', profile: { env: { 'BAD-NAME': 'x' } }, key: 'env.BAD-NAME', says: ENV_NAME },
  { what: 'env name starting with a digit', profile: { env: { '1ABC': 'x' } }, key: 'env.1ABC', says: ENV_NAME },
  { what: 'env name empty', profile: { env: { '': 'x' } }, key: 'env.', says: ENV_NAME },
  { what: 'env name with "="', profile: { env: { 'A=B': 'x' } }, key: 'env.A=B', says: ENV_NAME },
  { what: 'env name with a space', profile: { env: { 'MY VAR': 'x' } }, key: 'env.MY VAR', says: ENV_NAME },
  { what: 'env name non-ASCII', profile: { env: { NAMÉ: 'x' } }, key: 'env.NAMÉ', says: ENV_NAME },
  { what: 'env value with NUL', profile: { env: { OK: 'a\0b' } }, key: 'env.OK', says: ENV_VALUE },
  { what: 'env value a number', profile: { env: { PORT: 8080 } }, key: 'env.PORT', says: ENV_VALUE },
  { what: 'env value null', profile: { env: { X: null } }, key: 'env.X', says: ENV_VALUE },
  { what: 'env as a list', profile: { env: ['A=1'] }, key: 'env', says: /must be an object of NAME: "value" strings/ },
  // user
  ...['0', '0:0', 'root', 'root:root', '0:1000', '1000:0', '65534', 'nobody:nogroup', '-1:-1', ' 1000:1000', '1000:1000:1000', '4294967295:1', '00:00', '010:010', '0000000001:0000065534', '1000:01000'].map(
    (user): BadCase => ({ what: `user "${user}"`, profile: { user }, key: 'user', says: USER }),
  ),
  { what: 'user as a number', profile: { user: 1000 }, key: 'user', says: USER },
  // workdir
  ...['relative', '/', '/proc', '/etc/app', '/a/../etc', '/dev', '/run/x', '/sys', '', '/a"b'].map(
    (workdir): BadCase => ({ what: `workdir "${workdir}"`, profile: { workdir }, key: 'workdir', says: CONTAINER_PATH }),
  ),
  { what: 'workdir /tmp (would make /tmp executable)', profile: { workdir: '/tmp' }, key: 'workdir', says: RESERVED },
  { what: 'workdir HOME (would make HOME executable)', profile: { workdir: '/home/sandbox' }, key: 'workdir', says: RESERVED },
  { what: 'workdir over the snippet', profile: { workdir: '/sandbox' }, key: 'workdir', says: RESERVED },
  { what: 'workdir as a number', profile: { workdir: 42 }, key: 'workdir', says: CONTAINER_PATH },
  // lineEndings: one of two words
  { what: 'lineEndings crlf', profile: { lineEndings: 'crlf' }, key: 'lineEndings', says: LINE_ENDINGS },
  { what: 'lineEndings in other case', profile: { lineEndings: 'LF' }, key: 'lineEndings', says: LINE_ENDINGS },
  { what: 'lineEndings as a boolean', profile: { lineEndings: false }, key: 'lineEndings', says: LINE_ENDINGS },
  { what: 'lineEndings null', profile: { lineEndings: null }, key: 'lineEndings', says: LINE_ENDINGS },
  // workdir values that would rewrite docker's `--tmpfs PATH:OPTIONS` table (split at the first ":",
  // options at ","): an executable /tmp or HOME, a user-owned tmpfs over /etc, a tmpfs over the snippet
  ...['/tmp:mode=777', '/tmp:exec', '/home/sandbox:exec,mode=1777', '/etc:uid=65534', '/w:rw,exec', '/sandbox:rw', '/w,exec', '/w:', ':/w'].map(
    (workdir): BadCase => ({ what: `workdir "${workdir}" (docker --tmpfs syntax)`, profile: { workdir }, key: 'workdir', says: CONTAINER_PATH }),
  ),
  // runtime: only a stronger one
  { what: 'runtime runc', profile: { runtime: 'runc' }, key: 'runtime', says: RUNTIME },
  { what: 'runtime empty', profile: { runtime: '' }, key: 'runtime', says: RUNTIME },
  { what: 'runtime by containerd name', profile: { runtime: 'io.containerd.runc.v2' }, key: 'runtime', says: RUNTIME },
  { what: 'runtime in other case', profile: { runtime: 'RUNSC' }, key: 'runtime', says: RUNTIME },
  { what: 'runtime null', profile: { runtime: null }, key: 'runtime', says: RUNTIME },
  // languages, extensions
  { what: 'languages as a string', profile: { languages: 'python' }, key: 'languages', says: /must be a list of VS Code language ids/ },
  { what: 'language id starting with "-"', profile: { languages: ['-x'] }, key: 'languages.0', says: /must be a list of VS Code language ids/ },
  { what: 'extension without a dot', profile: { extensions: ['py'] }, key: 'extensions.0', says: /with a leading dot, such as \["\.py"\]/ },
  { what: 'extension with a slash', profile: { extensions: ['.p/y'] }, key: 'extensions.0', says: /with a leading dot/ },
  // unknown keys at the top level (docker flags a workspace might try to add)
  { what: 'unknown key privileged', profile: { privileged: true }, key: 'privileged', says: UNKNOWN },
  { what: 'unknown key dockerArgs', profile: { dockerArgs: ['--cap-add', 'ALL'] }, key: 'dockerArgs', says: UNKNOWN },
  { what: 'unknown key capAdd', profile: { capAdd: ['SYS_ADMIN'] }, key: 'capAdd', says: UNKNOWN },
  { what: 'unknown key securityOpt', profile: { securityOpt: ['seccomp=unconfined'] }, key: 'securityOpt', says: UNKNOWN },
  { what: 'prototype pollution at the top', profile: JSON.parse('{"__proto__":{"network":"host"}}'), key: '__proto__', says: UNKNOWN },
  { what: 'prototype pollution in limits', profile: JSON.parse('{"limits":{"__proto__":{"pids":0}}}'), key: 'limits.__proto__', says: UNKNOWN },
  // not an object at all
  { what: 'profile is a string', profile: 'python:3.12', key: '', says: /must be an object with at least "image" and "command"/, raw: true },
  { what: 'profile is a list', profile: ['image', 'x'], key: '', says: /must be an object with at least "image" and "command"/, raw: true },
  { what: 'profile is null', profile: null, key: '', says: /must be an object with at least "image" and "command"/, raw: true },
  { what: 'profile is a number', profile: 1, key: '', says: /must be an object with at least "image" and "command"/, raw: true },
];

/** Bad profile names (the key is the name itself). */
const BAD_NAMES = ['../x', 'a b', '-leading', 'x'.repeat(65), 'semi;colon', '__proto__'];

describe('bad profile corpus (unit)', () => {
  let checked = 0;
  after(() => {
    console.log(`    bad-profile corpus: ${checked} invalid values, ${checked} refused with a clear error naming the setting key`);
  });

  it('has at least 40 distinct cases', () => {
    assert.ok(CASES.length >= 40, `${CASES.length} cases`);
    // Distinct values: NaN and Infinity are told apart from null, which JSON would make of them.
    const keep = (_k: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? `#${v}` : v);
    const fingerprints = CASES.map((c) => JSON.stringify([c.key, c.profile], keep));
    assert.equal(new Set(fingerprints).size, CASES.length, 'duplicate cases');
    assert.equal(new Set(CASES.map((c) => c.what)).size, CASES.length, 'duplicate descriptions');
  });

  for (const [i, c] of CASES.entries()) {
    it(`refuses ${c.what}`, () => {
      const name = `bad${i}`;
      const value = c.raw || typeof c.profile !== 'object' || c.profile === null || Array.isArray(c.profile)
        ? c.profile
        : Object.assign(Object.create(null) as object, BASE, c.profile);
      const set = resolveProfiles([{ source: 'workspace', value: { [name]: value } }]);
      assert.equal(set.profiles.find((p) => p.name === name), undefined, 'an invalid profile must never be usable');
      const key = c.key ? `${PROFILES_SETTING}.${name}.${c.key}` : `${PROFILES_SETTING}.${name}`;
      const issue = set.issues.find((x) => x.key === key);
      assert.ok(issue, `no issue for ${key}; got ${JSON.stringify(set.issues)}`);
      assert.match(issue.message, c.says);
      // Every issue of this profile names its full key, and says what to do.
      for (const other of set.issues) {
        assert.ok(other.key.startsWith(`${PROFILES_SETTING}.${name}`), other.key);
        assert.match(other.message, /must|remove it/, other.message);
      }
      // Built-ins survive a bad workspace profile.
      assert.deepEqual(set.profiles.map((p) => p.name).sort(), Object.keys(BUILTIN_PROFILES).sort());
      checked += 1;
    });
  }

  for (const name of BAD_NAMES) {
    it(`refuses the profile name ${JSON.stringify(name.length > 20 ? name.slice(0, 20) + '…' : name)}`, () => {
      const set = resolveProfiles([{ source: 'workspace', value: JSON.parse(JSON.stringify({ [name]: BASE })) }]);
      assert.deepEqual(set.issues.map((i) => i.key), [`${PROFILES_SETTING}.${name}`]);
      assert.match(set.issues[0]!.message, /use 1-64 letters, digits, "\.", "_" or "-"/);
      checked += 1;
    });
  }

  it('refuses a profiles setting that is not an object', () => {
    for (const value of ['python', ['python'], 42, true]) {
      const set = resolveProfiles([{ source: 'workspace', value }]);
      assert.deepEqual(set.issues.map((i) => i.key), [PROFILES_SETTING]);
      assert.match(set.issues[0]!.message, /must be an object of named profiles/);
      checked += 1;
    }
  });

  it('keeps the reserved container paths in step with the argv builder', () => {
    assert.deepEqual([...RESERVED_CONTAINER_PATHS].sort(), [SNIPPET_DIR, SANDBOX_HOME, '/tmp'].sort());
  });
});
