/**
 * The seccomp profile for Podman runs. Docker's default profile lets a process without
 * CAP_SYS_ADMIN neither create namespaces (`unshare`, `clone` with a CLONE_NEW* flag, `clone3`)
 * nor `mount`/`setns`. Podman's default (containers-common `seccomp.json`, Podman 4.3) allows
 * `clone`, `clone3`, `mount`, `setns` and `unshare` to everyone, so a snippet could make a user
 * namespace and be root in it (measured: `unshare -r id -u` prints 0), a large kernel attack
 * surface Docker closes. Podman runs therefore get Podman's own profile with those calls gated as
 * Docker gates them (moby `profiles/seccomp/default.json`): written once per process into the
 * private engine work directory and passed as `--security-opt seccomp=<file>`.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { docker } from '../cli';
import { engineWorkDir } from './workDir';
import type { DockerOptions } from '../contracts';
import { SandboxError } from '../../errors';

/** One rule of an OCI/containers seccomp profile (only the fields read here are typed). */
interface SeccompRule {
  names?: string[];
  name?: string;
  action: string;
  args?: unknown[];
  includes?: { caps?: string[] };
  excludes?: { caps?: string[] };
  errnoRet?: number;
  [key: string]: unknown;
}

/** A seccomp profile in the containers/moby JSON format. */
export interface SeccompProfile {
  defaultAction: string;
  syscalls?: SeccompRule[];
  [key: string]: unknown;
}

/** Calls that create or enter namespaces, or mount: allowed only as rewritten below. */
const GATED = new Set(['clone', 'clone3', 'unshare', 'setns', 'mount', 'umount', 'umount2', 'pivot_root']);

/**
 * CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
 * CLONE_NEWNET: `clone` is allowed only when none of these flags is set (Docker's rule).
 */
export const CLONE_NEW_FLAGS = 0x7e020000;

/**
 * `profile` with every rule that grants a {@link GATED} call to a process without CAP_SYS_ADMIN
 * narrowed (the call removed from it), plus Docker's two rules: `clone` without namespace flags,
 * and `clone3` refused with ENOSYS (libc then falls back to `clone`, whose flags seccomp can see).
 * Rules that apply only with CAP_SYS_ADMIN stay (runs drop every capability). Pure.
 * @throws Error when the profile has no `syscalls` list (not a profile to narrow)
 */
export function gateNamespaceCalls(profile: SeccompProfile): SeccompProfile {
  if (!Array.isArray(profile.syscalls)) throw new Error('the seccomp profile has no "syscalls" list');
  const syscalls: SeccompRule[] = [];
  for (const rule of profile.syscalls) {
    const adminOnly = rule.includes?.caps?.includes('CAP_SYS_ADMIN') === true;
    if (adminOnly || rule.action !== 'SCMP_ACT_ALLOW') {
      syscalls.push(rule);
      continue;
    }
    const names = (rule.names ?? (rule.name ? [rule.name] : [])).filter((n) => !GATED.has(n));
    if (names.length === 0) continue;
    const narrowed: SeccompRule = { ...rule, names };
    delete narrowed.name;
    syscalls.push(narrowed);
  }
  syscalls.push(
    { names: ['clone'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value: CLONE_NEW_FLAGS, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }] },
    { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: 38 },
  );
  return { ...profile, syscalls };
}

const cache = new Map<string, Promise<string>>();

/**
 * The path of the narrowed profile for Podman at `opts.dockerPath`: Podman's own default profile
 * (`podman info` `.Host.Security.SECCOMPProfilePath`) through {@link gateNamespaceCalls}, written
 * (0600) into the private engine work directory. Cached per dockerPath for the process (written
 * again if the file is gone).
 * @throws SandboxError `limits-unsupported` when Podman runs without seccomp or its profile cannot
 *   be read: the run is refused rather than run with namespaces open
 */
export async function podmanSeccompProfile(opts: DockerOptions): Promise<string> {
  const key = opts.dockerPath || 'docker';
  let path = cache.get(key);
  // Rebuilt when the file went away (a temp cleaner removed the work directory).
  if (path && !existsSync(await path.catch(() => ''))) path = undefined;
  if (!path) {
    path = build(opts, built++);
    cache.set(key, path);
    path.catch(() => cache.delete(key));
  }
  return path;
}
let built = 0;

async function build(opts: DockerOptions, n: number): Promise<string> {
  const refuse = (why: string) =>
    new SandboxError(
      'limits-unsupported',
      `Podman's seccomp profile cannot be narrowed (${why}), so a run could create user namespaces; nothing was run.`,
      'Run Podman with seccomp enabled and its default profile installed (containers-common seccomp.json), or use Docker.',
    );
  const info = await docker(opts, ['info', '--format', '{{json .Host.Security}}']);
  if (info.exitCode !== 0) throw refuse(`"podman info" failed: ${info.stderr.trim().split('\n')[0] ?? ''}`);
  let source: string;
  let profile: SeccompProfile;
  try {
    const security = JSON.parse(info.stdout) as { seccompEnabled?: boolean; seccompProfilePath?: string };
    if (security.seccompEnabled !== true) throw new Error('seccomp is off');
    source = security.seccompProfilePath ?? '';
    if (!source.startsWith('/')) throw new Error('no default profile path');
    profile = gateNamespaceCalls(JSON.parse(await readFile(source, 'utf8')) as SeccompProfile);
  } catch (e) {
    throw refuse(e instanceof Error ? e.message : String(e));
  }
  const path = join(engineWorkDir(), `seccomp-${n}.json`);
  await writeFile(path, JSON.stringify(profile), { mode: 0o600 });
  return path;
}
