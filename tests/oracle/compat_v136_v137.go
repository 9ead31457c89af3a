//go:build kube136 || kube137

// The oracle against several Kubernetes releases (build.sh, flags.sh): the forms of scheduler
// internals the releases v1.36, v1.37 share.
// One file per set of releases sharing a form, chosen by build tags.

package main

import (
	"context"
	"fmt"
	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"
)

func newRecorderFactory() profile.RecorderFactory {
	return func(string) events.EventRecorderLogger { return &events.FakeRecorder{} } // nil channel: events are dropped
}

func schedulePod(ctx context.Context, s *scheduler.Scheduler, f framework.Framework, state fwk.CycleState, pod *v1.Pod) (scheduler.ScheduleResult, error) {
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return scheduler.ScheduleResult{}, err
	}
	return s.SchedulePod(ctx, f, state, &framework.QueuedPodInfo{PodInfo: pi})
}

func runPermit(ctx context.Context, f framework.Framework, state fwk.CycleState, pod *v1.Pod, node string) *fwk.Status {
	_, st := f.RunPermitPlugins(ctx, state, pod, node)
	return st
}

// finishBinding: v1.36 assumed pods no longer expire, Cache.FinishBinding is gone.
func finishBinding(internalcache.Cache, klog.Logger, *v1.Pod) error { return nil }

// pluginDRAManager builds, for single-plugin mode, the DRA manager scheduler.New gives every
// framework (DynamicResourceAllocation is GA): DRAExtendedResource (on by default from v1.36,
// locked on in v1.37) makes NodeResourcesFit and NodeResourcesBalancedAllocation read DeviceClasses
// through it. Built as upstream's noderesources tests build it (resource_allocation_test.go
// newTestDRAManager): a ResourceClaim assume cache, a ResourceSlice tracker, and the
// extended-resource cache fed by the DeviceClass informer (as the scheduler's event handlers do).
// The returned function waits, once the informers synced, until that cache has every DeviceClass.
// (ResourceClaims, read through an assume cache also filled by event handlers, are not waited
// for: no single-plugin table has claims.)
func pluginDRAManager(ctx context.Context, cs clientset.Interface, factory informers.SharedInformerFactory) ([]frameworkruntime.Option, func(context.Context) error, error) {
	if !utilfeature.DefaultFeatureGate.Enabled(features.DynamicResourceAllocation) {
		return nil, noWait, nil
	}
	tracker, err := resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{
		SliceInformer: factory.Resource().V1().ResourceSlices(),
		KubeClient:    cs,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("resource slice tracker: %w", err)
	}
	claims := assumecache.NewAssumeCache(klog.FromContext(ctx), factory.Resource().V1().ResourceClaims().Informer(), "ResourceClaim", "", nil)
	dra := dynamicresources.NewDRAManager(ctx, claims, tracker, factory)
	wait := noWait
	if utilfeature.DefaultFeatureGate.Enabled(features.DRAExtendedResource) {
		erCache := dra.DeviceClassResolver().(*extendedresourcecache.ExtendedResourceCache)
		reg, err := factory.Resource().V1().DeviceClasses().Informer().AddEventHandler(erCache)
		if err != nil {
			return nil, nil, fmt.Errorf("device class event handler: %w", err)
		}
		// The cache is filled by that handler, asynchronously: wait for it after the informers synced.
		wait = func(ctx context.Context) error { return poll(ctx, reg.HasSynced) }
	}
	return []frameworkruntime.Option{frameworkruntime.WithSharedDRAManager(dra)}, wait, nil
}
