#!/usr/bin/env bash
# Make sure a local Docker engine is reachable, installing and starting one if needed.
#
# Idempotent and non-interactive: exits 0 at once when `docker info` already works.
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

# alive PID, running_pid NAME (zombies ignored); the functions need procps, installed below when missing.
# shellcheck source=scripts/lib/proc.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/proc.sh"

if engine_ok; then
  say "docker engine already reachable"
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
