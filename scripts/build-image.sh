#!/usr/bin/env bash
# Builds the webhook's image (policies/webhook/Dockerfile): spreadlab compiled for
# x86_64-unknown-linux-musl (static: the image has no base), then the Dockerfile with the binary
# as its only context file, by `docker build` when a Docker engine answers, else by buildah
# (Debian's `buildah`, installed here when missing; vfs storage, chroot isolation: no daemon or
# privileges needed).
#   bash scripts/build-image.sh [--tag NAME:TAG] [--archive FILE.tar]
# --archive also writes the image as an OCI archive (`kind load image-archive FILE.tar`,
# `ctr -n k8s.io images import FILE.tar`, `skopeo copy oci-archive:FILE.tar docker://REGISTRY/...`).
set -euo pipefail
cd "$(dirname "$0")/.."
tag=spreadlab:0.1.0
archive=
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --archive) archive="$(realpath -m "$2")"; shift 2 ;;
    *) echo "build-image: unknown argument $1" >&2; exit 2 ;;
  esac
done
target=x86_64-unknown-linux-musl
rustup target add "$target" >/dev/null
# ring and mimalloc compile C for the target: musl-gcc (Debian's musl-tools).
if ! command -v musl-gcc >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq musl-tools >/dev/null
fi
cargo build --release --locked --target "$target" -p spreadlab-cli
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -E 's/.*"target_directory":"([^"]*)".*/\1/')
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
# The release profile keeps debug info (profiles, backtraces); the image's copy goes without.
if command -v strip >/dev/null 2>&1; then
  strip -o "$context/spreadlab" "$target_dir/$target/release/spreadlab"
else
  cp "$target_dir/$target/release/spreadlab" "$context/spreadlab"
fi
cp policies/webhook/Dockerfile "$context/Dockerfile"
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  docker build -t "$tag" "$context"
  if [ -n "$archive" ]; then
    docker save "$tag" -o "$archive"
  fi
else
  if ! command -v buildah >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah >/dev/null
  fi
  buildah --storage-driver vfs bud --quiet --isolation chroot -t "$tag" "$context" >/dev/null
  if [ -n "$archive" ]; then
    rm -f "$archive"
    buildah --storage-driver vfs push --quiet "$tag" "oci-archive:$archive:$tag"
  fi
fi
echo "build-image: $tag$([ -n "$archive" ] && echo " and $archive")"
