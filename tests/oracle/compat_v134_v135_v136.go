//go:build !kube137

// The oracle against several Kubernetes releases (build.sh, flags.sh): the forms of scheduler
// internals the releases v1.34, v1.35, v1.36 share.
// One file per set of releases sharing a form, chosen by build tags.

package main

import (
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/kubernetes/pkg/scheduler"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
)

func newInformerFactory(cs clientset.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(cs, 0)
}

func queueHas(q internalqueue.SchedulingQueue, name, namespace string) bool {
	_, ok := q.GetPod(name, namespace)
	return ok
}

// interPodAffinityStateFields maps the tables' names of InterPodAffinity's preFilterState count
// maps to the release's Go field names where they differ (none before v1.37).
var interPodAffinityStateFields = map[string]string{}
