#!/usr/bin/env bash
# Records what the REAL kube-scheduler v1.35.4 decides on every seed scenario under tests/scenarios:
#   1. `record-scenarios` (crates/conformance) writes tests/scenarios/<name>/oracle-input.yaml from
#      cluster.yaml + workload.yaml (the pods spreadlab schedules, as the oracle reads them);
#   2. the Go oracle (tests/oracle) runs on each oracle-input.yaml, and its output is stored as
#      tests/scenarios/<name>/expected.jsonl.
# The expected values come from the oracle only, never from spreadlab. Run it after editing a
# scenario, then `cargo test -p spreadlab-conformance --test scenarios`.
#
# Usage: scripts/record-scenarios.sh [SCENARIO_DIR...]   (default: every scenario)
# Env: SPREADLAB_ORACLE=<path> uses that oracle binary instead of building tests/oracle/oracle.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/spreadlab/target}"

if [[ -n "${SPREADLAB_ORACLE:-}" ]]; then
  oracle="$SPREADLAB_ORACLE"
else
  echo "record-scenarios: building the oracle (tests/oracle; first build takes minutes)" >&2
  (cd tests/oracle && go build -o oracle .)
  oracle="$PWD/tests/oracle/oracle"
fi

if [[ $# -gt 0 ]]; then
  dirs=("$@")
else
  dirs=()
  for dir in tests/scenarios/*/; do
    [[ -f "$dir/cluster.yaml" && -f "$dir/workload.yaml" ]] && dirs+=("${dir%/}")
  done
fi

cargo run -q -p spreadlab-conformance --bin record-scenarios -- "${dirs[@]}"

for dir in "${dirs[@]}"; do
  tmp="$(mktemp)"
  if ! "$oracle" "$dir/oracle-input.yaml" >"$tmp"; then
    rm -f "$tmp"
    echo "record-scenarios: the oracle failed on $dir/oracle-input.yaml" >&2
    exit 1
  fi
  if grep -q '"crossCheck"\|"error"' "$tmp"; then
    echo "record-scenarios: warning: $dir: the oracle reports an error or a cross-check disagreement" >&2
  fi
  mv "$tmp" "$dir/expected.jsonl"
  echo "$dir/expected.jsonl: $(wc -l <"$dir/expected.jsonl") pods"
done
