//go:build kube136

// The oracle against several Kubernetes releases (build.sh, flags.sh): the scheduler internals
// whose Go API is particular to k8s.io/kubernetes v1.36.
// One file per set of releases sharing a form, chosen by build tags.

package main

import (
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// kubeRelease is the k8s.io/kubernetes release this binary runs.
const kubeRelease = "v1.36.3"

// preemptionFrameworkOptions: what a framework running DefaultPreemption needs beyond the
// options TestPreemptionTables always passes. v1.36's preemption executor asks the framework
// for pods in PreBind (GetPodInPreBind); upstream's default_preemption_test.go passes
// WithPodsInPreBind(NewPodsInPreBindMap()).
func preemptionFrameworkOptions(*internalcache.Snapshot) []frameworkruntime.Option {
	return []frameworkruntime.Option{frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap())}
}
