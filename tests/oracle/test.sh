#!/usr/bin/env bash
# Checks the oracle built against one Kubernetes release: test.sh <1.34|1.35|1.36|1.37>
#   go vet, gofmt, then go test with ORACLE_UPSTREAM=1 (the ported upstream tables of
#   tests/upstream, with the release's overrides from tests/upstream-overrides, through the real
#   plugins of that release), all with the release's go flags (flags.sh).
# For 1.35 the packages are ./... : the vap subpackage (ValidatingAdmissionPolicy checks with
# kube-apiserver's own code) is tied to the k8s.io/apiserver module of 1.35 (go.mod) and is only
# built and run there; for the other releases only the oracle package (.) is vetted and tested.
# The full `go test -v` log is kept in $TMPDIR; the skips of release-specific table cases
# ("SKIP ... on v1.NN.P: reason") are printed from it.
set -euo pipefail
cd "$(dirname "$0")"
version="${1:?usage: test.sh <1.34|1.35|1.36|1.37>}"
# shellcheck source=flags.sh
source ./flags.sh "$version"
pkgs=(.)
if [ "$version" = 1.35 ]; then
  pkgs=(./...)
fi
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "test.sh: not gofmt'd: $unformatted" >&2
  exit 1
fi
go vet "${ORACLE_GO_FLAGS[@]}" "${pkgs[@]}"
log="$(mktemp "${TMPDIR:-/tmp}/oracle-test-$version.XXXXXX.log")"
status=0
ORACLE_UPSTREAM=1 go test -count=1 -v "${ORACLE_GO_FLAGS[@]}" "${pkgs[@]}" > "$log" 2>&1 || status=$?
grep -E '^\s+\S+_test\.go:[0-9]+: SKIP ' "$log" | sed -E 's/^\s+//' || true
grep -E '^(ok|FAIL|---)\s' "$log" | grep -v -- '--- PASS' || true
if [ "$status" -ne 0 ]; then
  echo "test.sh $version: FAILED (full log: $log); failures:" >&2
  grep -E -B1 -A6 -- '--- FAIL|^panic' "$log" | grep -v -E '^\s+(framework|preemption|executor|default_preemption)\.go:' | head -200 >&2
  exit "$status"
fi
rm -f "$log"
echo "test.sh $version: ok"
