#!/usr/bin/env bash
# The programs the unit suite runs besides Node: the shells that run a copied `sandbox-run`
# command line (bash, zsh) and the shells the container launcher is tested under (dash,
# busybox sh from busybox-static). Installs the missing Debian packages by name; idempotent and
# quick when everything is there. Never reads stdin.
set -euo pipefail
say() { echo "unit-tools: $*"; }
die() { echo "unit-tools: ERROR: $*" >&2; exit 1; }
# shellcheck source=scripts/lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

need=()
command -v bash >/dev/null 2>&1 || need+=(bash)
command -v zsh >/dev/null 2>&1 || need+=(zsh)
command -v dash >/dev/null 2>&1 || need+=(dash)
command -v busybox >/dev/null 2>&1 || need+=(busybox-static)
if [ "${#need[@]}" -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || die "missing ${need[*]}: install them (apt-get install ${need[*]}) or run as root"
  say "installing ${need[*]}"
  apt_install --no-install-recommends "${need[@]}"
fi
for p in bash zsh dash busybox; do command -v "$p" >/dev/null 2>&1 || die "$p is still missing"; done
