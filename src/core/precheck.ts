/**
 * The pre-code checks: what the engine says about a started container, compared with what the
 * runner asked for, while the launcher waits for the code (launcher.ts). Pure: fed with the
 * parsed inspect JSON (inspect.ts; the Engine API's shape), no I/O. Any problem means the
 * container is removed without ever seeing the code (isolation.md: "refuse it before running
 * anything"; "a run never proceeds without its limits").
 *
 * - Limits and privileges: every floor item must be present in `HostConfig` with the value asked
 *   for (an engine that cannot enforce a limit drops it there: moby `verifyPlatformContainerResources`).
 * - Mounts: only the profile's own (pinned) mounts, at their targets, with their read-only flag;
 *   an image's VOLUMEs show up here as anonymous volumes and are refused.
 * - Environment: `Config.Env` ⊆ the image's variables ∪ the floor's and profile's ∪ the engine's
 *   own constants ({@link ENGINE_ENV}); catches Docker client proxies, Podman's `--http-proxy` and
 *   `containers.conf` additions.
 */
import { DOCKER_CLIENT_PROXY_VARS, floorEnv, SANDBOX_HOME, SNIPPET_DIR, type ResolvedMount } from './argv';
import { SandboxError, type SandboxErrorCode } from './errors';
import type { ContainerInspect, ImageInspect } from './inspect';
import type { Profile } from './profile';

/** What the runner asked for. */
export interface Expected {
  readonly profile: Profile;
  /** The run's mounts (their targets and read-only flags). */
  readonly mounts: readonly ResolvedMount[];
  /**
   * Direct path only: the snippet directory's read-only bind at {@link SNIPPET_DIR} (then no
   * tmpfs is expected there). Default: the launcher's tmpfs.
   */
  readonly snippetBind?: ResolvedMount;
}

/** One way the container differs from what was asked for. */
export interface Problem {
  readonly code: Extract<SandboxErrorCode, 'limits-unsupported' | 'image-has-volumes' | 'container-refused'>;
  /** A short phrase, e.g. `HostConfig.MemorySwap is -1, not 268435456 (limits.memoryMiB, swap off)`. */
  readonly text: string;
}

/**
 * Variables an engine adds to every container by itself: name and value (a RegExp when the value
 * varies). docker: only `PATH` with its default when the image has none; Podman: `container`,
 * `TERM` and `HOSTNAME`.
 */
export const ENGINE_ENV: readonly { readonly name: string; readonly value: string | RegExp }[] = [
  { name: 'PATH', value: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' },
  { name: 'container', value: /^(podman|oci)$/ },
  { name: 'TERM', value: 'xterm' },
  { name: 'HOSTNAME', value: /^[A-Za-z0-9][A-Za-z0-9.-]{0,63}$/ },
];

const MiB = 1024 * 1024;

/** Every problem found; empty when the container is what was asked for. */
export function containerProblems(container: ContainerInspect, image: ImageInspect, expected: Expected): Problem[] {
  return [...limitProblems(container, expected), ...mountProblems(container, expected), ...envProblems(container, image, expected.profile)];
}

/** The floor's values that must be in `HostConfig`: key, value, and the setting behind it. */
function floorValues(p: Profile): [string, unknown, string][] {
  const l = p.limits;
  return [
    ['Memory', l.memoryMiB * MiB, 'limits.memoryMiB'],
    ['MemorySwap', l.memoryMiB * MiB, 'limits.memoryMiB, swap off'],
    ['NanoCpus', Math.round(l.cpus * 1e9), 'limits.cpus'],
    ['PidsLimit', l.pids, 'limits.pids'],
    ['ShmSize', l.shmMiB * MiB, 'limits.shmMiB'],
    ['ReadonlyRootfs', true, 'read-only root'],
    ['Privileged', false, 'no privileges'],
    ['NetworkMode', p.network, 'network'],
    ['IpcMode', 'private', 'private IPC'],
    ['CgroupnsMode', 'private', 'private cgroup namespace'],
    ['Init', true, 'init process'],
    ['PidMode', '', 'private pid namespace'],
    ['UTSMode', '', 'private UTS namespace'],
    ['UsernsMode', '', 'user namespace'],
    ...(p.runtime ? [['Runtime', p.runtime, 'runtime'] as [string, unknown, string]] : []),
  ];
}

/** Limits, privileges and tmpfs mounts of `HostConfig`. */
function limitProblems(container: ContainerInspect, expected: Expected): Problem[] {
  const p = expected.profile;
  const hc = container.HostConfig ?? {};
  const out: Problem[] = [];
  const limit = (text: string): Problem => ({ code: 'limits-unsupported', text });
  for (const [key, want, why] of floorValues(p)) {
    if (hc[key] !== want) out.push(limit(`HostConfig.${key} is ${JSON.stringify(hc[key] ?? null)}, not ${JSON.stringify(want)} (${why})`));
  }
  const list = (key: string) => (Array.isArray(hc[key]) ? (hc[key] as unknown[]) : []);
  if (!list('CapDrop').some((c) => String(c).toUpperCase() === 'ALL')) out.push(limit('HostConfig.CapDrop lacks ALL (no capabilities)'));
  if (list('CapAdd').length > 0) out.push(limit(`HostConfig.CapAdd is ${JSON.stringify(list('CapAdd'))}, not empty (no capabilities)`));
  if (!list('SecurityOpt').some((o) => /^no-new-privileges(?:[:=]true)?$/.test(String(o)))) {
    out.push(limit('HostConfig.SecurityOpt lacks no-new-privileges'));
  }
  for (const o of list('SecurityOpt')) {
    // Beside no-new-privileges, an added option may switch a confinement off (docker run
    // --security-opt: seccomp, apparmor, label, systempaths) without dropping any floor flag.
    if (/^(?:seccomp|apparmor|systempaths)[=:]unconfined$|^label[=:]disable$/.test(String(o))) out.push(limit(`HostConfig.SecurityOpt has ${String(o)} (default confinement)`));
  }
  if (list('GroupAdd').length > 0) out.push(limit(`HostConfig.GroupAdd is ${JSON.stringify(list('GroupAdd'))}, not empty (user ${p.user} only)`));
  const user = (container.Config as { User?: unknown } | undefined)?.User;
  if (user !== p.user) out.push(limit(`Config.User is ${JSON.stringify(user ?? null)}, not "${p.user}" (user)`));
  if (list('Devices').length > 0) out.push(limit('HostConfig.Devices is not empty (no host devices)'));
  out.push(...ulimitProblems(list('Ulimits'), p).map(limit));
  const tmpfs = (hc.Tmpfs ?? {}) as Record<string, unknown>;
  const wanted = ['/tmp', SANDBOX_HOME, ...(expected.snippetBind ? [] : [SNIPPET_DIR])];
  if (!expected.mounts.some((m) => m.target === p.workdir)) wanted.push(p.workdir);
  // The options argv.ts asked for (Docker shows them as passed): size and nosuid/nodev on every
  // tmpfs, noexec on /tmp and HOME; an added opposite (exec, suid, dev) would undo one.
  const noexec = new Set(['/tmp', SANDBOX_HOME]);
  for (const path of wanted) {
    const value = tmpfs[path];
    if (typeof value !== 'string') {
      out.push(limit(`HostConfig.Tmpfs lacks ${path}`));
      continue;
    }
    const options = value.split(',');
    const need = [`size=${p.limits.tmpfsMiB}m`, 'nosuid', 'nodev', ...(noexec.has(path) ? ['noexec'] : [])];
    const undo = ['suid', 'dev', ...(noexec.has(path) ? ['exec'] : [])];
    if (need.some((o) => !options.includes(o)) || undo.some((o) => options.includes(o))) {
      out.push(limit(`HostConfig.Tmpfs has ${path} with ${JSON.stringify(value)}, not ${need.join(',')} (limits.tmpfsMiB${noexec.has(path) ? ', noexec' : ''})`));
    }
  }
  return out;
}

/** `--ulimit nofile=1024:1024`, `core=0:0`, `fsize=N:N` must be present with these values. */
function ulimitProblems(ulimits: unknown[], p: Profile): string[] {
  const fsize = p.limits.fileSizeMiB * MiB;
  const want: [string, number][] = [['nofile', 1024], ['core', 0], ['fsize', fsize]];
  const out: string[] = [];
  for (const [name, value] of want) {
    const u = ulimits.find((x) => (x as { Name?: unknown }).Name === name) as { Soft?: unknown; Hard?: unknown } | undefined;
    if (!u || u.Soft !== value || u.Hard !== value) out.push(`HostConfig.Ulimits lacks ${name}=${value}:${value} (${name === 'fsize' ? 'limits.fileSizeMiB' : 'ulimits'})`);
  }
  return out;
}

/** `Mounts`: exactly the run's own mounts; `HostConfig.Binds`/`VolumesFrom` empty. */
function mountProblems(container: ContainerInspect, expected: Expected): Problem[] {
  const out: Problem[] = [];
  const hc = container.HostConfig ?? {};
  for (const key of ['Binds', 'VolumesFrom']) {
    if (Array.isArray(hc[key]) && (hc[key] as unknown[]).length > 0) out.push({ code: 'container-refused', text: `HostConfig.${key} is not empty` });
  }
  const own = expected.snippetBind ? [...expected.mounts, expected.snippetBind] : expected.mounts;
  const byTarget = new Map(own.map((m) => [m.target, m]));
  const seen = new Set<string>();
  for (const m of container.Mounts ?? []) {
    const dst = m.Destination ?? '';
    const own = byTarget.get(dst);
    if (!own || seen.has(dst)) {
      const volume = m.Type === 'volume';
      out.push({
        code: volume ? 'image-has-volumes' : 'container-refused',
        text: volume ? `a volume is mounted at ${dst} (declared by the image: writable, and it would outlive the run)` : `a ${m.Type ?? 'mount'} the run did not ask for is mounted at ${dst}`,
      });
      continue;
    }
    seen.add(dst);
    // A pinned mount is read-only through its volume's own options (`o=bind,ro`, argv.ts), which
    // `RW` does not show: mountProof.ts reads it from the container's mountinfo instead.
    if (own.pinned === undefined && m.RW === own.readOnly) out.push({ code: 'container-refused', text: `the mount at ${dst} is ${m.RW ? 'writable' : 'read-only'}, not as asked` });
  }
  for (const t of byTarget.keys()) if (!seen.has(t)) out.push({ code: 'container-refused', text: `the mount at ${t} is missing` });
  return out;
}

/** Splits `NAME=VALUE` (a bare `NAME` has no value: the variable is unset). */
function splitEnv(entry: string): [string, string | undefined] {
  const at = entry.indexOf('=');
  return at < 0 ? [entry, undefined] : [entry.slice(0, at), entry.slice(at + 1)];
}

/** `Config.Env` ⊆ image ∪ floor and profile ∪ engine constants; bare proxy names (unset) are allowed. */
function envProblems(container: ContainerInspect, image: ImageInspect, p: Profile): Problem[] {
  const ours = floorEnv(p);
  const fromImage = new Map((image.Config?.Env ?? []).map(splitEnv));
  const out: Problem[] = [];
  for (const entry of container.Config?.Env ?? []) {
    const [name, value] = splitEnv(entry);
    if (value === undefined && (DOCKER_CLIENT_PROXY_VARS as readonly string[]).includes(name) && !Object.hasOwn(ours, name)) continue;
    if (Object.hasOwn(ours, name) ? ours[name] === value : fromImage.has(name) && fromImage.get(name) === value) continue;
    const constant = ENGINE_ENV.find((c) => c.name === name && !Object.hasOwn(ours, name) && !fromImage.has(name));
    if (constant && value !== undefined && (typeof constant.value === 'string' ? constant.value === value : constant.value.test(value))) continue;
    out.push({ code: 'container-refused', text: `the environment variable ${JSON.stringify(name)} was added or changed by the engine or its client` });
  }
  return out;
}

/**
 * The error for a container that failed the checks: one sentence on what happened, one on what to
 * do; the code is the first problem's. The problem list is the detail.
 * @param problems non-empty result of {@link containerProblems}
 */
export function containerRefusedError(problems: readonly Problem[], image: string): SandboxError {
  const first = problems[0]!;
  const detail = problems.map((x) => x.text).join('\n');
  if (first.code === 'image-has-volumes') {
    return new SandboxError('image-has-volumes', `The image "${image}" declares volumes (${first.text}), so nothing was run.`, 'Use an image without VOLUME instructions for this profile.', detail);
  }
  if (first.code === 'limits-unsupported') {
    return new SandboxError('limits-unsupported', `The container engine did not apply every limit of the sandbox (${first.text}), so nothing was run.`, 'Use an engine and host that enforce these limits (cgroup v2, or the named cgroup controller enabled), then run again.', detail);
  }
  return new SandboxError('container-refused', `The started container differs from what the sandbox asked for (${first.text}), so nothing was run.`, 'Remove the engine or client setting that adds it (proxy settings in the docker config, containers.conf, a CLI wrapper), then run again.', detail);
}
