#!/usr/bin/env bash
# Sourced with a Kubernetes release (1.34|1.35|1.36|1.37): sets ORACLE_GO_FLAGS, the go flags that
# build the oracle against that release's k8s.io/kubernetes module.
case "${1:?release}" in
  1.35) ORACLE_GO_FLAGS=() ;;
  1.34|1.36|1.37) ORACLE_GO_FLAGS=(-modfile="go.$1.mod" -tags "kube${1/./}") ;;
  *) echo "flags.sh: unsupported release '$1' (1.34, 1.35, 1.36, 1.37)" >&2; return 2 ;;
esac
export ORACLE_GO_FLAGS
