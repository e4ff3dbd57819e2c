#!/usr/bin/env bash
# The gVisor tier (issue 25), opt-in: registers Debian's runsc with the local dockerd that
# scripts/engine-up.sh started. Run by `npm run test:engine:gvisor` and before `npm run bench`'s
# gvisor section is useful; never by `npm test` (the tier is not green yet: see docs/engines.md).
# Kept out of engine-up.sh on purpose: that script runs before every suite and must not install
# packages into, or reload, an engine that is already running for someone else.
set -euo pipefail

LOG=/var/log/sandbox-runner-dockerd.log
say() { echo "gvisor-up: $*"; }
die() { echo "gvisor-up: ERROR: $*" >&2; exit 1; }
# shellcheck source=scripts/lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

docker info >/dev/null 2>&1 || die "Docker engine not reachable; run scripts/engine-up.sh first."

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

gvisor_up
