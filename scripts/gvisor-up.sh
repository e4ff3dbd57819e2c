#!/usr/bin/env bash
# The gVisor tier (issue 25): registers Debian's runsc with the local dockerd that
# scripts/engine-up.sh started. Run by `npm run test:engine:gvisor` (part of `npm test`) and
# before `npm run bench`'s gvisor section.
# Kept out of engine-up.sh on purpose: that script runs before every suite and must not install
# packages into, or reload, an engine that is already running for someone else.
set -euo pipefail

LOG=/var/log/sandbox-runner-dockerd.log
say() { echo "gvisor-up: $*"; }
die() { echo "gvisor-up: ERROR: $*" >&2; exit 1; }
# shellcheck source=scripts/lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

docker info >/dev/null 2>&1 || die "Docker engine not reachable; run scripts/engine-up.sh first."

# alive PID, running_pid NAME (zombies ignored).
# shellcheck source=scripts/lib/proc.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/proc.sh"

# gVisor tier (issue 25): Debian's runsc registered as the runtime "runsc" of the local dockerd,
# with `--platform=ptrace` (no KVM needed), `--network=none` (on this kernel runsc refuses to
# start a container with networking from the root network namespace: "cannot run with network
# enabled in root network namespace"; the floor has no network anyway, and a profile with
# `network: "bridge"` under runsc is therefore refused by the engine) and `--oci-seccomp` (without
# it runsc ignores the container's seccomp profile: the program inside saw `Seccomp: 0` and could
# call unshare(2) inside gVisor's kernel; with it the engine's default profile filters the
# program's calls inside the sandbox as under runc, a floor item). The daemon reloads its
# configuration on SIGHUP, which keeps running containers; it is never restarted here.
# Idempotent: nothing happens when `docker info` already lists runsc with exactly these arguments.
# Only for a dockerd whose configuration is /etc/docker/daemon.json (this script's own, or Debian's
# docker.io).
DAEMON_JSON=/etc/docker/daemon.json
RUNSC_ARGS='["--platform=ptrace","--network=none","--oci-seccomp"]'
# True when the engine lists runsc with exactly RUNSC_ARGS.
registered() {
  docker info --format '{{json .Runtimes}}' 2>/dev/null | node -e '
    let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => {
      let r; try { r = JSON.parse(t).runsc; } catch { process.exit(1); }
      process.exit(r && JSON.stringify(r.runtimeArgs ?? []) === process.argv[1] ? 0 : 1);
    });' "$RUNSC_ARGS"
}
gvisor_up() {
  if registered; then
    say "gVisor runtime runsc already registered ($RUNSC_ARGS)"
    return 0
  fi
  [ "$(id -u)" -eq 0 ] || die "the gVisor runtime runsc is not registered with the engine with the arguments $RUNSC_ARGS, and doing it needs root; run 'sudo $0'."
  apt_install --no-install-recommends runsc
  local runsc pid
  runsc=$(command -v runsc) || die "runsc is not on PATH after installing Debian package runsc"
  mkdir -p "$(dirname "$DAEMON_JSON")"
  # Merge into an existing configuration (node is present: the suites run on it); keep other keys.
  node -e '
    const fs = require("fs");
    const [file, path, args] = process.argv.slice(1);
    let conf = {};
    try { conf = JSON.parse(fs.readFileSync(file, "utf8")); } catch (e) { if (e.code !== "ENOENT") throw e; }
    conf.runtimes = { ...(conf.runtimes || {}), runsc: { path, runtimeArgs: JSON.parse(args) } };
    fs.writeFileSync(file + ".tmp", JSON.stringify(conf, null, 2) + "\n");
    fs.renameSync(file + ".tmp", file);
  ' "$DAEMON_JSON" "$runsc" "$RUNSC_ARGS"
  pid=$(running_pid dockerd) || die "no running dockerd to reload"
  say "registered runsc in $DAEMON_JSON; reloading dockerd (SIGHUP, pid $pid)"
  kill -HUP "$pid"
  local i
  for i in $(seq 1 40); do
    if registered; then
      say "gVisor runtime runsc registered"
      return 0
    fi
    sleep 0.5
  done
  die "dockerd did not list runsc 20 s after the reload; see $LOG"
}

gvisor_up
