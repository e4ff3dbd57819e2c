/**
 * The pre-code checks: what the engine says about a started container, compared with what the
 * runner asked for, while the launcher waits for the code (launcher.ts). Pure: fed with the
 * parsed inspect JSON (inspect.ts; the Engine API's shape), no I/O. Any problem means the
 * container is removed without ever seeing the code (SECURITY.md, "The container is checked
 * before the code is sent"; "A run never proceeds without its limits").
 *
 * - Limits and privileges: every floor item must be present in `HostConfig` with the value asked
 *   for (an engine that cannot enforce a limit drops it there: moby `verifyPlatformContainerResources`).
 * - Mounts: only the profile's own (pinned) mounts, at their targets, with their read-only flag;
 *   an image's VOLUMEs show up here as anonymous volumes and are refused.
 * - Environment: `Config.Env` ⊆ the image's variables ∪ the floor's and profile's ∪ the engine's
 *   own constants ({@link ENGINE_ENV}); catches Docker client proxies, Podman's `--http-proxy` and
 *   `containers.conf` additions.
 */
import { DOCKER_CLIENT_PROXY_VARS, floorEnv, MASK_FILE_SOURCE, PODMAN_INIT, PODMAN_NPROC, type ResolvedMount } from '../container/argv';
import { MiB, SANDBOX_HOME, SNIPPET_DIR } from '../layout';
import type { EngineSpec } from '../engine/podman/engineSpec';
import { SandboxError, type SandboxErrorCode } from '../errors';
import type { ContainerInspect, ImageInspect } from '../engine/contracts';
import type { Profile } from '../profiles/profileSchema';

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
  /**
   * The engine the argv was built for (engineKind.ts `engineSpec`); default Docker. On Podman the
   * inspect shapes differ and some floor items are proved on the host instead (podmanProof.ts).
   */
  readonly engine?: EngineSpec;
}

/** One way the container differs from what was asked for. */
export interface Problem {
  readonly code: Extract<SandboxErrorCode, 'limits-unsupported' | 'image-has-volumes' | 'container-refused'>;
  /** A short phrase, e.g. `HostConfig.MemorySwap is -1, not 268435456 (limits.memoryMiB, swap off)`. */
  readonly text: string;
}

/**
 * Variables an engine adds to every container by itself: name and value (a RegExp when the value
 * varies). docker: only `PATH` with its default when the image has none. Podman 4.3 adds none
 * with the runner's flags (measured: `--unsetenv TERM --unsetenv container --http-proxy=false`,
 * argv.ts `podmanFlags`); a `TERM`, `container` or proxy variable in its `Config.Env` means those
 * flags were lost, so it is refused like any other addition. Podman does show `HOSTNAME` in a
 * started container's `Config.Env` (not in a created one's, measured): allowed there only with the
 * container's own `Config.Hostname` as its value ({@link envProblems}). Docker shows none of these.
 */
export const ENGINE_ENV: readonly { readonly name: string; readonly value: string | RegExp }[] = [
  { name: 'PATH', value: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' },
];

/** Every problem found; empty when the container is what was asked for. */
export function containerProblems(container: ContainerInspect, image: ImageInspect, expected: Expected): Problem[] {
  return [...limitProblems(container, expected), ...mountProblems(container, expected), ...envProblems(container, image, expected)];
}

/** The floor's values that must be in `HostConfig`: key, value, and the setting behind it. */
function floorValues(p: Profile, podman: boolean): [string, unknown, string][] {
  const l = p.limits;
  return [
    ...(podman ? podmanNamespaceValues() : dockerNamespaceValues()),
    ['Memory', l.memoryMiB * MiB, 'limits.memoryMiB'],
    ['MemorySwap', l.memoryMiB * MiB, 'limits.memoryMiB, swap off'],
    ['NanoCpus', Math.round(l.cpus * 1e9), 'limits.cpus'],
    ['PidsLimit', l.pids, 'limits.pids'],
    ['ShmSize', l.shmMiB * MiB, 'limits.shmMiB'],
    ['ReadonlyRootfs', true, 'read-only root'],
    ['Privileged', false, 'no privileges'],
    ['NetworkMode', p.network, 'network'],
    ['UsernsMode', '', 'user namespace'],
    ...(p.runtime ? [['Runtime', p.runtime, 'runtime'] as [string, unknown, string]] : []),
  ];
}

/** Docker's namespace and init values (Engine API `HostConfig`). */
function dockerNamespaceValues(): [string, unknown, string][] {
  return [
    ['IpcMode', 'private', 'private IPC'],
    ['CgroupnsMode', 'private', 'private cgroup namespace'],
    ['Init', true, 'init process'],
    ['PidMode', '', 'private pid namespace'],
    ['UTSMode', '', 'private UTS namespace'],
  ];
}

/**
 * Podman 4.3's words for the same namespaces (libpod `container_inspect.go`, measured with the
 * runner's argv): `--ipc private` shows as `shareable` (its own IPC namespace; Podman has no
 * distinct inspect value), pid and UTS as `private`, the cgroup namespace as `CgroupMode`. That
 * each namespace is really the container's own is proved on the host (podmanProof.ts). `Init` is
 * not set: catatonit is the entrypoint (argv.ts `podmanInit`), checked in {@link podmanInitProblems}.
 */
function podmanNamespaceValues(): [string, unknown, string][] {
  return [
    ['IpcMode', 'shareable', 'private IPC'],
    ['CgroupMode', 'private', 'private cgroup namespace'],
    ['PidMode', 'private', 'private pid namespace'],
    ['UTSMode', 'private', 'private UTS namespace'],
  ];
}

/**
 * Podman: the init process is catatonit from `engine.initPath`, bound read-only at
 * {@link PODMAN_INIT} and run as the entrypoint with `-g --` (process-group signals); Podman's own
 * `--init` (`HostConfig.Init`) is off. The seccomp profile must be the runner's narrowed one.
 */
function podmanInitProblems(container: ContainerInspect, engine: EngineSpec): Problem[] {
  const out: Problem[] = [];
  const hc = container.HostConfig ?? {};
  const cfg = (container.Config ?? {}) as { Entrypoint?: unknown; Cmd?: unknown };
  const entry = Array.isArray(cfg.Entrypoint) ? cfg.Entrypoint : [cfg.Entrypoint];
  const cmd = Array.isArray(cfg.Cmd) ? cfg.Cmd : [];
  if (hc.Init === true) out.push({ code: 'container-refused', text: 'HostConfig.Init is true (Podman\'s own init runs without -g)' });
  if (entry.length !== 1 || entry[0] !== PODMAN_INIT || cmd[0] !== '-g' || cmd[1] !== '--') {
    out.push({ code: 'limits-unsupported', text: `Config.Entrypoint is ${JSON.stringify(cfg.Entrypoint ?? null)}, not ${PODMAN_INIT} -g -- (init process)` });
  }
  const secOpt = Array.isArray(hc.SecurityOpt) ? (hc.SecurityOpt as unknown[]) : [];
  if (!engine.seccompProfile || !secOpt.includes(`seccomp=${engine.seccompProfile}`)) {
    out.push({ code: 'limits-unsupported', text: 'HostConfig.SecurityOpt lacks the runner\'s seccomp profile (no namespace creation)' });
  }
  return out;
}

/** Limits, privileges and tmpfs mounts of `HostConfig`. */
function limitProblems(container: ContainerInspect, expected: Expected): Problem[] {
  const p = expected.profile;
  const hc = container.HostConfig ?? {};
  const out: Problem[] = [];
  const limit = (text: string): Problem => ({ code: 'limits-unsupported', text });
  const podman = expected.engine?.engine === 'podman';
  for (const [key, want, why] of floorValues(p, podman)) {
    if (hc[key] !== want) out.push(limit(`HostConfig.${key} is ${JSON.stringify(hc[key] ?? null)}, not ${JSON.stringify(want)} (${why})`));
  }
  const list = (key: string) => (Array.isArray(hc[key]) ? (hc[key] as unknown[]) : []);
  // Podman lists the dropped default capabilities instead of ALL: the empty sets are proved on
  // the host there (podmanProof.ts, /proc/<pid>/status), CapAdd must still be empty.
  if (podman) out.push(...podmanInitProblems(container, expected.engine!));
  else if (!list('CapDrop').some((c) => String(c).toUpperCase() === 'ALL')) out.push(limit('HostConfig.CapDrop lacks ALL (no capabilities)'));
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
  out.push(...ulimitProblems(list('Ulimits'), p, podman).map(limit));
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

/**
 * `--ulimit nofile=1024:1024`, `core=0:0`, `fsize=N:N` (Podman also `nproc`, argv.ts
 * {@link PODMAN_NPROC}) must be present with these values. Podman names them `RLIMIT_NOFILE`….
 */
function ulimitProblems(ulimits: unknown[], p: Profile, podman: boolean): string[] {
  const fsize = p.limits.fileSizeMiB * MiB;
  const want: [string, number][] = [['nofile', 1024], ['core', 0], ['fsize', fsize], ...(podman ? [['nproc', PODMAN_NPROC] as [string, number]] : [])];
  const nameOf = (x: unknown) => {
    const n = String((x as { Name?: unknown }).Name);
    return podman ? n.replace(/^RLIMIT_/, '').toLowerCase() : n;
  };
  const out: string[] = [];
  for (const [name, value] of want) {
    const u = ulimits.find((x) => nameOf(x) === name) as { Soft?: unknown; Hard?: unknown } | undefined;
    if (!u || u.Soft !== value || u.Hard !== value) out.push(`HostConfig.Ulimits lacks ${name}=${value}:${value} (${name === 'fsize' ? 'limits.fileSizeMiB' : 'ulimits'})`);
  }
  return out;
}

/** `Mounts`: exactly the run's own mounts; `HostConfig.Binds`/`VolumesFrom` empty. */
function mountProblems(container: ContainerInspect, expected: Expected): Problem[] {
  const out: Problem[] = [];
  const hc = container.HostConfig ?? {};
  const init = podmanInitMount(expected);
  const volumeTargets = new Set((container.Mounts ?? []).filter((m) => m.Type === 'volume').map((m) => m.Destination ?? ''));
  for (const key of ['Binds', 'VolumesFrom']) {
    const list = Array.isArray(hc[key]) ? (hc[key] as unknown[]) : [];
    // Podman lists `--mount type=bind` and the image's anonymous volumes in Binds too: only
    // catatonit's own bind may be there; a volume's entry is refused below, as `image-has-volumes`.
    const extra = list.filter((b) => !(init && key === 'Binds' && typeof b === 'string' && (b.startsWith(`${init.source}:${PODMAN_INIT}:ro,`) || volumeTargets.has(b.split(':')[1] ?? ''))));
    if (extra.length > 0) out.push({ code: 'container-refused', text: `HostConfig.${key} is not empty` });
  }
  const own = [...expected.mounts, ...(expected.snippetBind ? [expected.snippetBind] : []), ...(init ? [init] : [])];
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
    if (own.volume !== undefined && (m.Type !== 'volume' || m.Name !== own.volume)) out.push({ code: 'container-refused', text: `the mount at ${dst} is not volume ${own.volume}` });
    if (own === init && (m.Type !== 'bind' || m.Source !== init.source)) out.push({ code: 'container-refused', text: `the mount at ${dst} is not ${init.source}` });
    // A workspace mask (argv.ts `maskMount`) must be what hides the entry: an empty tmpfs, or /dev/null.
    if (own.mask === 'dir' && m.Type !== 'tmpfs') out.push({ code: 'container-refused', text: `the mask at ${dst} is a ${m.Type ?? 'mount'}, not an empty tmpfs` });
    if (own.mask === 'file' && (m.Type !== 'bind' || m.Source !== MASK_FILE_SOURCE)) out.push({ code: 'container-refused', text: `the mask at ${dst} is not ${MASK_FILE_SOURCE}` });
  }
  for (const t of byTarget.keys()) if (!seen.has(t)) out.push({ code: 'container-refused', text: `the mount at ${t} is missing` });
  return out;
}

/** Podman: catatonit's read-only bind at {@link PODMAN_INIT} (argv.ts `podmanInit`), else none. */
function podmanInitMount(expected: Expected): ResolvedMount | undefined {
  const e = expected.engine;
  if (e?.engine !== 'podman' || !e.initPath) return undefined;
  return { source: e.initPath, target: PODMAN_INIT, readOnly: true } as ResolvedMount;
}

/** Splits `NAME=VALUE` (a bare `NAME` has no value: the variable is unset). */
function splitEnv(entry: string): [string, string | undefined] {
  const at = entry.indexOf('=');
  return at < 0 ? [entry, undefined] : [entry.slice(0, at), entry.slice(at + 1)];
}

/** `Config.Env` ⊆ image ∪ floor and profile ∪ engine constants; bare proxy names (unset) are allowed. */
function envProblems(container: ContainerInspect, image: ImageInspect, expected: Expected): Problem[] {
  const p = expected.profile;
  const ours = floorEnv(p);
  const hostname = (container.Config as { Hostname?: unknown } | undefined)?.Hostname;
  const podmanHostname = expected.engine?.engine === 'podman' && typeof hostname === 'string' && hostname !== '' ? hostname : undefined;
  const fromImage = new Map((image.Config?.Env ?? []).map(splitEnv));
  const out: Problem[] = [];
  for (const entry of container.Config?.Env ?? []) {
    const [name, value] = splitEnv(entry);
    if (value === undefined && (DOCKER_CLIENT_PROXY_VARS as readonly string[]).includes(name) && !Object.hasOwn(ours, name)) continue;
    if (Object.hasOwn(ours, name) ? ours[name] === value : fromImage.has(name) && fromImage.get(name) === value) continue;
    if (podmanHostname !== undefined && name === 'HOSTNAME' && value === podmanHostname && !Object.hasOwn(ours, name) && !fromImage.has(name)) continue;
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
