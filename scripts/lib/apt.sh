# shellcheck shell=bash
# Shared apt helpers for the set-up scripts (sourced, not run). The caller defines
# `say MESSAGE` and `die MESSAGE`. Non-interactive, never reads stdin, waits for other apt/dpkg
# runs instead of fighting them for the lock.

export DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=a NEEDRESTART_SUSPEND=1
APT_UPDATED=0
# Serialises the apt calls of this project's set-up scripts (apt_install).
APT_SERIAL_LOCK=/var/lib/apt/sandbox-runner.lock

# Waits (up to 15 minutes) while another apt-get/apt/dpkg process runs.
wait_for_apt() {
  local waited=0
  # Without procps (a minimal machine) nothing to look at: apt-get's DPkg::Lock::Timeout still waits.
  command -v pgrep >/dev/null 2>&1 || return 0
  while pgrep -x apt-get >/dev/null || pgrep -x apt >/dev/null || pgrep -x dpkg >/dev/null; do
    if [ "$waited" -eq 0 ]; then say "waiting for another apt/dpkg process to finish"; fi
    if [ "$waited" -ge 900 ]; then die "apt/dpkg still busy after ${waited} s"; fi
    sleep 2
    waited=$((waited + 2))
  done
}

# True when Debian package $1 is installed.
pkg_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# apt_install [--no-install-recommends] PACKAGE...: installs the packages that are missing (root only).
apt_install() {
  local opts=() pkgs=() p
  for p in "$@"; do
    if [ "$p" = --no-install-recommends ]; then opts+=("$p"); elif ! pkg_installed "$p"; then pkgs+=("$p"); fi
  done
  [ "${#pkgs[@]}" -gt 0 ] || return 0
  [ "$(id -u)" -eq 0 ] || die "missing Debian packages: ${pkgs[*]}; run 'sudo apt-get install -y ${pkgs[*]}' or run this script as root."
  # One set-up script's apt at a time (.ci/run installs the host tools while the images build):
  # `apt-get update` does not wait for another one's lists lock, it fails (measured), and the
  # pgrep in wait_for_apt cannot close the race between two of these scripts. flock can.
  (
    flock -w 900 9 || die "another set-up script held $APT_SERIAL_LOCK for 15 minutes"
    wait_for_apt
    # Packages another script installed while this one waited are not asked for again.
    local todo=() q
    for q in "${pkgs[@]}"; do pkg_installed "$q" || todo+=("$q"); done
    [ "${#todo[@]}" -gt 0 ] || exit 0
    if [ "$APT_UPDATED" -eq 0 ]; then
      say "apt-get update"
      apt-get -o DPkg::Lock::Timeout=600 update -qq </dev/null >/dev/null
    fi
    say "apt-get install ${todo[*]}"
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${opts[@]}" "${todo[@]}" </dev/null >/dev/null
  ) 9>"$APT_SERIAL_LOCK" || exit $?
  APT_UPDATED=1
}
