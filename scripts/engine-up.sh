#!/usr/bin/env bash
# Make sure a local Docker engine is reachable, installing and starting one if needed.
#
# Idempotent and non-interactive: when `docker info` already works, only the gVisor step below runs.
# Otherwise (root only) installs the Debian packages below, mounts the cgroup hierarchies when
# nothing mounted them, clears stale pid files left by a killed dockerd, starts dockerd fully
# detached and waits for it.
#
# Debian packages, each named even when docker.io only recommends it (installed with
# --no-install-recommends, so a machine whose apt skips recommends gets the same set), each only
# when this machine lacks what it provides:
#   procps          pgrep and ps, used here to find a running dockerd;
#   docker.io       dockerd and the docker CLI (Depends: containerd, runc, iptables), when there
#                   is no dockerd (an installed Docker CE is used as it is);
#   tini            docker-init, used by `docker run --init`;
#   cgroupfs-mount  when /proc/mounts shows no cgroup hierarchy (a machine without systemd):
#                   docker.io recommends it and its install mounts them, unless policy-rc.d
#                   forbids starting services, so this script then runs it too;
#   apparmor        apparmor_parser, when the kernel has AppArmor on: dockerd loads its
#                   docker-default profile with it, and containers cannot start without it.
# docker.io's other recommends (ca-certificates, git, xz-utils, needrestart) serve pulls, git
# build contexts, xz imports and service restarts; the tests use none of them.
set -euo pipefail

LOG=/var/log/sandbox-runner-dockerd.log
PIDFILE=/var/run/docker.pid
# dockerd 20.10 supervises its own containerd and keeps its pid here.
CONTAINERD_PIDFILE=/var/run/docker/containerd/containerd.pid
WAIT_SECONDS=60

say() { echo "engine-up: $*"; }
die() { echo "engine-up: ERROR: $*" >&2; exit 1; }

engine_ok() { docker info >/dev/null 2>&1; }

# Killed daemons can linger as zombies (pgrep and kill -0 still see them): ignore those.
alive() {
  local st
  st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ $st != Z* ]]
}
running_pid() { # NAME -> first live pid
  local p
  for p in $(pgrep -x "$1"); do
    if alive "$p"; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# gVisor tier (issue 25): Debian's runsc registered as the runtime "runsc" of the local dockerd,
# with `--platform=ptrace` (no KVM needed) and `--network=none` (on this kernel runsc refuses to
# start a container with networking from the root network namespace: "cannot run with network
# enabled in root network namespace"; the floor has no network anyway, and a profile with
# `network: "bridge"` under runsc is therefore refused by the engine). The daemon reloads its
# configuration on SIGHUP, which keeps running containers; it is never restarted here.
# Idempotent: nothing happens when `docker info` already lists runsc. Only for a dockerd whose
# configuration is /etc/docker/daemon.json (this script's own, or Debian's docker.io).
DAEMON_JSON=/etc/docker/daemon.json
gvisor_up() {
  if docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; then
    say "gVisor runtime runsc already registered"
    return 0
  fi
  [ "$(id -u)" -eq 0 ] || die "the gVisor runtime runsc is not registered with the engine and doing it needs root; run 'sudo $0'."
  apt_install --no-install-recommends runsc
  local runsc pid
  runsc=$(command -v runsc) || die "runsc is not on PATH after installing Debian package runsc"
  mkdir -p "$(dirname "$DAEMON_JSON")"
  # Merge into an existing configuration (node is present: the suites run on it); keep other keys.
  node -e '
    const fs = require("fs");
    const [file, path] = process.argv.slice(1);
    let conf = {};
    try { conf = JSON.parse(fs.readFileSync(file, "utf8")); } catch (e) { if (e.code !== "ENOENT") throw e; }
    conf.runtimes = { ...(conf.runtimes || {}), runsc: { path, runtimeArgs: ["--platform=ptrace", "--network=none"] } };
    fs.writeFileSync(file + ".tmp", JSON.stringify(conf, null, 2) + "\n");
    fs.renameSync(file + ".tmp", file);
  ' "$DAEMON_JSON" "$runsc"
  pid=$(running_pid dockerd) || die "no running dockerd to reload"
  say "registered runsc in $DAEMON_JSON; reloading dockerd (SIGHUP, pid $pid)"
  kill -HUP "$pid"
  local i
  for i in $(seq 1 40); do
    if docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; then
      say "gVisor runtime runsc registered"
      return 0
    fi
    sleep 0.5
  done
  die "dockerd did not list runsc 20 s after the reload; see $LOG"
}

if engine_ok; then
  say "docker engine already reachable"
  # shellcheck source=scripts/lib/apt.sh
  source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"
  gvisor_up
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  die "the Docker engine is not reachable and installing/starting it needs root; run 'sudo $0' (or start Docker yourself)."
fi

# shellcheck source=scripts/lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

have_docker_init() {
  # dockerd looks for docker-init on PATH and in /usr/libexec/docker.
  # On bookworm /usr/bin/docker-init (from docker.io) is a symlink to /usr/bin/tini-static
  # (from tini, a Depends of docker.io); -x follows the symlink.
  [ -x /usr/bin/docker-init ] || [ -x /usr/libexec/docker/docker-init ] || command -v docker-init >/dev/null 2>&1
}

if ! command -v pgrep >/dev/null 2>&1 || ! command -v ps >/dev/null 2>&1; then
  apt_install --no-install-recommends procps
fi
if ! command -v dockerd >/dev/null 2>&1; then
  wait_for_apt # a concurrent install may be about to provide it
fi
if ! command -v dockerd >/dev/null 2>&1; then
  apt_install --no-install-recommends docker.io tini
fi

# cgroup v1 hierarchies or the v2 unified hierarchy; dockerd refuses to start without either.
cgroups_mounted() { awk '$3 == "cgroup" || $3 == "cgroup2" { found = 1 } END { exit !found }' /proc/mounts; }
if ! cgroups_mounted; then
  apt_install --no-install-recommends cgroupfs-mount
fi
if ! cgroups_mounted; then
  say "no cgroup hierarchy mounted; running cgroupfs-mount"
  cgroupfs-mount || die "cgroupfs-mount failed; dockerd needs the cgroup hierarchies mounted"
  cgroups_mounted || die "still no cgroup hierarchy in /proc/mounts after cgroupfs-mount"
fi
if [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ] && ! command -v apparmor_parser >/dev/null 2>&1; then
  apt_install --no-install-recommends apparmor
fi
if ! have_docker_init; then
  apt_install --no-install-recommends tini
fi
if ! have_docker_init && [ -x /usr/bin/tini-static ]; then
  ln -sf tini-static /usr/bin/docker-init
fi
have_docker_init || die "docker-init (tini) is missing; 'docker run --init' would fail. Install Debian package 'tini'."

if dockerd_pid=$(running_pid dockerd); then
  say "dockerd already running (pid $dockerd_pid); waiting for it"
else
  # A killed dockerd leaves its pid file behind; if that pid was reused, the next dockerd refuses to start.
  if [ -e "$PIDFILE" ]; then
    say "removing stale $PIDFILE (pid $(cat "$PIDFILE" 2>/dev/null || echo '?'))"
    rm -f "$PIDFILE"
  fi
  if [ -e "$CONTAINERD_PIDFILE" ] && ! running_pid containerd >/dev/null; then
    say "removing stale $CONTAINERD_PIDFILE"
    rm -f "$CONTAINERD_PIDFILE"
  fi
  mkdir -p "$(dirname "$LOG")"
  echo "=== engine-up: starting dockerd at $(date -u +%Y-%m-%dT%H:%M:%SZ) ===" >>"$LOG"
  say "starting dockerd (log: $LOG)"
  # Not a process-group leader here, so setsid execs dockerd directly: $! is dockerd's pid.
  setsid nohup dockerd </dev/null >>"$LOG" 2>&1 &
  dockerd_pid=$!
  disown "$dockerd_pid" 2>/dev/null || true
fi

start=$(date +%s)
while ! engine_ok; do
  now=$(date +%s)
  if ! alive "$dockerd_pid"; then
    echo "engine-up: dockerd (pid $dockerd_pid) exited; last lines of $LOG:" >&2
    tail -n 30 "$LOG" >&2 || true
    exit 1
  fi
  if [ $((now - start)) -ge "$WAIT_SECONDS" ]; then
    echo "engine-up: docker info still failing after ${WAIT_SECONDS} s; last lines of $LOG:" >&2
    tail -n 30 "$LOG" >&2 || true
    exit 1
  fi
  sleep 0.5
done

say "docker engine ready after $(($(date +%s) - start)) s ($(docker info --format 'server {{.ServerVersion}}, cgroup driver {{.CgroupDriver}}, storage {{.Driver}}' 2>/dev/null || echo 'server info unavailable'))"
gvisor_up
