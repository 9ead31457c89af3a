#!/usr/bin/env bash
# The main job: builds the playground (crates/playground, `cargo xtask web`) and serves it on
# http://127.0.0.1:${PORT:-8080}. `--cli` runs the old demo instead: the `spreadlab` CLI on every
# seed scenario under tests/scenarios, printing where each replica lands and why any stays Pending.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/spreadlab/target}"
if [ "${1:-}" = "--cli" ]; then
  cargo build -q --release -p spreadlab-cli
  for scenario in tests/scenarios/*/; do
    echo "################ ${scenario}"
    "$CARGO_TARGET_DIR/release/spreadlab" simulate "${scenario}cluster.yaml" "${scenario}workload.yaml" || true
  done
  exit 0
fi
bash scripts/setup.sh --web
cargo xtask web
PORT="${PORT:-8080}"
echo "serving the playground on http://127.0.0.1:${PORT}/ (Ctrl-C stops)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist/playground
