#!/usr/bin/env bash
# Runs every test of spreadlab: formatting, lints, unit and conformance tests, the no_std wasm
# builds, the differential check of the seed scenarios against the real kube-scheduler (Go oracle),
# a short fuzzing run (scripts/fuzz.sh), a compile check of the benchmarks and the playground's browser tests (scripts/test-web.sh). Build
# products go outside the clone so CI reuses them.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/spreadlab/target}"
export CARGO_TERM_COLOR=never
# No incremental compilation data: each clone builds from a new path, so it is seldom reused, and
# it grew the shared cache by 7.5 GB until the disk filled.
export CARGO_INCREMENTAL=0
bash scripts/setup.sh

echo "== format and lints"
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings

echo "== engine builds for no_std targets (no default features)"
cargo build -q -p spreadlab-engine --no-default-features --target wasm32v1-none
cargo build -q -p spreadlab-engine --no-default-features --target wasm32-unknown-unknown

echo "== oracle: the real kube-scheduler v1.35.4 (tests/oracle)"
ORACLE_BIN="${SPREADLAB_ORACLE_BIN:-$HOME/.cache/spreadlab/oracle}"
mkdir -p "$(dirname "$ORACLE_BIN")"
(cd tests/oracle && go build -o "$ORACLE_BIN" .)
export SPREADLAB_ORACLE="$ORACLE_BIN"
echo "== oracle self-tests, every ported upstream table checked against the real plugins, and policies/vap in the real apiserver CEL code"
(cd tests/oracle && go vet ./... && ORACLE_UPSTREAM=1 go test -count=1 ./...)

echo "== policies/: Gatekeeper (gator) and Kyverno (kyverno test); the VAP ran above with the oracle tests"
bash scripts/test-gatekeeper-kyverno.sh

echo "== tests"
cargo test --workspace --no-fail-fast

echo "== fuzzing: the loader and the analyses, 45 s each on the cached corpus (scripts/fuzz.sh)"
bash scripts/fuzz.sh 45

echo "== benchmarks compile (run them with: cargo bench -p spreadlab-bench)"
cargo bench -q -p spreadlab-bench --no-run

echo "== Kubewarden policy: wasm module in a real waPC host (scripts/test-policy.sh)"
bash scripts/test-policy.sh

echo "== playground in the browser (build, serve, Playwright e2e, wasm-bindgen-test in headless Chromium)"
bash scripts/test-web.sh
