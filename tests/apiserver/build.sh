#!/usr/bin/env bash
# Builds the live-cluster test harness: build.sh <output binary>. A Go test binary that starts a
# real kube-apiserver (k8s.io/kubernetes v1.35.4, cmd/kube-apiserver/app/testing) on an embedded
# etcd (go.etcd.io/etcd/server/v3/embed), both from Go modules, on 127.0.0.1; the Rust tests run
# it (crates/cli/tests/live_cluster.rs, SPREADLAB_APISERVER=<binary>). Vetted and gofmt-checked
# first. Most of its packages are the oracle's (same k8s.io modules, same Go build cache): from a
# cache warm with the oracle it builds in about 2.5 minutes, from an empty one in about 9.
set -euo pipefail
cd "$(dirname "$0")"
out="${1:?usage: build.sh <output binary>}"
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "build.sh: not gofmt'd: $unformatted" >&2
  exit 1
fi
go vet .
go test -c -o "$out" .
