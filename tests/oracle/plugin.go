package main

// Single-plugin mode (-plugin <Name>): one plugin of the in-tree registry, built
// by the real framework from a profile where it is the only plugin enabled
// (besides PrioritySort and DefaultBinder, which the framework requires), and
// driven extension point by extension point the way upstream plugin unit tests
// drive it: PreFilter, then Filter on every node; PreScore, Score and
// NormalizeScore on the candidate nodes, on a fresh CycleState. Nothing is bound.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// pluginProfile builds, through the kube-scheduler config API (v1 decoding and
// defaulting, as for a --config file), the profile of single-plugin mode. args is
// the plugin's args object in v1 field names, or empty for the defaults.
func pluginProfile(name string, args json.RawMessage) (*schedconfig.KubeSchedulerProfile, error) {
	type plugin struct {
		Name   string `json:"name"`
		Weight *int32 `json:"weight,omitempty"`
	}
	one := int32(1)
	enabled := []plugin{{Name: name, Weight: &one}}
	for _, required := range []string{names.PrioritySort, names.DefaultBinder} {
		if required != name {
			enabled = append(enabled, plugin{Name: required})
		}
	}
	prof := map[string]any{
		"schedulerName": v1.DefaultSchedulerName,
		"plugins": map[string]any{"multiPoint": map[string]any{
			"enabled":  enabled,
			"disabled": []plugin{{Name: "*"}},
		}},
	}
	if len(args) > 0 && string(args) != "null" {
		prof["pluginConfig"] = []any{map[string]any{"name": name, "args": args}}
	}
	data, err := json.Marshal(map[string]any{
		"apiVersion": "kubescheduler.config.k8s.io/v1",
		"kind":       "KubeSchedulerConfiguration",
		"profiles":   []any{prof},
	})
	if err != nil {
		return nil, err
	}
	obj, _, err := schedscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("plugin config: %w", err)
	}
	cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok || len(cfg.Profiles) != 1 {
		return nil, fmt.Errorf("plugin config: unexpected %T", obj)
	}
	return &cfg.Profiles[0], nil
}

type pluginRunner struct {
	name     string
	plugin   fwPlugin
	fw       framework.Framework
	profile  *schedconfig.KubeSchedulerProfile
	snapshot *internalcache.Snapshot
	nodes    []fwk.NodeInfo // every node, in input order
	cands    []fwk.NodeInfo // PreScore/Score nodes
}

func newPluginRunner(ctx context.Context, name string, sc *scenario) (*pluginRunner, error) {
	profile, err := pluginProfile(name, sc.Args)
	if err != nil {
		return nil, err
	}
	pr := &pluginRunner{name: name, profile: profile}

	// The snapshot, as upstream tests build it: cache.NewSnapshot(existingPods, nodes).
	var nodes []*v1.Node
	var pods []*v1.Pod
	for _, obj := range sc.Objects {
		switch o := obj.(type) {
		case *v1.Node:
			nodes = append(nodes, o)
		case *v1.Pod:
			if o.Spec.NodeName != "" {
				pods = append(pods, o)
			}
		}
	}
	pr.snapshot = internalcache.NewSnapshot(pods, nodes)
	for _, n := range nodes {
		ni, err := pr.snapshot.Get(n.Name)
		if err != nil {
			return nil, err
		}
		pr.nodes = append(pr.nodes, ni)
	}
	pr.cands = pr.nodes
	if sc.Candidates != nil {
		pr.cands = nil
		for _, c := range sc.Candidates {
			ni, err := pr.snapshot.Get(c)
			if err != nil || ni.Node() == nil {
				return nil, fmt.Errorf("candidates: no node %q", c)
			}
			pr.cands = append(pr.cands, ni)
		}
	}

	// Listers (Services, ReplicaSets, ..., Namespaces) come from informers over a
	// fake clientset holding every object, as plugintesting.SetupPluginWithInformers does.
	client := fake.NewClientset(sc.Objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	registry := frameworkplugins.NewInTreeRegistry()
	factoryFn, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("no plugin %q in the in-tree registry", name)
	}
	registry[name] = func(ctx context.Context, args runtime.Object, h fwHandle) (fwPlugin, error) {
		p, err := factoryFn(ctx, args, h)
		pr.plugin = p
		return p, err
	}
	metrics.Register() // NewFramework counts the enabled plugins in the scheduler's metrics (once per process)
	// NodeVolumeLimits reads CSINodes through the framework's shared CSI manager, which
	// scheduler.New builds over the CSINode informer (upstream's TestCSILimits passes
	// NewCSIManager over a fake CSINode lister).
	opts := []frameworkruntime.Option{
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithSnapshotSharedLister(pr.snapshot),
		frameworkruntime.WithEventRecorder(&events.FakeRecorder{}),
	}
	opts = append(opts, sharedCSIManager(factory)...)
	draOpts, waitDRA, err := pluginDRAManager(ctx, client, factory)
	if err != nil {
		return nil, fmt.Errorf("building the DRA manager: %w", err)
	}
	opts = append(opts, draOpts...)
	pr.fw, err = frameworkruntime.NewFramework(ctx, registry, profile, opts...)
	if err != nil {
		return nil, fmt.Errorf("building the framework: %w", err)
	}
	if pr.plugin == nil {
		return nil, fmt.Errorf("plugin %q was not built", name)
	}
	factory.Start(ctx.Done())
	closed := make(chan struct{})
	close(closed)
	err = poll(ctx, func() bool { // see oracle.waitSynced
		for _, ok := range factory.WaitForCacheSync(closed) {
			if !ok {
				return false
			}
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for the informers to sync: %w", err)
	}
	if err := waitDRA(ctx); err != nil {
		return nil, fmt.Errorf("waiting for the DRA manager's DeviceClass cache: %w", err)
	}
	if err := waitPluginHandlers(ctx, pr.plugin); err != nil {
		return nil, fmt.Errorf("waiting for the plugin's informer event handlers: %w", err)
	}
	return pr, nil
}

type preFilterJSON struct {
	Code      string    `json:"code"`
	Plugin    string    `json:"plugin"`
	Reasons   []string  `json:"reasons"`
	NodeNames *[]string `json:"nodeNames,omitempty"` // present when a PreFilterResult narrows the nodes
}

type nodeStatusJSON struct {
	Code    string   `json:"code"`
	Reasons []string `json:"reasons"`
}

type messageStatusJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Node    string `json:"node,omitempty"`
}

type pluginResult struct {
	Pod        string                     `json:"pod"`
	PreFilter  *preFilterJSON             `json:"preFilter,omitempty"`
	Filter     *map[string]nodeStatusJSON `json:"filter,omitempty"`
	PreScore   *messageStatusJSON         `json:"preScore,omitempty"`
	Scores     *map[string]int64          `json:"scores,omitempty"`
	ScoreError *messageStatusJSON         `json:"scoreError,omitempty"`

	// Only after a Skip: what Filter / Score return when called anyway, as some
	// upstream unit tests do (the framework would not call them: a skipped
	// plugin passes every node and does not score).
	FilterAfterSkip     *map[string]nodeStatusJSON `json:"filterAfterSkip,omitempty"`
	ScoresAfterSkip     *map[string]int64          `json:"scoresAfterSkip,omitempty"`
	ScoreErrorAfterSkip *messageStatusJSON         `json:"scoreErrorAfterSkip,omitempty"`
}

func reasons(s *fwk.Status) []string {
	if s == nil || s.Reasons() == nil {
		return []string{}
	}
	return s.Reasons()
}

// evaluate runs the plugin's extension points on pod against the scenario's
// state. The state is never changed, so every pod sees the same cluster.
func (pr *pluginRunner) evaluate(ctx context.Context, pod *v1.Pod) *pluginResult {
	res := &pluginResult{Pod: types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}.String()}

	state := framework.NewCycleState()
	skipFilter := false
	if pl, ok := pr.plugin.(fwPreFilterPlugin); ok {
		r, st := pl.PreFilter(ctx, state, pod, pr.nodes)
		j := &preFilterJSON{Code: st.Code().String(), Reasons: reasons(st)}
		if !st.IsSuccess() {
			j.Plugin = pr.name
		}
		if r != nil && !r.AllNodes() {
			names := sets.List(r.NodeNames)
			j.NodeNames = &names
		}
		res.PreFilter = j
		skipFilter = st.IsSkip()
	}
	if pl, ok := pr.plugin.(fwFilterPlugin); ok {
		m := map[string]nodeStatusJSON{}
		for _, ni := range pr.nodes {
			st := filterNode(ctx, pl, state, pod, ni)
			m[ni.Node().Name] = nodeStatusJSON{Code: st.Code().String(), Reasons: reasons(st)}
		}
		if skipFilter {
			res.FilterAfterSkip = &m
		} else {
			res.Filter = &m
		}
	}

	// Scoring, on a fresh CycleState as upstream score tests do.
	state = framework.NewCycleState()
	skipScore := false
	if pl, ok := pr.plugin.(fwPreScorePlugin); ok {
		st := pl.PreScore(ctx, state, pod, pr.cands)
		res.PreScore = &messageStatusJSON{Code: st.Code().String(), Message: st.Message()}
		if !st.IsSuccess() && !st.IsSkip() {
			return res
		}
		skipScore = st.IsSkip()
	}
	if pl, ok := pr.plugin.(fwScorePlugin); ok {
		scores, scoreErr := pr.score(ctx, pl, state, pod)
		switch {
		case skipScore:
			res.ScoresAfterSkip, res.ScoreErrorAfterSkip = scores, scoreErr
		default:
			res.Scores, res.ScoreError = scores, scoreErr
		}
	}
	return res
}

// filterNode calls Filter. After a PreFilter Skip the framework never calls it,
// and a plugin may then dereference state that only a successful PreFilter fills
// (VolumeBinding's stateData.podVolumeClaims is nil after its Skip): such a panic
// is reported as an Error status instead of ending the process.
func filterNode(ctx context.Context, pl fwFilterPlugin, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) (st *fwk.Status) {
	defer func() {
		if r := recover(); r != nil {
			st = fwk.AsStatus(fmt.Errorf("filter panicked: %v", r))
		}
	}()
	return pl.Filter(ctx, state, pod, ni)
}

// score runs Score on every candidate, then NormalizeScore. It returns the
// normalized scores, or the first non-success status.
func (pr *pluginRunner) score(ctx context.Context, pl fwScorePlugin, state fwk.CycleState, pod *v1.Pod) (*map[string]int64, *messageStatusJSON) {
	scores := make(fwNodeScoreList, 0, len(pr.cands))
	for _, ni := range pr.cands {
		s, st := pl.Score(ctx, state, pod, ni)
		if !st.IsSuccess() {
			return nil, &messageStatusJSON{Code: st.Code().String(), Message: st.Message(), Node: ni.Node().Name}
		}
		scores = append(scores, fwNodeScore{Name: ni.Node().Name, Score: s})
	}
	if ext := pl.ScoreExtensions(); ext != nil {
		if st := ext.NormalizeScore(ctx, state, pod, scores); !st.IsSuccess() {
			return nil, &messageStatusJSON{Code: st.Code().String(), Message: st.Message()}
		}
	}
	m := map[string]int64{}
	for _, s := range scores {
		m[s.Name] = s.Score
	}
	return &m, nil
}

// noWait is a wait that has nothing to wait for.
func noWait(context.Context) error { return nil }

func runPlugin(ctx context.Context, e *env, op *options, sc *scenario, emit func(any) error) (int, error) {
	name := op.plugin
	if sc.Plugin != "" {
		name = sc.Plugin
	}
	pr, err := newPluginRunner(ctx, name, sc)
	if err != nil {
		return 0, err
	}
	if op.dumpProfile {
		dumpProfile(os.Stderr, pr.fw, *pr.profile)
	}
	n := 0
	for _, p := range sc.Schedule {
		if err := emit(pr.evaluate(ctx, p)); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
