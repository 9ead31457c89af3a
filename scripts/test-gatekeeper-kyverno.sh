#!/usr/bin/env bash
# Tests policies/ with the real tools: the Gatekeeper ConstraintTemplate with `gator verify`
# (gator v3.23.1) and the Kyverno policies with `kyverno test` (Kyverno CLI v1.19.1), both built
# from the Go module proxy into $HOME/.cache/spreadlab/bin on first use, after checking that their
# test files are generated from policies/fixtures/expected.yaml. The
# ValidatingAdmissionPolicy runs in kube-apiserver's own CEL code (tests/oracle/vap, part of the
# oracle's `go test ./...`), and the agreement with `spreadlab lint` is
# crates/conformance/tests/policies.rs (part of `cargo test`).
set -euo pipefail
cd "$(dirname "$0")/.."
GATOR_VERSION=v3.23.1
BIN="$HOME/.cache/spreadlab/bin"
GATOR="$BIN/gator"
# `go install` leaves no version in the binary (it prints "devel"): a marker file records it.
if ! [ -x "$GATOR" ] || [ "$(cat "$GATOR.version" 2>/dev/null)" != "$GATOR_VERSION" ]; then
  echo "== installing gator $GATOR_VERSION (Go module proxy; a few minutes the first time)"
  mkdir -p "$BIN"
  GOBIN="$BIN" go install "github.com/open-policy-agent/gatekeeper/v3/cmd/gator@$GATOR_VERSION"
  echo "$GATOR_VERSION" > "$GATOR.version"
fi
# Kyverno's go.mod has a replace directive, so `go install` refuses it: tools/kyverno is a module
# that requires kyverno v1.19.1 with the same replace, and builds its CLI.
KYVERNO_VERSION=v1.19.1
KYVERNO="$BIN/kyverno"
if ! [ -x "$KYVERNO" ] || [ "$(cat "$KYVERNO.version" 2>/dev/null)" != "$KYVERNO_VERSION" ]; then
  echo "== building the Kyverno CLI $KYVERNO_VERSION (Go module proxy; several minutes the first time)"
  mkdir -p "$BIN"
  (cd tools/kyverno && go build -o "$KYVERNO" github.com/kyverno/kyverno/cmd/cli/kubectl-kyverno)
  echo "$KYVERNO_VERSION" > "$KYVERNO.version"
fi
echo "== policies/gatekeeper: suite.yaml is generated from policies/fixtures/expected.yaml"
diff -u policies/gatekeeper/suite.yaml <(bash policies/gatekeeper/gen-suite.sh) ||
  { echo "policies/gatekeeper/suite.yaml is stale: bash policies/gatekeeper/gen-suite.sh > policies/gatekeeper/suite.yaml" >&2; exit 1; }
echo "== gator verify policies/gatekeeper"
"$GATOR" verify -v policies/gatekeeper
echo "== policies/gatekeeper/whatif: Gatekeeper's constraint framework calling a real spreadlab serve (tests/gatekeeper)"
# Built and run from the same target directory (CARGO_TARGET_DIR, else the shared cache, as
# scripts/test-policy.sh does).
target="${CARGO_TARGET_DIR:-$HOME/.cache/spreadlab/target}"
CARGO_TARGET_DIR="$target" cargo build -q -p spreadlab-cli
(cd tests/gatekeeper && SPREADLAB_BIN="$target/debug/spreadlab" go test -count=1 ./...)
echo "== policies/kyverno: tests/*/kyverno-test.yaml are generated from policies/fixtures/expected.yaml"
for which in validate mutate; do
  diff -u "policies/kyverno/tests/$which/kyverno-test.yaml" <(bash policies/kyverno/gen-test.sh "$which") ||
    { echo "policies/kyverno/tests/$which/kyverno-test.yaml is stale: bash policies/kyverno/gen-test.sh $which > policies/kyverno/tests/$which/kyverno-test.yaml" >&2; exit 1; }
done
echo "== kyverno test policies/kyverno"
"$KYVERNO" test policies/kyverno
