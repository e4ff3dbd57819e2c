# shellcheck shell=bash
# npm helpers for the set-up scripts (sourced, not run). Nested npm commands start from a clean npm
# environment, whoever ran the script: plain bash, `npm run`, `npm exec` or a CI step.
#
# Why: `npm run` exports its whole resolved configuration as npm_config_* variables (among them
# npm_config_user_agent="npm/… node/v20… …"), npm_package_*/npm_lifecycle_* variables, NODE,
# INIT_CWD, and prepends its node's folder and node_modules/.bin folders to PATH. A nested npm
# reads npm_config_* as its own configuration and passes them on to lifecycle scripts: code-server's
# postinstall then reads "node/v20" from npm_config_user_agent and refuses to install on Node 24.
# Settings a nested install needs belong in ~/.npmrc or the global npmrc (which it still reads), or
# are passed explicitly as NAME=VALUE below.

# npm_clean_path: prints $PATH without what npm run prepended: the folder of npm's node
# ($npm_node_execpath) when it is the first entry, every …/node_modules/.bin folder and npm's
# node-gyp-bin folder. Other entries keep their order.
npm_clean_path() {
  local IFS=: entry out='' first=1 node_dir=''
  if [ -n "${npm_node_execpath:-}" ]; then node_dir=$(dirname "$npm_node_execpath"); fi
  for entry in $PATH; do
    if [ "$first" -eq 1 ] && [ -n "$node_dir" ] && [ "$entry" = "$node_dir" ]; then
      first=0
      continue
    fi
    first=0
    case $entry in
      */node_modules/.bin | */node_modules/.bin/ | */node-gyp-bin | */node-gyp-bin/) continue ;;
    esac
    out=${out:+$out:}$entry
  done
  echo "$out"
}

# npm_clean [NAME=VALUE...] CMD [ARG...]: runs CMD with no inherited npm_*/NPM_* variable (any
# case), no NODE and no INIT_CWD, PATH from npm_clean_path; then the given NAME=VALUE settings
# (a later PATH=… replaces the cleaned one). Built from the names in the current environment, so
# variables a future npm adds under these prefixes go too.
npm_clean() {
  local unset=() name path
  path=$(npm_clean_path)
  while IFS= read -r name; do
    case $name in
      [nN][pP][mM]_* | NODE | INIT_CWD) unset+=(-u "$name") ;;
    esac
  done < <(compgen -e)
  env "${unset[@]}" PATH="$path" "$@"
}

# The global npmrc of the machine's npm, read once when this file is sourced (before any PATH
# change): it may hold the machine's cafile, registry or proxy. npm looks for its global npmrc
# under the prefix of the node that runs it, so a nested npm run by another node (Node 24 for
# code-server) would miss it: every fetch then failed TLS (SELF_SIGNED_CERT_IN_CHAIN) and fell back
# to the stale cache, 70 s a package, unless NODE_EXTRA_CA_CERTS happened to be set.
NPM_MACHINE_GLOBALCONFIG=$(npm_clean npm config get globalconfig 2>/dev/null </dev/null || true)

# npm_install PREFIX [NAME=VALUE...] SPEC...: `npm install` into PREFIX from a clean npm
# environment (npm_clean) with the machine's global npmrc, quiet, without prompts, audits, funding
# or update notices; never reads stdin; npm's output goes to stderr. NAME=VALUE arguments (before
# the first SPEC) are set for npm.
npm_install() {
  local prefix=$1 envs=()
  shift
  if [ -n "$NPM_MACHINE_GLOBALCONFIG" ] && [ -f "$NPM_MACHINE_GLOBALCONFIG" ]; then
    envs+=("npm_config_globalconfig=$NPM_MACHINE_GLOBALCONFIG")
  fi
  while [ "$#" -gt 0 ] && [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
    envs+=("$1")
    shift
  done
  npm_clean "${envs[@]}" npm install --prefix "$prefix" --no-save --no-audit --no-fund --no-update-notifier --loglevel=error "$@" </dev/null >&2
}
