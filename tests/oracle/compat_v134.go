//go:build kube134

// The oracle against several Kubernetes releases (build.sh, flags.sh): the scheduler internals
// whose Go API is particular to k8s.io/kubernetes v1.34.
// One file per set of releases sharing a form, chosen by build tags.

package main

import (
	"context"
	"fmt"
	dto "github.com/prometheus/client_model/go"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	compmetrics "k8s.io/component-base/metrics"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/volumebinding"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	"reflect"
	"unsafe"
)

// kubeRelease is the k8s.io/kubernetes release this binary runs.
const kubeRelease = "v1.34.4"

// The framework types the oracle names: in k8s.io/kube-scheduler/framework from v1.35, in
// k8s.io/kubernetes/pkg/scheduler/framework before.
type (
	fwNominatingInfo   = framework.NominatingInfo
	fwNodePluginScores = framework.NodePluginScores
	fwPlugin           = framework.Plugin
	fwScorePlugin      = framework.ScorePlugin
	fwFilterPlugin     = framework.FilterPlugin
	fwPreEnqueuePlugin = framework.PreEnqueuePlugin
	fwNodeScoreList    = framework.NodeScoreList
	fwNodeScore        = framework.NodeScore
	fwHandle           = framework.Handle
	fwPreScorePlugin   = framework.PreScorePlugin
	fwPreFilterPlugin  = framework.PreFilterPlugin
)

const fwModeOverride = framework.ModeOverride

// sharedCSIManager: v1.34 has no shared CSI manager (NodeVolumeLimits reads CSINodes from the
// informer factory itself).
func sharedCSIManager(informers.SharedInformerFactory) []frameworkruntime.Option {
	return nil
}

// preemptionGoroutineWaiter is called before PostFilter; the function it returns is called once
// the preemptor's PreEnqueue passes. In v1.34.4 the async preemption goroutine removes the
// preemptor from the evaluator's `preempting` set (so DefaultPreemption's PreEnqueue passes)
// *before* it deletes the last victim (preemption.go prepareCandidateAsync; v1.35 added
// lastVictimsPendingPreemption so PreEnqueue waits for that deletion). To see every victim the
// oracle waits until the goroutine has ended: its deferred
// scheduler_preemption_goroutines_execution_total increment, after every deletion.
func preemptionGoroutineWaiter() func(context.Context) error {
	if !utilfeature.DefaultFeatureGate.Enabled(features.SchedulerAsyncPreemption) {
		return func(context.Context) error { return nil } // synchronous: done when PostFilter returns
	}
	before := preemptionGoroutinesEnded()
	return func(ctx context.Context) error {
		return poll(ctx, func() bool { return preemptionGoroutinesEnded() > before })
	}
}

// preemptionGoroutinesEnded reads scheduler_preemption_goroutines_execution_total (both results).
func preemptionGoroutinesEnded() float64 {
	var n float64
	for _, r := range []string{schedmetrics.GoroutineResultSuccess, schedmetrics.GoroutineResultError} {
		c, ok := schedmetrics.PreemptionGoroutinesExecutionTotal.WithLabelValues(r).(compmetrics.Metric)
		if !ok {
			continue // not registered: never counts
		}
		var m dto.Metric
		if err := c.Write(&m); err == nil {
			n += m.GetCounter().GetValue()
		}
	}
	return n
}

// waitPluginHandlers waits, in single-plugin mode after the informers synced, until
// VolumeBinding's PVC and PV assume caches hold the informers' objects. In v1.34.4 those caches
// (pkg/scheduler/util/assumecache) are filled by event handlers that NewAssumeCache adds to the
// informers; the handlers run asynchronously, after WaitForCacheSync may already have returned,
// and until then the binder answers "could not find v1.PersistentVolumeClaim". (v1.35's
// volumebinding assume caches read the informer's store itself.) The handler registrations are
// private (AssumeCache.handlerRegistration), so they are read by reflection.
func waitPluginHandlers(ctx context.Context, plugin fwPlugin) error {
	vb, ok := plugin.(*volumebinding.VolumeBinding)
	if !ok || vb.Binder == nil {
		return nil
	}
	var regs []cache.ResourceEventHandlerRegistration
	binder := reflect.ValueOf(vb.Binder)
	if binder.Kind() != reflect.Pointer || binder.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("VolumeBinding binder %T: unexpected type", vb.Binder)
	}
	for _, field := range []string{"pvcCache", "pvCache"} {
		c := binder.Elem().FieldByName(field) // *PVCAssumeCache / *PVAssumeCache
		if !c.IsValid() || c.IsNil() {
			return fmt.Errorf("VolumeBinding binder: no %s", field)
		}
		ac := c.Elem().FieldByName("AssumeCache") // *assumecache.AssumeCache
		if !ac.IsValid() || ac.IsNil() {
			return fmt.Errorf("VolumeBinding binder: %s has no AssumeCache", field)
		}
		r := ac.Elem().FieldByName("handlerRegistration")
		if !r.IsValid() {
			return fmt.Errorf("VolumeBinding binder: %s has no handlerRegistration", field)
		}
		reg := reflect.NewAt(r.Type(), unsafe.Pointer(r.UnsafeAddr())).Elem().Interface()
		if reg == nil {
			return fmt.Errorf("VolumeBinding binder: %s has no event handler", field)
		}
		regs = append(regs, reg.(cache.ResourceEventHandlerRegistration))
	}
	return poll(ctx, func() bool {
		for _, r := range regs {
			if !r.HasSynced() {
				return false
			}
		}
		return true
	})
}
