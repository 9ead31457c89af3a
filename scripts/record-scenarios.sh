#!/usr/bin/env bash
# Records what the REAL kube-scheduler of every supported release decides on every seed scenario
# under tests/scenarios:
#   1. `record-scenarios` (crates/conformance) writes tests/scenarios/<name>/oracle-input.yaml from
#      cluster.yaml + workload.yaml (the pods spreadlab schedules, as the oracle reads them);
#   2. the Go oracle of each release (tests/oracle/build.sh) runs on each oracle-input.yaml, and its
#      output is stored as tests/scenarios/<name>/expected.jsonl (1.35, the default release) and
#      expected-1.NN.jsonl (1.34, 1.36, 1.37).
# The expected values come from the oracle only, never from spreadlab. Run it after editing a
# scenario, then `cargo test -p spreadlab-conformance --test scenarios`.
#
# Usage: scripts/record-scenarios.sh [SCENARIO_DIR...]   (default: every scenario)
# Env: SPREADLAB_ORACLE=<path> uses that 1.35 oracle binary and <path>-1.NN for the others (as
# scripts/test.sh builds them) instead of building them under tests/oracle/.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/spreadlab/target}"

releases=(1.34 1.35 1.36 1.37)
declare -A oracles
for release in "${releases[@]}"; do
  if [[ -n "${SPREADLAB_ORACLE:-}" ]]; then
    if [[ "$release" = 1.35 ]]; then oracles[$release]="$SPREADLAB_ORACLE"; else oracles[$release]="$SPREADLAB_ORACLE-$release"; fi
  else
    echo "record-scenarios: building the $release oracle (tests/oracle/build.sh; a first build takes minutes)" >&2
    oracles[$release]="$PWD/tests/oracle/oracle-$release"
    bash tests/oracle/build.sh "$release" "${oracles[$release]}"
  fi
done

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
  for release in "${releases[@]}"; do
    if [[ "$release" = 1.35 ]]; then out="$dir/expected.jsonl"; else out="$dir/expected-$release.jsonl"; fi
    tmp="$(mktemp)"
    if ! "${oracles[$release]}" "$dir/oracle-input.yaml" >"$tmp"; then
      rm -f "$tmp"
      echo "record-scenarios: the $release oracle failed on $dir/oracle-input.yaml" >&2
      exit 1
    fi
    if grep -q '"crossCheck"\|"error"' "$tmp"; then
      echo "record-scenarios: warning: $dir ($release): the oracle reports an error or a cross-check disagreement" >&2
    fi
    mv "$tmp" "$out"
    echo "$out: $(wc -l <"$out") pods"
  done
done
