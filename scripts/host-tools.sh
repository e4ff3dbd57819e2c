#!/usr/bin/env bash
# Installs, once, the toolchain the extension-host tests need, and caches it OUTSIDE the repo:
#   - Debian packages, each named even when another package only recommends it (apt runs with
#     --no-install-recommends, and a new machine has only what is listed here):
#       chromium          the headless client of the host suites and UI checks;
#       fonts-liberation  chromium's recommended fonts: the workbench text in the UI checks'
#                         screenshots (metric-compatible Arial/Times/Courier);
#       libgl1-mesa-dri   chromium's recommended Mesa drivers (its GL fallback when headless);
#       libkrb5-dev build-essential python3 pkg-config   code-server's install compiles native
#                         modules with node-gyp (kerberos, node-pty, spdlog, sqlite3);
#       procps            pgrep, used while waiting for another apt run (scripts/lib/apt.sh).
#     chromium's other recommends (upower, udev, notification-daemon, system-config-printer) serve
#     a desktop session: power, device hot-plug, notifications, printing; headless uses none.
#     The machine's own node and npm (Node 20) run this script; they are the README's prerequisites.
#   - Node 24 for the server (`npm i node@24`; VS Code 1.139's server hangs on Node 20);
#   - code-server (a VS Code server with its web workbench), installed with that Node 24 on PATH.
# The extension and its other tests keep using the machine's Node 20.
# Every nested npm starts from a clean npm environment (scripts/lib/npm.sh): under `npm run` the
# outer npm's npm_config_* variables (its user agent names Node 20) would otherwise reach
# code-server's postinstall, which then refuses to install.
#
# Cache: ${SANDBOX_RUNNER_TOOLS:-/var/cache/sandbox-runner-host}
#   bin/node          Node 24
#   bin/code-server   wrapper running code-server on Node 24
#   stamp             what is installed; a matching stamp makes a later call return at once
# Idempotent, non-interactive, never reads stdin. apt-get needs root (as in CI); without root the
# missing Debian packages are named and the script fails.
# With SANDBOX_RUNNER_HOST=desktop (desktop VS Code downloaded by @vscode/test-electron) it does nothing.
# Usage: bash scripts/host-tools.sh [--quiet] [--print-env]   (--print-env prints `export` lines)
set -euo pipefail

TOOLS=${SANDBOX_RUNNER_TOOLS:-/var/cache/sandbox-runner-host}
NODE_SPEC=24
CODE_SERVER_VERSION=4.139.1
APT_PACKAGES=(chromium fonts-liberation libgl1-mesa-dri libkrb5-dev build-essential python3 pkg-config procps)
STAMP_FORMAT=1
WANTED="format=$STAMP_FORMAT node=$NODE_SPEC code-server=$CODE_SERVER_VERSION apt=$(
  IFS=,
  echo "${APT_PACKAGES[*]}"
)"
STAMP=$TOOLS/stamp
QUIET=0
PRINT_ENV=0
for arg in "$@"; do
  case $arg in
    --quiet) QUIET=1 ;;
    --print-env) PRINT_ENV=1 ;;
    *)
      echo "host-tools: unknown argument: $arg" >&2
      exit 2
      ;;
  esac
done

if [ "${SANDBOX_RUNNER_HOST:-}" = desktop ]; then
  echo "host-tools: SANDBOX_RUNNER_HOST=desktop: @vscode/test-electron downloads desktop VS Code; nothing to install" >&2
  exit 0
fi

t_start=$(date +%s%N)
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
say() { [ "$QUIET" -eq 1 ] || echo "host-tools: $*" >&2; }
die() {
  echo "host-tools: ERROR: $*" >&2
  exit 1
}
print_env() {
  if [ "$PRINT_ENV" -eq 1 ]; then
    echo "export SANDBOX_RUNNER_TOOLS=$TOOLS"
    echo "export SANDBOX_RUNNER_CODE_SERVER=$TOOLS/bin/code-server"
  fi
}

missing_apt() {
  local p
  for p in "${APT_PACKAGES[@]}"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || echo "$p"
  done
}

# Fast path: a stamp for exactly these versions, the binaries in place, the packages installed.
if [ -f "$STAMP" ] && [ "$(head -n 1 "$STAMP")" = "$WANTED" ] &&
  [ -x "$TOOLS/bin/node" ] && [ -x "$TOOLS/bin/code-server" ] && [ -x /usr/bin/chromium ] &&
  [ -z "$(missing_apt)" ]; then
  say "cached in $TOOLS ($(sed -n 2p "$STAMP")); checked in $(ms_since "$t_start") ms"
  print_env
  exit 0
fi

mkdir -p "$TOOLS" 2>/dev/null || die "cannot create $TOOLS; set SANDBOX_RUNNER_TOOLS to a writable folder"
[ -w "$TOOLS" ] || die "$TOOLS is not writable; set SANDBOX_RUNNER_TOOLS to a writable folder"

# One installer at a time (a host suite and a UI check may start together); the second waits.
exec 9>"$TOOLS/.lock"
if ! flock -w 1800 9; then die "another host-tools run holds $TOOLS/.lock for over 30 minutes"; fi
if [ -f "$STAMP" ] && [ "$(head -n 1 "$STAMP")" = "$WANTED" ] && [ -x "$TOOLS/bin/code-server" ] && [ -z "$(missing_apt)" ]; then
  say "installed by a concurrent run; ready"
  print_env
  exit 0
fi
rm -f "$STAMP"
say "installing into $TOOLS (cold install: ~1.3 GB, a few minutes)"

# --- Debian packages ---------------------------------------------------------------------------
step_t=$(date +%s%N)
mapfile -t missing < <(missing_apt)
if [ "${#missing[@]}" -gt 0 ]; then
  # shellcheck source=scripts/lib/apt.sh
  source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"
  apt_install --no-install-recommends "${missing[@]}"
fi
[ -x /usr/bin/chromium ] || die "/usr/bin/chromium is missing after installing Debian package chromium"
say "debian packages ready in $(ms_since "$step_t") ms"

# npm_install PREFIX [NAME=VALUE...] SPEC...: npm as installed on this machine, from a clean npm
# environment, quiet and without prompts or audits.
# shellcheck source=scripts/lib/npm.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/npm.sh"

# --- Node 24 -----------------------------------------------------------------------------------
step_t=$(date +%s%N)
NODE_DIR=$TOOLS/node$NODE_SPEC
if [ ! -f "$NODE_DIR/.complete" ] || ! "$NODE_DIR/node_modules/.bin/node" --version >/dev/null 2>&1; then
  rm -rf "$NODE_DIR"
  mkdir -p "$NODE_DIR"
  echo '{"private":true}' >"$NODE_DIR/package.json"
  say "npm install node@$NODE_SPEC"
  npm_install "$NODE_DIR" "node@$NODE_SPEC"
  touch "$NODE_DIR/.complete"
fi
# The npm package `node` installs node-<os>-<arch>, the official binary tarball's content (bin/node
# and the C headers): node-gyp must build against these headers, not against the machine's Node 20
# (npm's nodedir may point there), and must not try to download them.
NODE_HOME=$(find "$NODE_DIR/node_modules" -maxdepth 4 -type d -name "node-$(uname -s | tr '[:upper:]' '[:lower:]')-*" | head -n 1)
[ -n "$NODE_HOME" ] && [ -x "$NODE_HOME/bin/node" ] || die "the node@$NODE_SPEC package left no node-<os>-<arch> folder under $NODE_DIR/node_modules"
NODE_BIN=$NODE_HOME/bin/node
node_version=$("$NODE_BIN" --version)
case $node_version in v"$NODE_SPEC".*) ;; *) die "expected Node $NODE_SPEC, got $node_version from $NODE_BIN" ;; esac
[ -f "$NODE_HOME/include/node/node.h" ] || die "Node $node_version headers not found under $NODE_HOME/include/node"
mkdir -p "$TOOLS/bin"
ln -sfn "$NODE_BIN" "$TOOLS/bin/node"
say "node $node_version ready in $(ms_since "$step_t") ms"

# --- code-server -------------------------------------------------------------------------------
step_t=$(date +%s%N)
CS_DIR=$TOOLS/code-server-$CODE_SERVER_VERSION
CS_ENTRY=$CS_DIR/node_modules/code-server/out/node/entry.js
if [ ! -f "$CS_DIR/.complete" ] || [ ! -f "$CS_ENTRY" ]; then
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  echo '{"private":true}' >"$CS_DIR/package.json"
  say "npm install code-server@$CODE_SERVER_VERSION (with node $node_version; compiles native modules)"
  # Node 24 first on PATH: npm, its lifecycle scripts and node-gyp then all run on Node 24, and
  # npm's user agent (which code-server's postinstall checks) names Node 24.
  npm_install "$CS_DIR" PATH="$TOOLS/bin:$(npm_clean_path)" npm_config_nodedir="$NODE_HOME" --unsafe-perm "code-server@$CODE_SERVER_VERSION"
  [ -f "$CS_ENTRY" ] || die "code-server's entry point $CS_ENTRY is missing after npm install"
  touch "$CS_DIR/.complete"
fi
cat >"$TOOLS/bin/code-server" <<EOF
#!/bin/sh
# Generated by sandbox-runner scripts/host-tools.sh: code-server $CODE_SERVER_VERSION on Node $node_version.
PATH="$TOOLS/bin:\$PATH"
export PATH
exec "$TOOLS/bin/node" "$CS_ENTRY" "\$@"
EOF
chmod 755 "$TOOLS/bin/code-server"
scratch_home=$(mktemp -d)
cs_version=$(HOME=$scratch_home XDG_CONFIG_HOME=$scratch_home XDG_DATA_HOME=$scratch_home \
  timeout 60 "$TOOLS/bin/code-server" --version </dev/null 2>/dev/null | grep -E '^[0-9]+[.][0-9]+[.][0-9]+ ' | head -n 1) || cs_version=
rm -rf "$scratch_home"
[ -n "$cs_version" ] || die "code-server --version failed; try: $TOOLS/bin/code-server --version"
say "code-server $cs_version ready in $(ms_since "$step_t") ms"

chromium_version=$(dpkg-query -W -f='${Version}' chromium)
{
  echo "$WANTED"
  echo "node $node_version, code-server $cs_version, chromium $chromium_version"
  echo "installed $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(($(ms_since "$t_start") / 1000)) s"
} >"$STAMP.tmp"
mv "$STAMP.tmp" "$STAMP"
say "ready in $(($(ms_since "$t_start") / 1000)) s: $(sed -n 2p "$STAMP") ($(du -sh "$TOOLS" 2>/dev/null | cut -f1) in $TOOLS)"
print_env
