#!/usr/bin/env bash
# Installs what spreadlab's builds and tests need on a fresh machine (idempotent):
# the Rust targets for the no_std/wasm builds (wasm32-wasip1: the Kubewarden policy), and Go for the oracle (tests/oracle).
set -euo pipefail
if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo is missing; install Rust 1.95 with rustup first" >&2
  exit 1
fi
rustup target add wasm32v1-none wasm32-unknown-unknown wasm32-wasip1 >/dev/null
# The oracle imports k8s.io/kubernetes v1.35, which needs Go >= 1.25 (Debian 12's golang-go is 1.19).
if ! command -v go >/dev/null 2>&1; then
  echo "setup: Go >= 1.25 is missing (the machine image provides Go 1.26)" >&2
  exit 1
fi
go_minor=$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
if [ "$go_minor" -lt 25 ]; then
  echo "setup: Go $(go env GOVERSION) is too old for tests/oracle (needs >= 1.25)" >&2
  exit 1
fi
echo "setup: rust $(rustc --version | cut -d' ' -f2), targets ok, $(go version | cut -d' ' -f3)"
