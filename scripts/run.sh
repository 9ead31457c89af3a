#!/usr/bin/env bash
# The main job. Until the playground (issue #5) serves on localhost, this builds the `spreadlab`
# CLI and runs it on every seed scenario under tests/scenarios, printing where each replica lands
# and why any stays Pending.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/spreadlab/target}"
cargo build -q --release -p spreadlab-cli
for scenario in tests/scenarios/*/; do
  echo "################ ${scenario}"
  "$CARGO_TARGET_DIR/release/spreadlab" simulate "${scenario}cluster.yaml" "${scenario}workload.yaml" || true
done
