#!/usr/bin/env bash
# Builds the Kubewarden policy module (crates/policy, wasm32-wasip1, profile policy-wasm) and runs
# the integration tests that load it in a real waPC host (tests/policy-host: wapc + wasmtime,
# the stack of Kubewarden's policy-server). tests/policy-host is its own workspace with its own
# Cargo.lock, kept out of the main build: its first build compiles wasmtime (~7-15 min, ~2 GB),
# so its target directory lives under $HOME/.cache/spreadlab for CI to keep.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
cache="${SPREADLAB_CACHE:-$HOME/.cache/spreadlab}"
policy_target="${CARGO_TARGET_DIR:-$cache/target}"
host_target="${SPREADLAB_POLICY_HOST_TARGET:-$cache/policy-host-target}"

rustup target add wasm32-wasip1 >/dev/null

echo "== policy: build the wasm module (wasm32-wasip1, profile policy-wasm)"
start=$(date +%s)
CARGO_TARGET_DIR="$policy_target" cargo build -q --profile policy-wasm --target wasm32-wasip1 -p spreadlab-policy
wasm="$policy_target/wasm32-wasip1/policy-wasm/spreadlab_policy.wasm"
echo "policy: $wasm, $(wc -c <"$wasm") bytes, built in $(( $(date +%s) - start )) s"

echo "== policy: the same with the fault-injection feature (a forced panic, for the failure tests)"
start=$(date +%s)
CARGO_TARGET_DIR="$policy_target" cargo build -q --profile policy-wasm-faults --target wasm32-wasip1 -p spreadlab-policy --features fault-injection
faults="$policy_target/wasm32-wasip1/policy-wasm-faults/spreadlab_policy.wasm"
echo "policy (fault injection): built in $(( $(date +%s) - start )) s"

echo "== policy: waPC host integration tests (tests/policy-host)"
start=$(date +%s)
export CARGO_TARGET_DIR="$host_target" SPREADLAB_POLICY_WASM="$wasm" SPREADLAB_POLICY_FAULTS_WASM="$faults"
(cd tests/policy-host && cargo test --locked -- --skip evaluation_time)
echo "== policy: evaluation time on 1,000 nodes / 10,000 pods (2 s budget) and 5,000 / 50,000 (10 s), alone"
(cd tests/policy-host && cargo test --locked -q -- evaluation_time --test-threads=1 --nocapture)
echo "policy: host tests done in $(( $(date +%s) - start )) s"
