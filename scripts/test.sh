#!/usr/bin/env bash
# Runs every test of spreadlab: formatting, lints, unit and conformance tests, the no_std wasm
# builds, the differential check of the seed scenarios against the real kube-scheduler (Go oracle,
# one per supported Kubernetes release), the CLI against a real kube-apiserver (tests/apiserver),
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

echo "== oracles: the real kube-scheduler of every supported release (tests/oracle/build.sh: v1.34.4, v1.35.4, v1.36.3, v1.37.2)"
ORACLE_BIN="${SPREADLAB_ORACLE_BIN:-$HOME/.cache/spreadlab/oracle}"
mkdir -p "$(dirname "$ORACLE_BIN")"
# 1.35, the default release, keeps the plain name every test and xtask reads; the others get a suffix.
oracle_for() { if [ "$1" = 1.35 ]; then echo "$ORACLE_BIN"; else echo "$ORACLE_BIN-$1"; fi; }
for release in 1.34 1.35 1.36 1.37; do
  bash tests/oracle/build.sh "$release" "$(oracle_for "$release")"
done
export SPREADLAB_ORACLE="$ORACLE_BIN"
echo "== oracle self-tests per release: recordings, every ported upstream table (with the release's overrides) checked against the real plugins; policies/vap in the real apiserver CEL code (1.35)"
for release in 1.34 1.35 1.36 1.37; do
  bash tests/oracle/test.sh "$release"
done

echo "== a real kube-apiserver (v1.35.4) on an embedded etcd for the live-cluster tests (tests/apiserver)"
export SPREADLAB_APISERVER="$HOME/.cache/spreadlab/apiserver-1.35"
bash tests/apiserver/build.sh "$SPREADLAB_APISERVER"

echo "== policies/: Gatekeeper (gator) and Kyverno (kyverno test); the VAP ran above with the oracle tests"
bash scripts/test-gatekeeper-kyverno.sh

echo "== tests"
cargo test --workspace --no-fail-fast

echo "== the random differential against the real scheduler of each other release (200 scenarios each; 1.35 ran 400 above)"
for release in 1.34 1.36 1.37; do
  SPREADLAB_ORACLE="$(oracle_for "$release")" SPREADLAB_RANDOM_SEEDS=200 \
    cargo test -q -p spreadlab-conformance --test random -- --nocapture
done

echo "== fuzzing: the loader and the analyses, 45 s each on the cached corpus (scripts/fuzz.sh)"
bash scripts/fuzz.sh 45

echo "== benchmarks compile (run them with: cargo bench -p spreadlab-bench)"
cargo bench -q -p spreadlab-bench --no-run

echo "== Kubewarden policy: wasm module in a real waPC host (scripts/test-policy.sh)"
bash scripts/test-policy.sh

echo "== playground in the browser (build, serve, Playwright e2e, wasm-bindgen-test in headless Chromium)"
bash scripts/test-web.sh
