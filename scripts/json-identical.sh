#!/usr/bin/env bash
# Compares two spreadlab binaries byte for byte (stdout, stderr and exit code) on every input under
# tests/ and policies/fixtures, for every command and output format: the restructuring check of
# issue 12 ("the CLI's JSON output on every file under tests/ is byte-identical before and after").
#   scripts/json-identical.sh OLD_BINARY NEW_BINARY
# Build the old one from the base commit, e.g.:
#   git worktree add /tmp/base BASE && (cd /tmp/base && cargo build -p spreadlab-cli) && OLD=.../debug/spreadlab
# Prints `N compared, M differ` (JSON and SARIF) and `N compared, M differ` (tables) and a diff
# excerpt for each difference; exits 1 when any JSON output differs.
set -uo pipefail
cd "$(dirname "$0")/.."
old="$1" new="$2"
inputs=()
for dir in tests/scenarios/*/; do inputs+=("$dir/cluster.yaml $dir/workload.yaml"); done
while IFS= read -r f; do inputs+=("$f"); done < <(find tests/analyses tests/regressions tests/open-regressions policies/fixtures -name '*.yaml' 2>/dev/null | sort)
json_cmds=("simulate -o json --detail all" "simulate -o json" "simulate -o json --detail none"
  "whatif --fail-each zone --fail-each node -o json" "whatif --fail-each zone --mode removed -o json"
  "capacity -o json" "rollout -o json" "lint -o json" "lint -o sarif" "stalemate -o json" "risk --runs 5 -o json")
table_cmds=("simulate" "simulate --detail all" "whatif --fail-each zone --fail-each node" "capacity" "rollout" "lint" "stalemate" "risk --runs 5")
compare() {
  local kind="$1"; shift
  local n=0 d=0
  for input in "${inputs[@]}"; do
    for cmd in "$@"; do
      # shellcheck disable=SC2086
      a=$("$old" $cmd $input 2>&1; echo "exit $?")
      # shellcheck disable=SC2086
      b=$("$new" $cmd $input 2>&1; echo "exit $?")
      n=$((n + 1))
      if [ "$a" != "$b" ]; then
        d=$((d + 1))
        echo "differs ($kind): spreadlab $cmd $input"
        diff <(echo "$a") <(echo "$b") | head -8
      fi
    done
  done
  echo "$kind: $n compared, $d differ"
  [ "$d" -eq 0 ]
}
compare json "${json_cmds[@]}"; json=$?
compare tables "${table_cmds[@]}"
exit $json
