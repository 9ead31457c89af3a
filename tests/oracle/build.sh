#!/usr/bin/env bash
# Builds the oracle for one Kubernetes release: build.sh <1.34|1.35|1.36|1.37> <output binary>.
# One source tree; each release has its module file (go.mod is 1.35, go.1.NN.mod the others,
# with their go.1.NN.sum) and its build tag choosing the compat_v*.go files, the few scheduler internals
# whose Go API differs. `go test`/`go vet` take the same flags (see flags.sh).
set -euo pipefail
cd "$(dirname "$0")"
version="${1:?usage: build.sh <1.34|1.35|1.36|1.37> <output>}"
out="${2:?usage: build.sh <version> <output>}"
# shellcheck source=flags.sh
source ./flags.sh "$version"
go build "${ORACLE_GO_FLAGS[@]}" -o "$out" .
