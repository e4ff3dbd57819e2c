# shellcheck shell=bash
# Shared process helpers for the set-up scripts (sourced, not run): engine-up.sh and gvisor-up.sh
# find the running dockerd with them; engine2-up.sh checks its engine's pids with `alive`. Need procps (ps, pgrep).

# True when process $1 exists and is not a zombie: killed daemons can linger as zombies, which
# pgrep and `kill -0` still see.
alive() {
  local st
  st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ $st != Z* ]]
}

# running_pid NAME: prints the first live pid whose process name is exactly NAME; false when none.
running_pid() {
  local p
  for p in $(pgrep -x "$1"); do
    if alive "$p"; then
      echo "$p"
      return 0
    fi
  done
  return 1
}
