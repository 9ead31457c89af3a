//go:build !kube136 && !kube137

// The oracle against several Kubernetes releases (build.sh, flags.sh): the forms of scheduler
// internals the releases v1.34, v1.35 share.
// One file per set of releases sharing a form, chosen by build tags.

package main

import (
	"context"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

func newRecorderFactory() profile.RecorderFactory {
	return func(string) events.EventRecorder { return &events.FakeRecorder{} } // nil channel: events are dropped
}

func schedulePod(ctx context.Context, s *scheduler.Scheduler, f framework.Framework, state fwk.CycleState, pod *v1.Pod) (scheduler.ScheduleResult, error) {
	return s.SchedulePod(ctx, f, state, pod)
}

func runPermit(ctx context.Context, f framework.Framework, state fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	return f.RunPermitPlugins(ctx, state, pod, node)
}

// finishBinding ends the assumed pod's expiry clock (Cache.FinishBinding, gone in v1.36).
func finishBinding(c internalcache.Cache, logger klog.Logger, pod *v1.Pod) error {
	return c.FinishBinding(logger, pod)
}

// pluginDRAManager: single-plugin mode needs no DRA manager before v1.36 (DRAExtendedResource,
// which makes NodeResourcesFit and BalancedAllocation read it, is off by default).
func pluginDRAManager(context.Context, clientset.Interface, informers.SharedInformerFactory) ([]frameworkruntime.Option, func(context.Context) error, error) {
	return nil, noWait, nil
}

// preemptionFrameworkOptions: what a framework running DefaultPreemption needs beyond the
// options TestPreemptionTables always passes (nothing before v1.36).
func preemptionFrameworkOptions(*internalcache.Snapshot) []frameworkruntime.Option { return nil }
