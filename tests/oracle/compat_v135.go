//go:build !kube134 && !kube136 && !kube137

// The oracle against several Kubernetes releases (build.sh, flags.sh): the scheduler internals
// whose Go API is particular to k8s.io/kubernetes v1.35.
// One file per set of releases sharing a form, chosen by build tags.

package main

// kubeRelease is the k8s.io/kubernetes release this binary runs.
const kubeRelease = "v1.35.4"
