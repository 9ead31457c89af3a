#!/usr/bin/env bash
# Installs what spreadlab's builds and tests need on a fresh machine (idempotent):
# the Rust targets for the no_std/wasm builds (wasm32-wasip1: the Kubewarden policy), a C++
# compiler for libFuzzer (scripts/fuzz.sh), and Go for the oracle (tests/oracle).
#   --web       only what the playground build needs (the wasm32 target; wasm-opt from npm
#               binaryen and the code editor's packages when npm is there), for scripts/run.sh
#   --web-test  also Chromium + ChromeDriver (apt) and the e2e packages (npm ci in tests/e2e)
set -euo pipefail
cd "$(dirname "$0")/.."
web_tools() {
  # playwright-core (no browser download) and binaryen's wasm-opt, pinned by package-lock.json.
  if command -v npm >/dev/null 2>&1; then
    if [ ! -x tests/e2e/node_modules/.bin/wasm-opt ] || [ tests/e2e/package-lock.json -nt tests/e2e/node_modules/.package-lock.json ]; then
      (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
    fi
    # The code editor (CodeMirror 6) and esbuild, which bundles it (www/editor/package-lock.json).
    if [ ! -x www/editor/node_modules/.bin/esbuild ] || [ www/editor/package-lock.json -nt www/editor/node_modules/.package-lock.json ]; then
      (cd www/editor && npm ci --no-audit --no-fund --loglevel=error)
    fi
  else
    echo "setup: npm missing; the playground builds without wasm-opt and its code editor (a plain textarea instead), and the e2e tests cannot run" >&2
  fi
}
case "${1:-}" in
  --web)
    rustup target add wasm32-unknown-unknown >/dev/null
    web_tools
    exit 0
    ;;
  --web-test)
    rustup target add wasm32-unknown-unknown >/dev/null
    if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    fi
    web_tools
    exit 0
    ;;
esac
if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo is missing; install Rust 1.95 with rustup first" >&2
  exit 1
fi
rustup target add wasm32v1-none wasm32-unknown-unknown wasm32-wasip1 >/dev/null
# libfuzzer-sys builds libFuzzer from its C++ sources (scripts/fuzz.sh).
if ! command -v c++ >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ >/dev/null
fi
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
