#!/usr/bin/env bash
# Start (once) a second, "remote-like" Docker engine for the engine suites, and load the test
# images into it. Idempotent: exits 0 quickly when the engine answers and its images are current.
#
# The second dockerd runs in its own mount, network AND pid namespaces (`unshare`), so it behaves
# like an engine on another host as far as the client's files are concerned:
#   - private /tmp (a tmpfs mounted inside its mount namespace): the client's temp files do not
#     exist there, so a bind mount of a client temp path gets the engine's own, empty directory;
#   - its own /proc (pid namespace): `/proc/<client pid>/…` paths do not lead to the client's
#     files, as on a remote host;
#   - its own network namespace with only `lo`, `--bridge none`, `--iptables=false`,
#     `--ip-forward=false`, `--ip-masq=false`: it never touches the host's iptables or the first
#     engine's docker0 bridge (a second dockerd in the host's network namespace can break it);
#   - its own --data-root, --exec-root, --pidfile, cgroup parent and socket; its own embedded
#     containerd (dockerd 20.10 starts one under its exec root when no system containerd socket
#     exists at /run/containerd/containerd.sock; this script gives it a private /run/containerd
#     inside the namespace, so it never sees or uses the first engine's, nor shares its shim
#     socket directory /run/containerd/s).
# The API socket ($SOCK) lives on the host's /run, so the client reaches it from the host
# namespace: DOCKER_HOST=unix:///run/sandbox-runner-engine2/docker.sock.
#
# Tini (docker-init) is pid 1 of the namespace and reaps orphans (shims re-parent to it); dockerd
# is its child. The engine outlives this script (setsid). Stop it with `$0 --stop` (SIGTERM to
# dockerd; tini and unshare exit after it). unshare ignores SIGTERM while it waits; when it is
# SIGKILLed (a killed session), its child tini gets SIGTERM (--kill-child) and passes it on to
# dockerd, and the namespaces die with their pid 1. The next run clears the stale pid files.
#
# Images: the ones scripts/build-test-images.sh built on the first engine are copied over with
# `docker save | docker load`, only when missing on engine 2 or when their image ID differs
# (never pulled). Needs root and the first engine (scripts/engine-up.sh, build-test-images.sh).
#
# Options: --no-images (start the engine only), --print-host (print the DOCKER_HOST value only),
# --stop (stop engine 2 and wait for it; its data root stays).
set -euo pipefail

STATE=/run/sandbox-runner-engine2
SOCK=$STATE/docker.sock
ENGINE_HOST=unix://$SOCK
EXEC_ROOT=$STATE/exec
DATA_ROOT=/var/lib/sandbox-runner-engine2
# The unshare process (host pid): the handle this script checks and a user kills.
ENGINE_PIDFILE=$STATE/engine.pid
# dockerd's own pid file (a pid inside the engine's pid namespace, so not usable from the host).
DOCKERD_PIDFILE=$STATE/dockerd.pid
CONTAINERD_RUN=$STATE/containerd-run
LOG=/var/log/sandbox-runner-engine2.log
CGROUP_PARENT=sandbox-runner-engine2
WAIT_SECONDS=60
IMAGES=(sandbox-runner-test/busybox:1 sandbox-runner-test/python:2 sandbox-runner-test/volume:1)
# Language images engine 2 also gets (the pip dependency suite runs there: ~170 MB, ~10 s to copy;
# the languages suite's lean subset: langs 1.32 GB and go 563 MB, 83 s to copy on a fresh machine).
LANGUAGE_IMAGES=(sandbox-runner-test/python-pip:1 sandbox-runner-test/langs:2 sandbox-runner-test/go:1)

say() { echo "engine2-up: $*"; }
die() {
  echo "engine2-up: ERROR: $*" >&2
  exit 1
}
log_tail() {
  echo "engine2-up: last lines of $LOG:" >&2
  tail -n 40 "$LOG" >&2 2>/dev/null || true
}

LOAD_IMAGES=1
STOP=0
for arg in "$@"; do
  case "$arg" in
    --no-images) LOAD_IMAGES=0 ;;
    --stop) STOP=1 ;;
    --print-host)
      echo "$ENGINE_HOST"
      exit 0
      ;;
    -h | --help)
      echo "usage: $0 [--no-images] [--print-host] [--stop]"
      exit 0
      ;;
    *) die "unknown argument: $arg (usage: $0 [--no-images] [--print-host] [--stop])" ;;
  esac
done

now_ms() { date +%s%3N; }
engine2() { DOCKER_HOST=$ENGINE_HOST docker "$@"; }
engine2_ok() { engine2 info >/dev/null 2>&1; }

# alive PID: exists and is not a zombie (killed daemons linger as zombies).
# shellcheck source=scripts/lib/proc.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/proc.sh"
# The unshare process recorded in $ENGINE_PIDFILE, when it is still alive and still unshare
# (a stale pid file of a killed session may name a reused pid).
engine_pid() {
  local p
  p=$(cat "$ENGINE_PIDFILE" 2>/dev/null) || return 1
  [[ $p =~ ^[0-9]+$ ]] || return 1
  alive "$p" || return 1
  [ "$(cat "/proc/$p/comm" 2>/dev/null)" = unshare ] || return 1
  echo "$p"
}
# Host pid of the dockerd under unshare pid $1 (unshare -> docker-init -> dockerd).
dockerd_of() {
  local init d
  for init in $(pgrep -P "$1"); do
    for d in $(pgrep -P "$init" -x dockerd); do
      echo "$d"
      return 0
    done
  done
  return 1
}
# Refuses an engine 2 that shares the host's network namespace (it would disturb docker0).
check_namespaces() { # DOCKERD_HOST_PID
  local ns
  for ns in net mnt pid; do
    if [ "$(readlink "/proc/$1/ns/$ns")" = "$(readlink "/proc/self/ns/$ns")" ]; then
      die "engine 2's dockerd (pid $1) is in the host's $ns namespace; stop it: bash $0 --stop"
    fi
  done
}

# Starting (or stopping) engine 2 needs root; a user of the docker group can use a running one.
need_root() {
  [ "$(id -u)" -eq 0 ] || die "engine 2 is not reachable at $ENGINE_HOST (not running, or this user may not use its socket), and starting or stopping it needs root (unshare, dockerd); run 'sudo $0'."
}
# Tools for a start (root only): installs iproute2 when `ip` is missing.
check_start_tools() {
  # shellcheck source=scripts/lib/apt.sh
  source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"
  # iproute2: `ip`, to bring up lo inside the engine's network namespace (not pulled in by docker.io).
  command -v ip >/dev/null 2>&1 || apt_install --no-install-recommends iproute2
  local tool
  for tool in unshare dockerd ip; do
    command -v "$tool" >/dev/null 2>&1 || die "'$tool' is missing (scripts/engine-up.sh installs docker.io; unshare is util-linux, ip is iproute2)"
  done
  INIT=$(command -v docker-init || true)
  [ -n "$INIT" ] || INIT=/usr/libexec/docker/docker-init
  [ -x "$INIT" ] || die "docker-init (tini) is missing; run scripts/engine-up.sh (Debian package 'tini')"
}
for tool in flock docker pgrep ps; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is missing (scripts/engine-up.sh installs docker.io and procps; flock is util-linux)"
done

if [ "$STOP" -eq 1 ]; then
  if ! pid=$(engine_pid); then
    say "engine 2 is not running (no live $ENGINE_PIDFILE)"
    exit 0
  fi
  need_root
  if d=$(dockerd_of "$pid"); then kill -TERM "$d"; else kill -KILL "$pid"; fi
  for _ in $(seq 1 300); do
    alive "$pid" || break
    sleep 0.1
  done
  if alive "$pid"; then
    say "engine 2 did not stop within 30 s; killing it (unshare pid $pid)"
    kill -KILL "$pid"
  fi
  say "engine 2 stopped"
  exit 0
fi

t0=$(now_ms)
if pid=$(engine_pid) && engine2_ok; then
  : # running: nothing to start, no root needed
else
  need_root
  check_start_tools
  # One start at a time (npm scripts started together): the second waits, then finds the engine up.
  mkdir -p "$STATE"
  exec 9>"$STATE/lock"
  flock -w 120 9 || die "another engine2-up.sh still holds $STATE/lock after 120 s"
fi
if pid=$(engine_pid) && engine2_ok; then
  say "engine 2 already reachable at $ENGINE_HOST (unshare pid $pid)"
else
  if pid=$(engine_pid); then
    # Alive but not answering: still starting (a concurrent run of this script), or wedged.
    say "engine 2 (unshare pid $pid) is running but not answering yet; waiting for it"
  else
    # A killed session leaves pid files (and maybe a socket) behind: nothing alive owns them.
    for f in "$ENGINE_PIDFILE" "$DOCKERD_PIDFILE" "$EXEC_ROOT/containerd/containerd.pid"; do
      if [ -e "$f" ]; then
        say "removing stale $f ($(cat "$f" 2>/dev/null || echo '?'))"
        rm -f "$f"
      fi
    done
    if [ -S "$SOCK" ]; then
      if engine2_ok; then
        die "$SOCK answers but no engine started by this script owns it (no live $ENGINE_PIDFILE); stop that dockerd first"
      fi
      say "removing stale socket $SOCK"
      rm -f "$SOCK"
    fi
    # (The engine may have died between the two checks above: then the tools were not checked yet.)
    [ -n "${INIT:-}" ] || { need_root; check_start_tools; }
    mkdir -p "$STATE" "$EXEC_ROOT" "$DATA_ROOT" "$CONTAINERD_RUN" "$(dirname "$LOG")"
    chmod 0711 "$STATE"
    # Its own (empty) daemon config, so /etc/docker/daemon.json of the first engine never applies.
    echo '{}' >"$STATE/daemon.json"
    echo "=== engine2-up: starting dockerd at $(date -u +%Y-%m-%dT%H:%M:%SZ) ===" >>"$LOG"
    say "starting dockerd in its own mount, network and pid namespaces (log: $LOG)"
    # The engine must not inherit the lock (fd 9), or it would hold it for its whole life.
    # Inside the namespaces (argv only, the paths are constants above):
    #   a private tmpfs on /tmp; a private /run/containerd (a host directory of its own, bound
    #   over the first engine's); lo up; then dockerd.
    # shellcheck disable=SC2016 # expanded by the inner shell, from its arguments
    inner='set -e
mount -t tmpfs -o mode=1777,nosuid,nodev,size=256m tmpfs /tmp
mkdir -p /run/containerd
mount --bind "$1" /run/containerd
ip link set lo up
shift
exec "$@"'
    setsid nohup unshare --mount --net --pid --fork --kill-child=SIGTERM --mount-proc --propagation private -- \
      "$INIT" -s -g -- sh -c "$inner" engine2-init "$CONTAINERD_RUN" \
      dockerd \
      --host "$ENGINE_HOST" \
      --data-root "$DATA_ROOT" \
      --exec-root "$EXEC_ROOT" \
      --pidfile "$DOCKERD_PIDFILE" \
      --config-file "$STATE/daemon.json" \
      --bridge none \
      --iptables=false \
      --ip6tables=false \
      --ip-forward=false \
      --ip-masq=false \
      --userland-proxy=false \
      --cgroup-parent "$CGROUP_PARENT" \
      --exec-opt native.cgroupdriver=cgroupfs \
      </dev/null >>"$LOG" 2>&1 9>&- &
    pid=$!
    disown "$pid" 2>/dev/null || true
    echo "$pid" >"$ENGINE_PIDFILE"
  fi
  start=$(now_ms)
  while ! engine2_ok; do
    if ! alive "$pid"; then
      echo "engine2-up: engine 2 (unshare pid $pid) exited before answering" >&2
      log_tail
      exit 1
    fi
    if [ $(($(now_ms) - start)) -ge $((WAIT_SECONDS * 1000)) ]; then
      echo "engine2-up: engine 2 still not answering at $ENGINE_HOST after ${WAIT_SECONDS} s" >&2
      log_tail
      exit 1
    fi
    sleep 0.1
  done
  say "engine 2 answered after $(($(now_ms) - start)) ms"
fi

dockerd_pid=$(dockerd_of "$pid") || {
  log_tail
  die "no dockerd found under engine 2's unshare pid $pid"
}
check_namespaces "$dockerd_pid"
say "engine 2 ready at $ENGINE_HOST ($(engine2 info --format 'server {{.ServerVersion}}, {{.Driver}}, cgroup {{.CgroupDriver}}, root {{.DockerRootDir}}' 2>/dev/null), dockerd host pid $dockerd_pid, own net/mnt/pid namespaces)"

if [ "$LOAD_IMAGES" -eq 1 ]; then
  docker info >/dev/null 2>&1 || die "the first engine is not reachable; run scripts/engine-up.sh first"
  for image in "${IMAGES[@]}" "${LANGUAGE_IMAGES[@]}"; do
    want=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null) ||
      die "test image $image is missing on the first engine; run scripts/build-test-images.sh first"
    have=$(engine2 image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
    if [ "$have" = "$want" ]; then
      say "$image present on engine 2 ($want)"
      continue
    fi
    ti=$(now_ms)
    # pipefail: a failed save or load fails the script.
    docker save "$image" | engine2 load -q >/dev/null || die "copying $image to engine 2 failed"
    have=$(engine2 image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
    [ "$have" = "$want" ] || die "$image on engine 2 has ID '$have' after the load, expected $want"
    say "$image loaded into engine 2 in $(($(now_ms) - ti)) ms"
  done
fi
say "done in $(($(now_ms) - t0)) ms"
