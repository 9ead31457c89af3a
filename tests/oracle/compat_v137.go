//go:build kube137

// The oracle against several Kubernetes releases (build.sh, flags.sh): the scheduler internals
// whose Go API is particular to k8s.io/kubernetes v1.37.
// One file per set of releases sharing a form, chosen by build tags.

package main

import (
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/kubernetes/pkg/scheduler"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// kubeRelease is the k8s.io/kubernetes release this binary runs.
const kubeRelease = "v1.37.2"

func newInformerFactory(cs clientset.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(cs, 0, nil)
}

func queueHas(q internalqueue.SchedulingQueue, name, namespace string) bool {
	_, ok := q.GetPod(name, namespace, nil)
	return ok
}

// preemptionFrameworkOptions: what a framework running DefaultPreemption needs beyond the
// options TestPreemptionTables always passes. As upstream's v1.37 default_preemption_test.go:
// the pods-in-PreBind map (preemption executor, since v1.36) and the mutable snapshot lister
// (GetVictimsOnNode reads victims' nodes through MutableSnapshotSharedLister).
func preemptionFrameworkOptions(snapshot *internalcache.Snapshot) []frameworkruntime.Option {
	return []frameworkruntime.Option{
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
	}
}

// interPodAffinityStateFields maps the tables' names of InterPodAffinity's preFilterState count
// maps to the release's Go field names. v1.37 renamed them (filtering.go preFilterState) for the
// InterPodAffinityHostnameFastPath gate (alpha, off by default); with the gate off they count
// every term as before ("If the feature gate is disabled, this considers all terms"), and
// upstream's v1.37 TestPreFilterStateAddRemovePod expects the same counts with the gate on or off.
var interPodAffinityStateFields = map[string]string{
	"existingAntiAffinityCounts": "existingClusterWideAntiAffinityCounts",
	"affinityCounts":             "clusterWideAffinityCounts",
	"antiAffinityCounts":         "clusterWideAntiAffinityCounts",
}
