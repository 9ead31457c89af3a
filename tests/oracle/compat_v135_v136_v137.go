//go:build !kube134

// The oracle against several Kubernetes releases (build.sh, flags.sh): the forms of scheduler
// internals the releases v1.35, v1.36, v1.37 share.
// One file per set of releases sharing a form, chosen by build tags.

package main

import (
	"context"
	"k8s.io/client-go/informers"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// The framework types the oracle names: in k8s.io/kube-scheduler/framework from v1.35, in
// k8s.io/kubernetes/pkg/scheduler/framework before.
type (
	fwNominatingInfo   = fwk.NominatingInfo
	fwNodePluginScores = fwk.NodePluginScores
	fwPlugin           = fwk.Plugin
	fwScorePlugin      = fwk.ScorePlugin
	fwFilterPlugin     = fwk.FilterPlugin
	fwPreEnqueuePlugin = fwk.PreEnqueuePlugin
	fwNodeScoreList    = fwk.NodeScoreList
	fwNodeScore        = fwk.NodeScore
	fwHandle           = fwk.Handle
	fwPreScorePlugin   = fwk.PreScorePlugin
	fwPreFilterPlugin  = fwk.PreFilterPlugin
)

const fwModeOverride = fwk.ModeOverride

// sharedCSIManager: NodeVolumeLimits reads CSINodes through the framework's shared CSI manager,
// which scheduler.New builds over the CSINode informer (upstream's TestCSILimits passes
// NewCSIManager over a fake CSINode lister).
func sharedCSIManager(factory informers.SharedInformerFactory) []frameworkruntime.Option {
	return []frameworkruntime.Option{frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(factory.Storage().V1().CSINodes().Lister()))}
}

// preemptionGoroutineWaiter: nothing to wait for after DefaultPreemption's PreEnqueue passes,
// which since v1.35 waits for the deletion of the last victim (lastVictimsPendingPreemption).
func preemptionGoroutineWaiter() func(context.Context) error {
	return func(context.Context) error { return nil }
}

// waitPluginHandlers: nothing beyond the informers' sync (v1.34's VolumeBinding assume caches
// needed their event handlers; since v1.35 they read the informers' stores).
func waitPluginHandlers(context.Context, fwPlugin) error { return nil }
