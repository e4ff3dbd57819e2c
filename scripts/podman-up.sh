#!/usr/bin/env bash
# Make Podman usable for Sandbox Runner's Podman suites (`npm run test:engine:podman`).
#
# Idempotent and non-interactive; never pulls from a registry. Steps:
#   1. installs the Debian packages below when this machine lacks what they provide (root only);
#   2. loads each test image into Podman's own storage from the Docker engine
#      (`docker save | podman load`) when Podman lacks it or holds a different image id; the
#      Docker engine must hold the images already (scripts/engine-up.sh, build-test-images.sh);
#   3. smoke-tests each image under the restrictions the product uses on Podman.
#
# Debian packages, installed with --no-install-recommends, each named:
#   podman     the podman CLI (Depends: conmon, crun or runc, golang-github-containers-common);
#   catatonit  the init process behind `podman run --init`; apt does not pull it in when tini
#              is present (podman only Recommends "catatonit | tini | dumb-init"), and podman
#              4.3 looks for catatonit only.
# Podman's other recommends (buildah, fuse-overlayfs, slirp4netns, uidmap, dbus-user-session)
# serve builds, rootless storage and rootless networking; the root suites use none of them.
#
# Works from a private scratch directory: conmon drops an empty `oom` file into its caller's
# working directory.
set -euo pipefail

IMAGES=(sandbox-runner-test/busybox:1 sandbox-runner-test/volume:1 sandbox-runner-test/python:2 sandbox-runner-test/langs:2 sandbox-runner-test/go:1)
PODMAN=${SANDBOX_RUNNER_PODMAN:-podman}

say() { echo "podman-up: $*"; }
die() { echo "podman-up: ERROR: $*" >&2; exit 1; }

# shellcheck source=scripts/lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

have_catatonit() {
  # podman 4.3's init_path default and its fallbacks (containers.conf `init_path`).
  [ -x /usr/libexec/podman/catatonit ] || [ -x /usr/bin/catatonit ] || command -v catatonit >/dev/null 2>&1
}

if ! command -v "$PODMAN" >/dev/null 2>&1; then
  wait_for_apt # a concurrent install may be about to provide it
fi
if ! command -v "$PODMAN" >/dev/null 2>&1; then
  apt_install --no-install-recommends podman catatonit
fi
if ! have_catatonit; then
  apt_install --no-install-recommends catatonit
fi
have_catatonit || die "catatonit is missing; 'podman run --init' would fail. Install Debian package 'catatonit'."

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/sandbox-runner-podman-up.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
cd "$SCRATCH"

"$PODMAN" version >/dev/null 2>&1 || die "'$PODMAN version' failed: $("$PODMAN" version 2>&1 | tail -n 3)"
say "$("$PODMAN" version --format 'podman {{.Client.Version}}' 2>/dev/null || echo podman), $("$PODMAN" info --format 'storage {{.Store.GraphDriverName}}, cgroup {{.Host.CgroupsVersion}}, runtime {{.Host.OCIRuntime.Name}}' 2>/dev/null || echo 'info unavailable')"

docker info >/dev/null 2>&1 || die "the Docker engine is not reachable; run scripts/engine-up.sh and scripts/build-test-images.sh first (the images are copied from it)."

strip_sha() { echo "${1#sha256:}"; }

for image in "${IMAGES[@]}"; do
  want=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null) ||
    die "$image is missing from the Docker engine; run scripts/build-test-images.sh first."
  want=$(strip_sha "$want")
  have=$(strip_sha "$("$PODMAN" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)")
  if [ "$have" = "$want" ]; then
    say "$image ready (present, id ${want:0:12})"
    continue
  fi
  t0=$(date +%s)
  docker save "$image" | "$PODMAN" load -q >/dev/null || die "loading $image into Podman failed"
  have=$(strip_sha "$("$PODMAN" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)")
  [ "$have" = "$want" ] || die "$image in Podman has id ${have:-none}, the Docker engine's is $want"
  say "$image loaded in $(($(date +%s) - t0)) s (id ${want:0:12})"
done

verify() { # IMAGE CMD...
  local image=$1 out
  shift
  if ! out=$("$PODMAN" run --rm --network none --read-only --read-only-tmpfs=false --http-proxy=false \
    --user 65534:65534 --cap-drop ALL --security-opt no-new-privileges --init --pull never \
    --ulimit nofile=1024:1024 --ulimit nproc=64:64 "$image" "$@" </dev/null 2>&1); then
    die "verification of $image on Podman failed: $out"
  fi
  [ -n "$out" ] || die "verification of $image on Podman printed nothing"
  say "$image verified on Podman ($* -> $(echo "$out" | tr '\n' ' ' | sed 's/ *$//'))"
}

verify sandbox-runner-test/busybox:1 sh -c 'echo ok'
verify sandbox-runner-test/volume:1 sh -c 'echo ok'
verify sandbox-runner-test/python:2 python3 -c 'print(1)'
verify sandbox-runner-test/langs:2 sh -c 'echo ok'
verify sandbox-runner-test/go:1 sh -c 'echo ok'
