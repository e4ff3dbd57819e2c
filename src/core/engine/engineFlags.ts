/**
 * Engine warnings about the flags of `docker create`. The engine does not fail a create whose
 * resource limits the kernel cannot enforce: it drops the limit, creates the container anyway
 * and returns a warning, which the docker CLI prints on stderr as `WARNING: …` (moby
 * `daemon/daemon_unix.go`, `verifyContainerResources` and `verifyPlatformContainerSettings`).
 * A run must never proceed without its limits (SECURITY.md, "Limits are never dropped"), so any such warning
 * fails the run before the container starts.
 */
import { SandboxError } from '../errors';

/** One limit the engine said it dropped or could not apply. */
export interface DiscardedLimit {
  /** What was dropped, in the profile's terms, e.g. `limits.memoryMiB (swap off)`. */
  readonly limit: string;
  /** The engine's warning, verbatim (without the `WARNING:` prefix). */
  readonly warning: string;
  /** One sentence saying how to make the engine enforce it. */
  readonly fix: string;
}

const CGROUP_FIX =
  'Run on a host whose kernel has the cgroup controller enabled (cgroup v2, or the cgroup mounted on v1), then run again.';

/**
 * Known warnings, most specific first: the regex, the limit it concerns, and the fix.
 * Texts are the engine's (Docker 20.10–27): "Your kernel does not support X or the cgroup is not
 * mounted. Y discarded." and "… Memory limited without swap."
 */
const KNOWN: readonly { re: RegExp; limit: string; fix: string }[] = [
  {
    re: /swap limit|limited without swap|memory-swap|memoryswap/i,
    limit: 'limits.memoryMiB (swap off: --memory-swap)',
    fix: 'Enable swap accounting (boot the kernel with "swapaccount=1", or use cgroup v2), then run again.',
  },
  {
    re: /kernel memory/i,
    limit: 'kernel memory limit',
    fix: CGROUP_FIX,
  },
  {
    re: /memory limit|memory capabilit|memory (soft limit|reservation|swappiness)/i,
    limit: 'limits.memoryMiB (--memory)',
    fix: 'Enable the memory cgroup (boot the kernel with "cgroup_enable=memory", or use cgroup v2), then run again.',
  },
  {
    re: /pids limit|pids cgroup|PIDs limit/i,
    limit: 'limits.pids (--pids-limit)',
    fix: 'Enable the pids cgroup controller on the Docker host (cgroup v2 has it), then run again.',
  },
  {
    re: /cpu cfs|cpu quota|cpu period|nanocpus|cpu shares|cpu realtime|cpuset/i,
    limit: 'limits.cpus (--cpus)',
    fix: 'Enable the cpu cgroup controller with CFS bandwidth control on the Docker host, then run again.',
  },
  {
    re: /cgroup namespace/i,
    limit: 'private cgroup namespace (--cgroupns private)',
    fix: 'Use a kernel with cgroup namespaces (Linux 4.6 or later), then run again.',
  },
  {
    re: /ulimit|rlimit/i,
    limit: 'ulimits (nofile, core, fsize)',
    fix: 'Use a Docker engine that applies --ulimit, then run again.',
  },
  {
    re: /block i\/o|blkio/i,
    limit: 'block I/O limit',
    fix: CGROUP_FIX,
  },
];

/** Words that mark a warning as "a setting was dropped or not applied". */
const DROPPED = /discard|not support|unsupported|limited without|ignor|not (be )?(set|applied|enforced)|disabled/i;

/** Warnings that are known to be harmless for a sandbox run (they make it weaker in nothing). */
const HARMLESS = [
  // Only with `--network bridge`: the container then has less network, not more.
  /IPv4 forwarding is disabled/i,
  // The image was built for another platform; no isolation setting is involved.
  /requested image's platform .* does not match/i,
];

/**
 * The limits a `docker create` stderr says were discarded or unsupported (empty when none).
 * Only `WARNING:` lines count (and, with `opts.bareLines`, for Podman, every line); any such line with "discarded", "does not support",
 * "unsupported", "limited without" or "ignored" is a dropped limit, named when recognised, so an
 * unknown future warning of that kind still fails closed.
 * @param stderr everything `docker create` printed on stderr
 * @param opts.bareLines Podman: lines without the `WARNING:` prefix count too
 */
export function discardedLimits(stderr: string, opts: { bareLines?: boolean } = {}): DiscardedLimit[] {
  const out: DiscardedLimit[] = [];
  for (const raw of stderr.split(/\r?\n/)) {
    // Podman prints the same engine text as a bare line ("Your kernel does not support Block I/O
    // weight … Weight discarded.", measured with Podman 4.3): there a bare line counts when it
    // says something was dropped. Its `podman create` prints nothing else on stderr when it succeeds.
    const m = /^\s*WARNING:\s*(.+?)\s*$/i.exec(raw) ?? (opts.bareLines ? /^\s*(?:WARN\[\d+\]\s*)?(.+?)\s*$/.exec(raw) : null);
    if (!m) continue;
    const warning = m[1]!;
    if (HARMLESS.some((re) => re.test(warning)) || !DROPPED.test(warning)) continue;
    const known = KNOWN.find((k) => k.re.test(warning));
    out.push({
      limit: known?.limit ?? 'an isolation setting',
      warning,
      fix: known?.fix ?? CGROUP_FIX,
    });
  }
  return out;
}

/**
 * The error for a create whose limits were not all applied (code `limits-unsupported`).
 * @param dropped non-empty result of {@link discardedLimits}
 */
export function limitsDiscardedError(dropped: readonly DiscardedLimit[]): SandboxError {
  const first = dropped[0]!;
  const names = [...new Set(dropped.map((d) => d.limit))].join(', ');
  return new SandboxError(
    'limits-unsupported',
    `The Docker engine cannot enforce ${names} on this host ("${first.warning}"), so nothing was run.`,
    first.fix,
    dropped.map((d) => `WARNING: ${d.warning}`).join('\n'),
  );
}
