#!/usr/bin/env bash
# Build the local test images used by Sandbox Runner's tests, without any registry.
#
#   sandbox-runner-test/busybox:1  static busybox (Debian busybox-static) + applet symlinks
#   sandbox-runner-test/python:2   debootstrap minbase bookworm + python3-minimal and its standard
#                                  library (libpython3.11-stdlib: getpass, termios, json, …)
#   sandbox-runner-test/volume:1   the busybox rootfs with `VOLUME /data`
#   sandbox-runner-test/langs:2    debootstrap minbase bookworm + the toolchains of the built-in
#                                  c, cpp, bash, ruby, perl, php, rust, java and r profiles
#                                  (issue 23): gcc, g++, libc6-dev (gcc only recommends it), ruby,
#                                  php-cli, perl, rustc, openjdk-17-jdk-headless, r-base-core; and
#                                  the typescript profile's Node ($TS_NODE_VERSION's bin/node from
#                                  the npm registry's node-linux-<arch> package, as host-tools.sh
#                                  gets Node 24: bookworm's nodejs is 18, without type stripping)
#   sandbox-runner-test/go:1       debootstrap minbase bookworm + golang-go (the go profile)
#   sandbox-runner-test/python-pip:1  debootstrap minbase bookworm + python3-pip: the image whose
#                                  install container runs pip (issue 22, test/engine/dependencies)
#   sandbox-runner-test/python-notebook:1  the python image + Debian's python3-matplotlib and
#                                  python3-ipython (and what they depend on), installed by apt
#                                  in one `docker build` step on top of it: the host suite's
#                                  notebook kernel (issue 24); 62.7 MB of archives, 176-197 s
#                                  on the 2-CPU test machine under load, 532 MB (python: 142 MB)
#   sandbox-runner-test/node-npm:1 the langs image (its Node) + npm $NPM_VERSION from the npm
#                                  registry (`npm pack npm`, one layer of ~19 MB): the image whose
#                                  install container runs npm (issue 22, test/engine/npmDependencies)
#
# Images that already exist are kept unless --force is given. Every image is then
# smoke-tested under the same restrictions the extension uses.
# Needs a reachable Docker engine (scripts/engine-up.sh); root to install the Debian packages
# below and to run debootstrap. Packages are installed with --no-install-recommends, so each one
# a build needs is named, recommended ones included:
#   busybox-static          the busybox and volume images;
#   debootstrap             the python image (Depends: wget);
#   debian-archive-keyring  debootstrap's recommended keyring, to check the bookworm Release file
#                           (not on non-Debian hosts such as Ubuntu);
#   gpgv                    what debootstrap checks the signature with (its recommended gnupg
#                           is only a fallback);
#   ca-certificates         for wget when the mirror is https (SANDBOX_RUNNER_DEBIAN_MIRROR or
#                           this machine's apt sources).
set -euo pipefail

BUSYBOX_IMAGE=sandbox-runner-test/busybox:1
PYTHON_IMAGE=sandbox-runner-test/python:2
VOLUME_IMAGE=sandbox-runner-test/volume:1
LANGS_IMAGE=sandbox-runner-test/langs:2
# The typescript profile's Node in the langs image; bump LANGS_IMAGE's tag when changing it.
TS_NODE_VERSION=24.21.0
GO_IMAGE=sandbox-runner-test/go:1
PIP_IMAGE=sandbox-runner-test/python-pip:1
NPM_IMAGE=sandbox-runner-test/node-npm:1
NOTEBOOK_IMAGE=sandbox-runner-test/python-notebook:1
# npm in the node-npm image (needs Node ^20.17 || >=22.9: the langs image's $TS_NODE_VERSION); bump NPM_IMAGE's tag when changing it.
NPM_VERSION=11.19.1
SUITE=bookworm

say() { echo "build-test-images: $*"; }
die() { echo "build-test-images: ERROR: $*" >&2; exit 1; }

FORCE=0
LANGUAGES=1
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    --no-languages) LANGUAGES=0 ;;
    -h | --help)
      echo "usage: $0 [--force] [--no-languages]   (rebuild images even if present; skip the langs, go, python-pip and node-npm images, which only the language and dependency suites use)"
      exit 0
      ;;
    *) die "unknown argument: $arg (usage: $0 [--force] [--no-languages])" ;;
  esac
done

docker info >/dev/null 2>&1 || die "Docker engine not reachable (or not accessible to this user); run scripts/engine-up.sh first."

# shellcheck source=scripts/lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

# Debian mirror of this machine's apt sources (deb822 *.sources and one-line *.list files).
debian_mirror() {
  if [ -n "${SANDBOX_RUNNER_DEBIAN_MIRROR:-}" ]; then
    echo "$SANDBOX_RUNNER_DEBIAN_MIRROR"
    return
  fi
  local files=() f uri
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  uri=""
  if [ "${#files[@]}" -gt 0 ]; then
    uri=$(
      awk '
        /^[[:space:]]*#/ { next }
        /^[[:space:]]*deb[[:space:]]/ {           # one-line: deb [opts] URI suite comps
          i = 2
          if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
          print $i; next
        }
        /^URIs:/ { for (i = 2; i <= NF; i++) print $i }
      ' "${files[@]}" |
        sed 's:/*$::' |
        grep -E '^https?://[^/]+(/.*)?/debian$' |
        head -n1
    ) || true
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

WORK=""
DEBOOTSTRAP_ROOT=""
cleanup() {
  [ -n "$WORK" ] && [ -d "$WORK" ] || return 0
  # debootstrap mounts proc/sys (and maybe dev) inside its target; if it died half-way they
  # may still be mounted: unmount them so that rm cannot reach the host's files.
  local mnt
  awk '{print $2}' /proc/mounts | grep -F "$WORK/" | sort -r | while read -r mnt; do
    umount -l "$mnt" 2>/dev/null || true
  done || true
  rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sandbox-runner-images.XXXXXX")

# Busybox rootfs, shared by the busybox and volume images; built on first use.
BUSYBOX_ROOT=""
busybox_rootfs() {
  [ -n "$BUSYBOX_ROOT" ] && return 0
  apt_install --no-install-recommends busybox-static
  local root=$WORK/busybox-root applet
  mkdir -p "$root"/{bin,usr/bin,etc,root,tmp,dev,proc,sys}
  chmod 1777 "$root/tmp"
  chmod 700 "$root/root"
  cp /bin/busybox "$root/bin/busybox"
  for applet in $("$root/bin/busybox" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
  done
  # For `#!/usr/bin/env ...` scripts.
  ln -sf ../../bin/busybox "$root/usr/bin/env"
  cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
  cat >"$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
  [ -x "$root/bin/sh" ] || die "busybox rootfs has no /bin/sh applet"
  BUSYBOX_ROOT=$root
}

import_rootfs() { # ROOT IMAGE [docker import -c CHANGES...]
  local root=$1 image=$2
  shift 2
  local changes=() c
  for c in "$@"; do changes+=(-c "$c"); done
  tar -C "$root" --numeric-owner --one-file-system -c . | docker import "${changes[@]}" - "$image" >/dev/null
}

build_busybox() {
  busybox_rootfs
  import_rootfs "$BUSYBOX_ROOT" "$BUSYBOX_IMAGE" 'ENV PATH=/bin:/usr/bin'
}

build_volume() {
  busybox_rootfs
  import_rootfs "$BUSYBOX_ROOT" "$VOLUME_IMAGE" 'ENV PATH=/bin:/usr/bin' 'VOLUME /data'
}

# debootstrap --variant=minbase of $SUITE into $WORK/NAME-root with the packages INCLUDE
# (comma-separated), shrunk, then imported as IMAGE. debootstrap installs no recommended
# packages, so INCLUDE names every one a test needs.
debootstrap_image() { # IMAGE NAME INCLUDE
  local image=$1 name=$2 include=$3
  [ "$(id -u)" -eq 0 ] || die "building $image needs root (debootstrap); run 'sudo $0'."
  apt_install --no-install-recommends debootstrap debian-archive-keyring gpgv ca-certificates
  local root=$WORK/$name-root mirror log=$WORK/debootstrap-$name.log
  mirror=$(debian_mirror)
  say "debootstrap $SUITE from $mirror for $image"
  if ! debootstrap --variant=minbase --include="$include" "$SUITE" "$root" "$mirror" >"$log" 2>&1 </dev/null; then
    tail -n 30 "$log" >&2
    [ -f "$root/debootstrap/debootstrap.log" ] && tail -n 30 "$root/debootstrap/debootstrap.log" >&2
    die "debootstrap failed"
  fi
  # Shrink: apt caches/lists, docs, logs.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/* \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/log/* "$root"/debootstrap
  DEBOOTSTRAP_ROOT=$root
}

build_python() {
  debootstrap_image "$PYTHON_IMAGE" python python3-minimal,libpython3.11-stdlib
  [ -x "$DEBOOTSTRAP_ROOT/usr/bin/python3" ] || die "python3 missing from the debootstrap rootfs"
  import_rootfs "$DEBOOTSTRAP_ROOT" "$PYTHON_IMAGE" 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

# Node $TS_NODE_VERSION's official binary into ROOT/usr/local/bin/node: `npm pack` of the npm
# registry's node-linux-<arch> package (what the `node` package installs; the registry is
# reachable where Debian's mirror is), only its bin/node (glibc 2.28+, libstdc++: both in minbase).
install_node() { # ROOT
  local root=$1 dir=$WORK/node-pack arch tgz
  case $(uname -m) in
    x86_64) arch=x64 ;;
    aarch64) arch=arm64 ;;
    *) die "no node-linux package for $(uname -m); the typescript test image needs x86_64 or aarch64" ;;
  esac
  command -v npm >/dev/null 2>&1 || die "npm is missing (it fetches node-linux-$arch@$TS_NODE_VERSION for the typescript profile's image)"
  # shellcheck source=scripts/lib/npm.sh
  source "$(dirname "${BASH_SOURCE[0]}")/lib/npm.sh"
  mkdir -p "$dir"
  tgz=$(cd "$dir" && npm_clean ${NPM_MACHINE_GLOBALCONFIG:+npm_config_globalconfig=$NPM_MACHINE_GLOBALCONFIG} \
    npm pack --silent --no-update-notifier "node-linux-$arch@$TS_NODE_VERSION" </dev/null | tail -n 1) ||
    die "npm pack node-linux-$arch@$TS_NODE_VERSION failed"
  tar -xzf "$dir/$tgz" -C "$dir" package/bin/node || die "$tgz has no package/bin/node"
  install -m 755 "$dir/package/bin/node" "$root/usr/local/bin/node"
}

build_langs() {
  debootstrap_image "$LANGS_IMAGE" langs gcc,g++,libc6-dev,ruby,php-cli,perl,rustc,openjdk-17-jdk-headless,r-base-core
  # The JDK's jmods are jlink's input only (java runs from lib/modules): 70 MB less.
  rm -rf "$DEBOOTSTRAP_ROOT"/usr/lib/jvm/*/jmods
  install_node "$DEBOOTSTRAP_ROOT"
  local b
  # php and java are alternatives links (/usr/bin/php -> /etc/alternatives/php), absolute: test them as links.
  for b in gcc g++ ruby php perl bash rustc java Rscript; do
    [ -x "$DEBOOTSTRAP_ROOT/usr/bin/$b" ] || [ -L "$DEBOOTSTRAP_ROOT/usr/bin/$b" ] || die "$b missing from the $LANGS_IMAGE rootfs"
  done
  import_rootfs "$DEBOOTSTRAP_ROOT" "$LANGS_IMAGE" 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

build_go() {
  debootstrap_image "$GO_IMAGE" go golang-go
  [ -x "$DEBOOTSTRAP_ROOT/usr/bin/go" ] || [ -L "$DEBOOTSTRAP_ROOT/usr/bin/go" ] || die "go missing from the $GO_IMAGE rootfs"
  import_rootfs "$DEBOOTSTRAP_ROOT" "$GO_IMAGE" 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

# --- issue 22 (dependencies): the python image with pip ------------------------------------
build_python_pip() {
  debootstrap_image "$PIP_IMAGE" python-pip python3-minimal,libpython3.11-stdlib,python3-pip
  [ -f "$DEBOOTSTRAP_ROOT/usr/lib/python3/dist-packages/pip/__init__.py" ] || die "pip missing from the $PIP_IMAGE rootfs"
  import_rootfs "$DEBOOTSTRAP_ROOT" "$PIP_IMAGE" 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
}

# The langs image plus npm: `npm pack npm@$NPM_VERSION` (npm bundles its own dependencies)
# unpacked at /usr/local/lib/node_modules/npm with npm/npx links in /usr/local/bin, added as one
# layer by `docker create` + `docker cp -` (a tar stream) + `docker commit`: nothing runs in the image.
build_node_npm() {
  local dir=$WORK/npm-pack root=$WORK/npm-root tgz cid
  command -v npm >/dev/null 2>&1 || die "npm is missing (it fetches npm@$NPM_VERSION for the $NPM_IMAGE image)"
  # shellcheck source=scripts/lib/npm.sh
  source "$(dirname "${BASH_SOURCE[0]}")/lib/npm.sh"
  mkdir -p "$dir" "$root/usr/local/lib/node_modules" "$root/usr/local/bin"
  tgz=$(cd "$dir" && npm_clean ${NPM_MACHINE_GLOBALCONFIG:+npm_config_globalconfig=$NPM_MACHINE_GLOBALCONFIG} \
    npm pack --silent --no-update-notifier "npm@$NPM_VERSION" </dev/null | tail -n 1) || die "npm pack npm@$NPM_VERSION failed"
  tar -xzf "$dir/$tgz" -C "$dir" || die "$tgz is not a tarball"
  mv "$dir/package" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  cid=$(docker create --pull never "$LANGS_IMAGE" true) || die "docker create $LANGS_IMAGE failed"
  if ! tar -C "$root" --numeric-owner --owner=0 --group=0 -c . | docker cp - "$cid:/" ||
    ! docker commit "$cid" "$NPM_IMAGE" >/dev/null; then
    docker rm -f "$cid" >/dev/null 2>&1 || true
    die "adding npm to $LANGS_IMAGE failed"
  fi
  docker rm -f "$cid" >/dev/null
}
# --- end issue 22 ---------------------------------------------------------------------------

# --- issue 24 (notebooks): the python image with matplotlib and IPython --------------------
# One layer on $PYTHON_IMAGE (no second debootstrap): apt in a build step, which needs the
# Debian mirror of the image's sources.list (debootstrap's) reachable from a container.
build_python_notebook() {
  local log=$WORK/python-notebook.log
  if ! docker build -t "$NOTEBOOK_IMAGE" - >"$log" 2>&1 <<EOF
FROM $PYTHON_IMAGE
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-matplotlib python3-ipython python3-munkres python3-unicodedata2 \\
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /usr/share/doc/* /usr/share/man/* /var/log/*
EOF
  then
    tail -n 30 "$log" >&2
    die "adding matplotlib and IPython to $PYTHON_IMAGE failed"
  fi
}
# --- end issue 24 ---------------------------------------------------------------------------

ensure_image() { # IMAGE BUILD_FUNCTION
  local image=$1 build=$2 t0 old_id
  if [ "$FORCE" -eq 0 ] && image_exists "$image"; then
    say "$image ready (present)"
    return 0
  fi
  old_id=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
  t0=$(date +%s)
  "$build"
  # --force: drop the replaced image instead of leaving it dangling (kept if a container uses it).
  if [ -n "$old_id" ] && [ "$old_id" != "$(docker image inspect -f '{{.Id}}' "$image")" ]; then
    docker image rm "$old_id" >/dev/null 2>&1 || true
  fi
  say "$image ready (built in $(($(date +%s) - t0)) s)"
}

verify() { # IMAGE CMD...
  local image=$1 out
  shift
  if ! out=$(docker run --rm --network none --read-only --user 65534:65534 --cap-drop ALL \
    --security-opt no-new-privileges --init --pull never "$image" "$@" </dev/null 2>&1); then
    die "verification of $image failed: $out"
  fi
  [ -n "$out" ] || die "verification of $image printed nothing"
  say "$image verified ($* -> $(echo "$out" | tr '\n' ' ' | sed 's/ *$//'))"
}

# ensure_images IMAGE BUILD_FUNCTION [IMAGE BUILD_FUNCTION]...: ensure_image for each pair, all at
# once, each in a subshell of its own (its own DEBOOTSTRAP_ROOT; distinct folders under $WORK);
# fails after all of them ended when any failed. debootstrap's own prerequisites are installed
# first, once, because apt allows one dpkg at a time.
ensure_images() {
  local pids=() images=() i failed=()
  if [ "$FORCE" -eq 1 ] || ! all_present "$@"; then
    apt_install --no-install-recommends debootstrap debian-archive-keyring gpgv ca-certificates
  fi
  while [ "$#" -ge 2 ]; do
    (ensure_image "$1" "$2") &
    pids+=("$!")
    images+=("$1")
    shift 2
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed+=("${images[$i]}")
  done
  [ "${#failed[@]}" -eq 0 ] || die "building ${failed[*]} failed (see above)"
}

all_present() { # IMAGE BUILD_FUNCTION ...
  while [ "$#" -ge 2 ]; do
    image_exists "$1" || return 1
    shift 2
  done
}

ensure_image "$BUSYBOX_IMAGE" build_busybox
ensure_image "$VOLUME_IMAGE" build_volume
# The debootstrap images at once: each is mostly downloads and one dpkg in its own root. On a
# fresh 2-core machine (load about 8 from other work, 2026-12-02) python, langs, go and python-pip
# took 738 s side by side against 1148 s one after the other (89 + 530 + 213 + 316 s).
if [ "$LANGUAGES" -eq 1 ]; then
  ensure_images "$PYTHON_IMAGE" build_python "$LANGS_IMAGE" build_langs "$GO_IMAGE" build_go "$PIP_IMAGE" build_python_pip
  ensure_image "$NPM_IMAGE" build_node_npm # issue 22 (after the langs image it adds a layer to)
else
  ensure_image "$PYTHON_IMAGE" build_python
fi
ensure_image "$NOTEBOOK_IMAGE" build_python_notebook # issue 24 (after the python image it adds a layer to)

verify "$BUSYBOX_IMAGE" sh -c 'echo ok'
verify "$VOLUME_IMAGE" sh -c 'echo ok'
verify "$PYTHON_IMAGE" python3 -c 'import getpass, termios; print(1)'
verify "$NOTEBOOK_IMAGE" python3 -c 'import IPython, importlib.util as u; print(IPython.__version__, u.find_spec("matplotlib") is not None)' # issue 24
if [ "$LANGUAGES" -eq 1 ]; then
  verify "$LANGS_IMAGE" sh -c 'gcc --version | head -n1; g++ --version | head -n1; ruby -v; php -v | head -n1; perl -e "print \"perl \$]\\n\""; bash -c "echo bash \$BASH_VERSION"; rustc --version; java -version 2>&1 | head -n1; Rscript --version; node --version'
  verify "$GO_IMAGE" go version
  verify "$PIP_IMAGE" python3 -m pip --version # issue 22
  verify "$NPM_IMAGE" sh -c 'HOME=/tmp npm --version' # issue 22
fi
