package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	goruntime "runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/watch"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
)

var podsGVR = v1.SchemeGroupVersion.WithResource("pods")

// oracle holds a real *scheduler.Scheduler built by scheduler.New over a fake
// clientset, plus what is needed to drive its scheduling cycle step by step.
type oracle struct {
	client    *fake.Clientset
	factory   informers.SharedInformerFactory
	sched     *scheduler.Scheduler
	fw        framework.Framework
	snapshot  *internalcache.Snapshot
	nodeOrder []string
	// percentage is the configuration's percentageOfNodesToScore; nextStart the oracle's
	// nextStartNodeIndex (SchedulePod in crossCheck advances the scheduler's own alike).
	percentage *int32
	nextStart  int
	logger     klog.Logger
	profile    schedconfig.KubeSchedulerProfile

	crossCheckOn   bool
	quiet          bool // -time: do not build the per-pod filter/score report
	viaSchedulePod bool // -time-schedulepod: decide with sched.SchedulePod (parallel filtering)

	watches atomic.Int64 // watches opened on the fake clientset

	mu      sync.Mutex
	deleted []types.NamespacedName // pods deleted through the API (preemption victims)
	uids    map[types.NamespacedName]types.UID
}

// env holds what is expensive to build and can be shared by every scenario of a
// process: the object decoder (scheme, codecs) and the default configuration.
type env struct {
	dec *decoder
	// latest.Default() (percentageOfNodesToScore 0: adaptive) with parallelism 1, so that node
	// sampling is deterministic; in timing mode percentageOfNodesToScore 100 and parallelism 16.
	cfg *schedconfig.KubeSchedulerConfiguration

	fieldManaged bool // -field-managed-client: fake.NewClientset instead of NewSimpleClientset
}

// newFakeClientset returns the fake clientset the scheduler talks to.
//
// fake.NewClientset's field-managed object tracker rebuilds a REST mapper of the
// whole scheme on every create/update/patch (client-go testing/fixture.go), about
// 20 ms of CPU per call here, which made API writes over half of the run time. The
// scheduler never uses server-side apply and never reads managedFields, so by
// default the plain object tracker (NewSimpleClientset, same storage, same watch
// and reactors, no managedFields) is used. -field-managed-client switches back.
func newFakeClientset(fieldManaged bool, objs ...runtime.Object) *fake.Clientset {
	if fieldManaged {
		return fake.NewClientset(objs...)
	}
	return fake.NewSimpleClientset(objs...) //nolint:staticcheck // see above
}

func newEnv(timing bool) (*env, error) {
	cfg, err := latest.Default()
	if err != nil {
		return nil, err
	}
	if timing {
		// Throughput of the whole evaluation, compared with spreadlab scoring every node.
		hundred := int32(100)
		cfg.PercentageOfNodesToScore = &hundred
		cfg.Profiles[0].PercentageOfNodesToScore = &hundred
	} else {
		// Nodes checked one at a time: the nodes a sampled pass finds are then those of the
		// node tree order from nextStartNodeIndex, not whichever of 16 workers finished first.
		cfg.Parallelism = 1
	}
	return &env{dec: newDecoder(), cfg: cfg}, nil
}

// numFeasibleNodesToFind mirrors the scheduler's (unexported) method of that name in
// schedule_one.go; crossCheck compares the resulting counts with SchedulePod's own.
func (o *oracle) numFeasibleNodesToFind(numAllNodes int) int {
	const minFeasibleNodesToFind, minFeasibleNodesPercentageToFind = 100, 5
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	var percentage int
	if p := o.profile.PercentageOfNodesToScore; p != nil {
		percentage = int(*p)
	} else if p := o.percentage; p != nil {
		percentage = int(*p)
	}
	if percentage == 0 {
		percentage = 50 - numAllNodes/125
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	numNodes := numAllNodes * percentage / 100
	if numNodes < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return numNodes
}

// newOracle builds a fresh fake clientset, informer factory and scheduler for sc.
// Everything it starts stops when ctx is cancelled.
func newOracle(ctx context.Context, e *env, sc *scenario) (*oracle, error) {
	logger := klog.FromContext(ctx)
	cfg := e.cfg
	prof := *cfg.Profiles[0].DeepCopy()

	o := &oracle{nodeOrder: sc.NodeOrder, logger: logger, uids: map[types.NamespacedName]types.UID{}, percentage: cfg.PercentageOfNodesToScore}
	for _, obj := range sc.Objects {
		if p, ok := obj.(*v1.Pod); ok {
			o.uids[types.NamespacedName{Namespace: p.Namespace, Name: p.Name}] = p.UID
		}
	}
	for _, p := range sc.Schedule {
		o.uids[types.NamespacedName{Namespace: p.Namespace, Name: p.Name}] = p.UID
	}

	o.client = newFakeClientset(e.fieldManaged, sc.Objects...)
	// The fake clientset stores pods/binding as an object of its own; make it do what
	// kube-apiserver does: set spec.nodeName and PodScheduled=True on the pod.
	o.client.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		ca, ok := action.(clienttesting.CreateAction)
		if !ok || ca.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := ca.GetObject().(*v1.Binding)
		obj, err := o.client.Tracker().Get(podsGVR, b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		if pod.Spec.NodeName != "" {
			return true, nil, apierrors.NewConflict(podsGVR.GroupResource(), pod.Name, fmt.Errorf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName))
		}
		pod.Spec.NodeName = b.Target.Name
		setCondition(&pod.Status, v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: metav1.Now()})
		return true, b, o.client.Tracker().Update(podsGVR, pod, b.Namespace)
	})
	// Pod updates and patches get a new resourceVersion, as kube-apiserver gives them: the
	// scheduler ignores an update event whose resourceVersion did not change
	// (updatePodInSchedulingQueue), so without this the queue would never see, for example,
	// preemption clearing a lower-priority pod's status.nominatedNodeName.
	rv := rvTracker{ObjectTracker: o.client.Tracker(), next: new(atomic.Int64)}
	o.client.PrependReactor("update", "pods", clienttesting.ObjectReaction(rv))
	o.client.PrependReactor("patch", "pods", clienttesting.ObjectReaction(rv))
	// Record deletions: these are the preemption victims.
	o.client.PrependReactor("delete", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if da, ok := action.(clienttesting.DeleteAction); ok {
			o.mu.Lock()
			o.deleted = append(o.deleted, types.NamespacedName{Namespace: da.GetNamespace(), Name: da.GetName()})
			o.mu.Unlock()
		}
		return false, nil, nil
	})

	// Count the watches as they are registered in the tracker. The fake tracker
	// does not replay events to a watch opened after them, so an object created
	// after an informer's List but before its Watch is never delivered. Informers
	// report "synced" after the List; waitSynced also waits for the watches.
	o.client.PrependWatchReactor("*", func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		w, err := o.client.Tracker().Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err // let the default reactor answer
		}
		o.watches.Add(1)
		return true, w, nil
	})

	o.factory = newInformerFactory(o.client)
	recorderFactory := newRecorderFactory()
	var err error
	o.sched, err = scheduler.New(ctx, o.client, o.factory, nil, recorderFactory,
		scheduler.WithProfiles(prof),
		scheduler.WithPercentageOfNodesToScore(cfg.PercentageOfNodesToScore),
		scheduler.WithParallelism(cfg.Parallelism),
		scheduler.WithPodInitialBackoffSeconds(cfg.PodInitialBackoffSeconds),
		scheduler.WithPodMaxBackoffSeconds(cfg.PodMaxBackoffSeconds),
		scheduler.WithExtenders(cfg.Extenders...),
		scheduler.WithBuildFrameworkCapturer(func(p schedconfig.KubeSchedulerProfile) { o.profile = p }),
	)
	if err != nil {
		return nil, err
	}
	o.fw = o.sched.Profiles[prof.SchedulerName]
	if o.fw == nil {
		return nil, fmt.Errorf("profile %q not built", prof.SchedulerName)
	}
	o.installBinder()
	snap, ok := o.fw.SnapshotSharedLister().(*internalcache.Snapshot)
	if !ok {
		return nil, fmt.Errorf("unexpected snapshot type %T", o.fw.SnapshotSharedLister())
	}
	o.snapshot = snap

	o.factory.Start(ctx.Done())
	// The blocking waits below poll every 100 ms; poll the same conditions finely
	// first, so that they return at once (this only saves time).
	if err := o.waitSynced(ctx); err != nil {
		return nil, err
	}
	for typ, ok := range o.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("informer for %v did not sync", typ)
		}
	}
	if err := o.sched.WaitForHandlersSync(ctx); err != nil {
		return nil, err
	}
	return o, nil
}

// waitSynced polls, without blocking in between, the conditions of
// factory.WaitForCacheSync and sched.WaitForHandlersSync (both check once
// before looking at their stop channel/context, so with a closed one they
// answer "synced now?"), and waits until every started informer has its watch
// open.
func (o *oracle) waitSynced(ctx context.Context) error {
	closed := make(chan struct{})
	close(closed)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	err := poll(ctx, func() bool {
		started := o.factory.WaitForCacheSync(closed)
		for _, ok := range started {
			if !ok {
				return false
			}
		}
		// One watch per started informer is open (see the watch reactor).
		return o.watches.Load() >= int64(len(started)) && o.sched.WaitForHandlersSync(cancelled) == nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the informers and the scheduler's handlers to sync: %w", err)
	}
	return nil
}

func setCondition(st *v1.PodStatus, c v1.PodCondition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

// ---- output ----

type statusJSON struct {
	Code    string   `json:"code"`
	Plugin  string   `json:"plugin"`
	Reasons []string `json:"reasons"`
}

func toJSON(s *fwk.Status) statusJSON {
	if s == nil {
		return statusJSON{Code: fwk.Success.String(), Reasons: []string{}}
	}
	r := s.Reasons()
	if r == nil {
		r = []string{}
	}
	return statusJSON{Code: s.Code().String(), Plugin: s.Plugin(), Reasons: r}
}

type retryJSON struct {
	PreFilter statusJSON            `json:"preFilter"`
	Filter    map[string]statusJSON `json:"filter"`
	Node      *string               `json:"node"`
	Error     string                `json:"error,omitempty"`
}

type result struct {
	Pod           string                      `json:"pod"`
	PreEnqueue    *statusJSON                 `json:"preEnqueue,omitempty"`
	PreFilter     *statusJSON                 `json:"preFilter,omitempty"`
	Filter        map[string]statusJSON       `json:"filter"`
	Scores        map[string]map[string]int64 `json:"scores,omitempty"`
	Totals        map[string]int64            `json:"totals,omitempty"`
	TopNodes      []string                    `json:"topNodes,omitempty"`
	Node          *string                     `json:"node"`
	Message       *string                     `json:"message"`
	NominatedNode *string                     `json:"nominatedNode"`
	Victims       []string                    `json:"victims"`
	PostFilter    *statusJSON                 `json:"postFilter,omitempty"`
	Retry         *retryJSON                  `json:"retry,omitempty"`
	CrossCheck    string                      `json:"crossCheck,omitempty"`
	Error         string                      `json:"error,omitempty"`
}

func strp(s string) *string { return &s }

// numNodes is the snapshot's node count (Snapshot.NumNodes in v1.35, NumNodesInPlacement later;
// both len(nodeInfoList) for a pod outside a pod group).
func numNodes(s *internalcache.Snapshot) int {
	nodes, _ := s.NodeInfos().List()
	return len(nodes)
}

// ---- one scheduling attempt (schedulePod + findNodesThatFitPod + prioritizeNodes) ----

type attempt struct {
	state     fwk.CycleState
	preFilter *fwk.Status
	diagnosis framework.Diagnosis
	evaluated []string // nodes whose filters ran and whose verdict the pass recorded
	narrowed  bool     // a PreFilterResult narrowed the candidate nodes
	feasible  []fwk.NodeInfo
	processed int                  // nodes the main Filter pass processed
	scores    []fwNodePluginScores // nil when scoring did not run
	topNodes  []string
	chosen    string
	fitErr    *framework.FitError
	err       error
}

// orderedNodes returns the snapshot's nodes in the scenario's node input order.
func (o *oracle) orderedNodes() []fwk.NodeInfo {
	var out []fwk.NodeInfo
	seen := sets.New[string]()
	for _, name := range o.nodeOrder {
		if ni, err := o.snapshot.Get(name); err == nil && ni.Node() != nil {
			out = append(out, ni)
			seen.Insert(name)
		}
	}
	all, _ := o.snapshot.NodeInfos().List()
	var rest []fwk.NodeInfo
	for _, ni := range all {
		if !seen.Has(ni.Node().Name) {
			rest = append(rest, ni)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].Node().Name < rest[j].Node().Name })
	return append(out, rest...)
}

// run performs one scheduling attempt for pod. With nominatedOnly, only the
// pod's nominated node is filtered (the retry after preemption).
func (o *oracle) run(ctx context.Context, pod *v1.Pod, nominatedOnly bool) *attempt {
	a := &attempt{diagnosis: framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}}
	if err := o.sched.Cache.UpdateSnapshot(o.logger, o.snapshot); err != nil {
		a.err = err
		return a
	}
	if numNodes(o.snapshot) == 0 {
		a.err = scheduler.ErrNoNodesAvailable
		return a
	}
	state := framework.NewCycleState()
	state.SetRecordPluginMetrics(false)
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
	a.state = state
	fw := o.fw

	preRes, s, unschedulablePlugins := fw.RunPreFilterPlugins(ctx, state, pod)
	a.preFilter = s
	a.diagnosis.UnschedulablePlugins = unschedulablePlugins
	if !s.IsSuccess() {
		if !s.IsRejected() {
			a.err = s.AsError()
			return a
		}
		a.diagnosis.NodeToStatus.SetAbsentNodesStatus(s)
		a.diagnosis.PreFilterMsg = s.Message()
		a.diagnosis.AddPluginStatus(s)
		a.fitErr = &framework.FitError{Pod: pod, NumAllNodes: numNodes(o.snapshot), Diagnosis: a.diagnosis}
		return a
	}

	filter := func(ni fwk.NodeInfo) error {
		st := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni)
		a.evaluated = append(a.evaluated, ni.Node().Name)
		if st.Code() == fwk.Error {
			return st.AsError()
		}
		if st.IsSuccess() {
			a.feasible = append(a.feasible, ni)
		} else {
			a.diagnosis.NodeToStatus.Set(ni.Node().Name, st)
			a.diagnosis.AddPluginStatus(st)
		}
		return nil
	}

	// A nominated node is tried first; if it passes it is the only feasible node. An error there
	// is only logged by findNodesThatFitPod ("Evaluation failed on nominated node"): the node
	// keeps no status and the pass below goes on (and meets the error again on that node).
	nominatedFailed := false
	if nnn := pod.Status.NominatedNodeName; nnn != "" {
		if ni, err := o.snapshot.Get(nnn); err == nil {
			if err := filter(ni); err != nil {
				if nominatedOnly {
					a.err = err
					return a
				}
			} else {
				if len(a.feasible) == 1 || nominatedOnly {
					return o.finish(ctx, a, pod)
				}
				nominatedFailed = true
			}
		} else if nominatedOnly {
			a.err = fmt.Errorf("nominated node %q not found", nnn)
			return a
		}
	}

	// The scheduler's own node order (the cache's node tree), from nextStartNodeIndex, stopping
	// after numFeasibleNodesToFind feasible nodes, as findNodesThatPassFilters does with
	// parallelism 1.
	allNodes, err := o.snapshot.NodeInfos().List()
	if err != nil {
		a.err = err
		return a
	}
	nodes := allNodes
	if !preRes.AllNodes() {
		var narrowed []fwk.NodeInfo
		for _, ni := range allNodes {
			if preRes.NodeNames.Has(ni.Node().Name) {
				narrowed = append(narrowed, ni)
			}
		}
		nodes = narrowed
		a.narrowed = true
		a.diagnosis.NodeToStatus.SetAbsentNodesStatus(fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(unschedulablePlugins))))
	}
	a.evaluated = nil
	a.feasible = nil
	limit := o.numFeasibleNodesToFind(len(nodes))
	processed := 0
	walked := sets.New[string]()
	// processedNodes is len(feasibleNodes) + NodeToStatus.Len(): a nominated node that failed
	// keeps its status there even when this pass did not reach it. nextStartNodeIndex moves on
	// by it "regardless of whether an error has occurred" (findNodesThatFitPod).
	advance := func() {
		if nominatedFailed && !walked.Has(pod.Status.NominatedNodeName) {
			processed++
		}
		if len(allNodes) > 0 {
			o.nextStart = (o.nextStart + processed) % len(allNodes)
		}
	}
	for i := range nodes {
		ni := nodes[(o.nextStart+i)%len(nodes)]
		if err := filter(ni); err != nil {
			advance()
			a.err = err
			return a
		}
		if len(a.feasible) > limit {
			// One feasible node too many: dropped again and the pass stops (upstream's
			// increment, cancel, decrement).
			a.feasible = a.feasible[:limit]
			a.evaluated = a.evaluated[:len(a.evaluated)-1]
			break
		}
		walked.Insert(ni.Node().Name)
		processed++
	}
	advance()
	a.processed = processed
	return o.finish(ctx, a, pod)
}

func (o *oracle) finish(ctx context.Context, a *attempt, pod *v1.Pod) *attempt {
	switch len(a.feasible) {
	case 0:
		a.fitErr = &framework.FitError{Pod: pod, NumAllNodes: numNodes(o.snapshot), Diagnosis: a.diagnosis}
		return a
	case 1:
		a.chosen = a.feasible[0].Node().Name
		a.topNodes = []string{a.chosen}
		return a
	}
	var scores []fwNodePluginScores
	if !o.fw.HasScorePlugins() {
		for _, ni := range a.feasible {
			scores = append(scores, fwNodePluginScores{Name: ni.Node().Name, TotalScore: 1})
		}
	} else {
		if st := o.fw.RunPreScorePlugins(ctx, a.state, pod, a.feasible); !st.IsSuccess() {
			a.err = st.AsError()
			return a
		}
		var st *fwk.Status
		scores, st = o.fw.RunScorePlugins(ctx, a.state, pod, a.feasible)
		if !st.IsSuccess() {
			a.err = st.AsError()
			return a
		}
	}
	a.scores = scores
	best := int64(-1 << 62)
	for _, s := range scores {
		if s.TotalScore > best {
			best = s.TotalScore
		}
	}
	top := sets.New[string]()
	for _, s := range scores {
		if s.TotalScore == best {
			top.Insert(s.Name)
		}
	}
	// The tie rule: the top node first in the scenario's node input order.
	for _, ni := range o.orderedNodes() {
		if top.Has(ni.Node().Name) {
			a.topNodes = append(a.topNodes, ni.Node().Name)
		}
	}
	a.chosen = a.topNodes[0]
	return a
}

// filterJSON reports the status the scheduler holds for every evaluated node
// (or, after a PreFilter rejection, for every node).
func (o *oracle) filterJSON(a *attempt) map[string]statusJSON {
	out := map[string]statusJSON{}
	names := a.evaluated
	if a.preFilter != nil && a.preFilter.IsRejected() {
		names = nil
		for _, ni := range o.orderedNodes() {
			names = append(names, ni.Node().Name)
		}
	} else if a.narrowed {
		// PreFilterResult narrowed the nodes: the others carry the absent-node status.
		names = nil
		for _, ni := range o.orderedNodes() {
			names = append(names, ni.Node().Name)
		}
	}
	feasible := sets.New[string]()
	for _, ni := range a.feasible {
		feasible.Insert(ni.Node().Name)
	}
	for _, n := range names {
		if feasible.Has(n) {
			out[n] = toJSON(nil)
		} else {
			out[n] = toJSON(a.diagnosis.NodeToStatus.Get(n))
		}
	}
	return out
}

// ---- one pod: scheduling cycle, failure handling/preemption, binding cycle ----

func (o *oracle) schedule(ctx context.Context, in *v1.Pod) *result {
	key := types.NamespacedName{Namespace: in.Namespace, Name: in.Name}
	res := &result{Pod: key.String(), Filter: map[string]statusJSON{}, Victims: []string{}}
	fail := func(err error) *result {
		res.Error = err.Error()
		return res
	}

	// The pod is created through the API and reaches the scheduler via its informer (a
	// waiting pod was created before the first cycle, see createWaiting).
	if !isWaiting(in) {
		if _, err := o.client.CoreV1().Pods(in.Namespace).Create(ctx, in, metav1.CreateOptions{}); err != nil {
			return fail(fmt.Errorf("creating pod: %w", err))
		}
	}
	pod, err := o.waitPod(ctx, key, func(p *v1.Pod) bool { return true })
	if err != nil {
		return fail(err)
	}
	if o.sched.Profiles[pod.Spec.SchedulerName] == nil {
		return fail(fmt.Errorf("no profile for schedulerName %q", pod.Spec.SchedulerName))
	}
	// The informer's store has the pod before the scheduler's event handler has queued it; that
	// handler's AddNominatedPod (with no nomination) must run before this pod can be nominated
	// below, or it would delete the nomination (a late Add event lost nominations in about 1 run
	// of 20). The queue's Add holds its lock until the handler is done, so seeing the pod in the
	// queue means the handler ran.
	if err := poll(ctx, func() bool {
		return queueHas(o.sched.SchedulingQueue, key.Name, key.Namespace)
	}); err != nil {
		return fail(fmt.Errorf("waiting for pod %s in the scheduling queue: %w", key, err))
	}

	// PreEnqueue (SchedulingGates, DefaultPreemption): a gated pod never reaches a cycle.
	for _, pl := range o.fw.PreEnqueuePlugins() {
		if st := pl.PreEnqueue(ctx, pod); !st.IsSuccess() {
			j := toJSON(st.WithPlugin(pl.Name()))
			res.PreEnqueue = &j
			return res
		}
	}

	if o.viaSchedulePod {
		// -time -time-schedulepod: the scheduler's own SchedulePod decides; a pod it
		// cannot place goes through the oracle's path below (PostFilter, preemption).
		state := framework.NewCycleState()
		state.SetRecordPluginMetrics(false)
		state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
		// scheduleOne updates the snapshot before the cycle (SchedulePod itself did up to v1.35).
		if err := o.sched.Cache.UpdateSnapshot(o.logger, o.snapshot); err != nil {
			return fail(err)
		}
		if r, err := schedulePod(ctx, o.sched, o.fw, state, pod); err == nil {
			if err := o.bind(ctx, pod, &attempt{state: state, chosen: r.SuggestedHost}); err != nil {
				return fail(err)
			}
			res.Node = strp(r.SuggestedHost)
			return res
		}
	}

	a := o.run(ctx, pod, false)
	if !o.quiet {
		res.fill(o, a)
	}
	if a.err != nil {
		// schedulingCycle: an error that is not a FitError fails the cycle with
		// clearNominatedNode (reason SchedulerError), without PostFilter.
		clear := &fwNominatingInfo{NominatingMode: fwModeOverride, NominatedNodeName: ""}
		if err := o.handleFailure(ctx, pod, a.err.Error(), clear); err != nil {
			return fail(fmt.Errorf("%v; then handling the failure: %w", a.err, err))
		}
		return fail(a.err)
	}
	if o.crossCheckOn {
		res.CrossCheck = o.crossCheck(ctx, pod, a)
	}

	if a.fitErr != nil {
		// schedulingCycle: run PostFilter with the same cycle state and append its message.
		var nominatingInfo *fwNominatingInfo
		o.mu.Lock()
		o.deleted = nil
		o.mu.Unlock()
		waitPreemptionGoroutine := preemptionGoroutineWaiter()
		if o.fw.HasPostFilterPlugins() {
			r, st := o.fw.RunPostFilterPlugins(ctx, a.state, pod, a.fitErr.Diagnosis.NodeToStatus)
			a.fitErr.Diagnosis.PostFilterMsg = st.Message()
			j := toJSON(st)
			res.PostFilter = &j
			if r != nil {
				nominatingInfo = r.NominatingInfo
			}
		}
		msg := a.fitErr.Error()
		res.Message = &msg
		if err := o.handleFailure(ctx, pod, msg, nominatingInfo); err != nil {
			return fail(err)
		}
		if nominatingInfo == nil || nominatingInfo.Mode() != fwModeOverride || nominatingInfo.NominatedNodeName == "" {
			return res
		}
		nnn := nominatingInfo.NominatedNodeName
		res.NominatedNode = &nnn
		victims, err := o.waitPreemption(ctx, pod, waitPreemptionGoroutine)
		res.Victims = victims
		if err != nil {
			return fail(err)
		}
		// Retry once, on the nominated node only.
		pod, err = o.waitPod(ctx, key, func(p *v1.Pod) bool { return p.Status.NominatedNodeName == nnn })
		if err != nil {
			return fail(err)
		}
		r := o.run(ctx, pod, true)
		res.Retry = &retryJSON{PreFilter: toJSON(r.preFilter)}
		if !o.quiet {
			res.Retry.Filter = o.filterJSON(r)
		}
		if r.err != nil {
			res.Retry.Error = r.err.Error()
			return res
		}
		if r.fitErr != nil {
			return res // stays Pending, nominated
		}
		if err := o.bind(ctx, pod, r); err != nil {
			res.Retry.Error = err.Error()
			return res
		}
		res.Retry.Node = strp(r.chosen)
		res.Node = strp(r.chosen)
		return res
	}

	if err := o.bind(ctx, pod, a); err != nil {
		return fail(err)
	}
	res.Node = strp(a.chosen)
	return res
}

func (res *result) fill(o *oracle, a *attempt) {
	if a.state != nil { // the cycle ran PreFilter
		j := toJSON(a.preFilter)
		res.PreFilter = &j
	}
	res.Filter = o.filterJSON(a)
	if a.scores != nil {
		res.Scores = map[string]map[string]int64{}
		res.Totals = map[string]int64{}
		for _, s := range a.scores {
			m := map[string]int64{}
			for _, ps := range s.Scores {
				m[ps.Name] = ps.Score
			}
			res.Scores[s.Name] = m
			res.Totals[s.Name] = s.TotalScore
		}
	}
	res.TopNodes = a.topNodes
}

// crossCheck runs the scheduler's own SchedulePod (schedule_one.go) on the same
// state and reports any disagreement with the step-by-step attempt.
func (o *oracle) crossCheck(ctx context.Context, pod *v1.Pod, a *attempt) string {
	state := framework.NewCycleState()
	state.SetRecordPluginMetrics(false)
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
	r, err := schedulePod(ctx, o.sched, o.fw, state, pod)
	var fe *framework.FitError
	switch {
	case errors.As(err, &fe):
		if a.fitErr == nil {
			return fmt.Sprintf("SchedulePod: %v; oracle chose %s", err, a.chosen)
		}
		if got, want := fe.Error(), a.fitErr.Error(); got != want {
			return fmt.Sprintf("SchedulePod message %q differs from %q", got, want)
		}
	case err != nil:
		return fmt.Sprintf("SchedulePod error: %v", err)
	default:
		if a.fitErr != nil {
			return fmt.Sprintf("SchedulePod chose %s; oracle found no node", r.SuggestedHost)
		}
		if !sets.New(a.topNodes...).Has(r.SuggestedHost) {
			return fmt.Sprintf("SchedulePod chose %s, not in topNodes %v", r.SuggestedHost, a.topNodes)
		}
		evaluated := len(a.feasible) + a.diagnosis.NodeToStatus.Len()
		if r.FeasibleNodes != len(a.feasible) || r.EvaluatedNodes != evaluated {
			return fmt.Sprintf("SchedulePod kept %d feasible of %d evaluated nodes, the oracle %d of %d",
				r.FeasibleNodes, r.EvaluatedNodes, len(a.feasible), evaluated)
		}
	}
	return ""
}

// rvTracker is the fake clientset's object tracker with kube-apiserver's one rule the
// scheduler's event handlers depend on: every write gets a new resourceVersion.
type rvTracker struct {
	clienttesting.ObjectTracker
	next *atomic.Int64
}

func (t rvTracker) bump(obj runtime.Object) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(strconv.FormatInt(1000+t.next.Add(1), 10))
	}
}

// Update stores obj with a new resourceVersion.
func (t rvTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	t.bump(obj)
	return t.ObjectTracker.Update(gvr, obj, ns, opts...)
}

// Patch stores the patched obj with a new resourceVersion.
func (t rvTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	t.bump(obj)
	return t.ObjectTracker.Patch(gvr, obj, ns, opts...)
}

// isWaiting reports whether a schedule pod was already waiting in the snapshot: the API
// server stored it (it has a creationTimestamp) and no node holds it yet.
func isWaiting(p *v1.Pod) bool { return !p.CreationTimestamp.IsZero() }

// createWaiting creates the schedule's waiting pods through the API before any cycle and waits
// until the scheduler's queue holds each of them (its Add nominated those that carry
// status.nominatedNodeName, as a running scheduler's queue did when they arrived).
func (o *oracle) createWaiting(ctx context.Context, pods []*v1.Pod) error {
	for _, p := range pods {
		if !isWaiting(p) {
			continue
		}
		if _, err := o.client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	for _, p := range pods {
		if !isWaiting(p) {
			continue
		}
		if err := poll(ctx, func() bool {
			return queueHas(o.sched.SchedulingQueue, p.Name, p.Namespace)
		}); err != nil {
			return fmt.Errorf("waiting for pod %s/%s in the scheduling queue: %w", p.Namespace, p.Name, err)
		}
	}
	return nil
}

// handleFailure does what handleSchedulingFailure does with the API and the nominator.
func (o *oracle) handleFailure(ctx context.Context, pod *v1.Pod, msg string, ni *fwNominatingInfo) error {
	podInfo, _ := framework.NewPodInfo(pod)
	o.sched.SchedulingQueue.AddNominatedPod(o.logger, podInfo, ni)
	cur, err := o.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	cur = cur.DeepCopy()
	setCondition(&cur.Status, v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable, Message: msg, LastTransitionTime: metav1.Now()})
	if ni.Mode() == fwModeOverride {
		cur.Status.NominatedNodeName = ni.NominatedNodeName
	}
	if _, err := o.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil {
		return err
	}
	want := cur.Status.NominatedNodeName
	_, err = o.waitPod(ctx, types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}, func(p *v1.Pod) bool {
		return p.Status.NominatedNodeName == want && podScheduledFalse(p)
	})
	return err
}

func podScheduledFalse(p *v1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled {
			return c.Status == v1.ConditionFalse
		}
	}
	return false
}

// waitPreemption waits for the (asynchronous) preemption started by PostFilter
// to finish, the way the queue does (DefaultPreemption's PreEnqueue), then
// until the scheduler cache no longer holds the victims. It returns the victims.
// waitGoroutine (see preemptionGoroutineWaiter) waits for what PreEnqueue does not
// cover in the release.
func (o *oracle) waitPreemption(ctx context.Context, pod *v1.Pod, waitGoroutine func(context.Context) error) ([]string, error) {
	var dp fwPreEnqueuePlugin
	for _, pl := range o.fw.PreEnqueuePlugins() {
		if pl.Name() == names.DefaultPreemption {
			dp = pl
		}
	}
	if dp != nil {
		if err := poll(ctx, func() bool { return dp.PreEnqueue(ctx, pod).IsSuccess() }); err != nil {
			return nil, fmt.Errorf("waiting for preemption: %w", err)
		}
	}
	if err := waitGoroutine(ctx); err != nil {
		return nil, fmt.Errorf("waiting for the preemption goroutine: %w", err)
	}
	o.mu.Lock()
	deleted := append([]types.NamespacedName(nil), o.deleted...)
	o.mu.Unlock()
	var out []string
	for _, v := range deleted {
		out = append(out, v.String())
		vp := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: v.Namespace, Name: v.Name, UID: o.uids[v]}}
		if err := poll(ctx, func() bool { _, err := o.sched.Cache.GetPod(vp); return err != nil }); err != nil {
			return out, fmt.Errorf("waiting for victim %s to leave the cache: %w", v, err)
		}
	}
	sort.Strings(out)
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// bind does the rest of schedulingCycle (assume, Reserve, Permit) and the
// bindingCycle (PreBind, Bind through DefaultBinder, PostBind), synchronously.
func (o *oracle) bind(ctx context.Context, pod *v1.Pod, a *attempt) error {
	fw, node, state := o.fw, a.chosen, a.state
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = node
	if err := o.sched.Cache.AssumePod(o.logger, assumed); err != nil {
		return fmt.Errorf("assume: %w", err)
	}
	o.sched.SchedulingQueue.DeleteNominatedPodIfExists(assumed)
	undo := func(st *fwk.Status, what string) error {
		fw.RunReservePluginsUnreserve(ctx, state, assumed, node)
		_ = o.sched.Cache.ForgetPod(o.logger, assumed)
		return fmt.Errorf("%s on %s: %v", what, node, st.AsError())
	}
	if st := fw.RunReservePluginsReserve(ctx, state, assumed, node); !st.IsSuccess() {
		return undo(st, "Reserve")
	}
	if st := runPermit(ctx, fw, state, assumed, node); !st.IsWait() && !st.IsSuccess() {
		return undo(st, "Permit")
	}
	if utilfeature.DefaultFeatureGate.Enabled(features.NominatedNodeNameForExpectation) {
		if st := fw.RunPreBindPreFlights(ctx, state, assumed, node); st.Code() == fwk.Error || st.IsRejected() {
			return undo(st, "PreBindPreFlight")
		}
	}
	if st := fw.WaitOnPermit(ctx, assumed); !st.IsSuccess() {
		return undo(st, "WaitOnPermit")
	}
	if st := fw.RunPreBindPlugins(ctx, state, assumed, node); !st.IsSuccess() {
		return undo(st, "PreBind")
	}
	st := fw.RunBindPlugins(ctx, state, assumed, node)
	if err := finishBinding(o.sched.Cache, o.logger, assumed); err != nil {
		return err
	}
	if !st.IsSuccess() {
		return undo(st, "Bind")
	}
	fw.RunPostBindPlugins(ctx, state, assumed, node)
	// Wait until the informer has delivered the bound pod to the cache (assumed -> added).
	return poll(ctx, func() bool {
		assumedNow, err := o.sched.Cache.IsAssumedPod(assumed)
		return err == nil && !assumedNow
	})
}

func (o *oracle) waitPod(ctx context.Context, key types.NamespacedName, ok func(*v1.Pod) bool) (*v1.Pod, error) {
	lister := o.factory.Core().V1().Pods().Lister()
	var pod *v1.Pod
	err := poll(ctx, func() bool {
		p, err := lister.Pods(key.Namespace).Get(key.Name)
		if err != nil || !ok(p) {
			return false
		}
		pod = p.DeepCopy()
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for pod %s in the informer: %w", key, err)
	}
	return pod, nil
}

// poll checks cond at once, then, for up to 200 µs, after each runtime.Gosched,
// then at growing intervals (20 µs doubling up to 1 ms), for at most 20 s.
//
// What we wait for (an informer delivering an event to a handler) is a chain of
// goroutine hand-offs inside this process that takes microseconds. Yielding keeps
// this thread running, so those goroutines run at once; sleeping instead parks
// the thread, and on a busy machine the OS may take milliseconds to wake it up,
// which made small scenarios several times slower (wall clock, not CPU).
func poll(ctx context.Context, cond func() bool) error {
	if cond() {
		return nil
	}
	for spinUntil := time.Now().Add(200 * time.Microsecond); time.Now().Before(spinUntil); {
		goruntime.Gosched()
		if cond() {
			return nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	d := 20 * time.Microsecond
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		if cond() {
			return nil
		}
		if d < time.Millisecond {
			d *= 2
		}
		t.Reset(d)
	}
}

// ---- profile dump ----

func (o *oracle) dumpProfile(w io.Writer) { dumpProfile(w, o.fw, o.profile) }

func dumpProfile(w io.Writer, fw framework.Framework, profile schedconfig.KubeSchedulerProfile) {
	b, _ := json.MarshalIndent(fw.ListPlugins(), "", "  ")
	fmt.Fprintf(w, "profile %s, percentageOfNodesToScore %v, plugins:\n%s\n", fw.ProfileName(), derefInt32(fw.PercentageOfNodesToScore()), b)
	for _, pc := range profile.PluginConfig {
		args, _ := json.Marshal(pc.Args)
		fmt.Fprintf(w, "args %s: %s\n", pc.Name, args)
	}
	var gates []string
	for _, g := range []string{"DynamicResourceAllocation", "DRAExtendedResource", "SchedulerAsyncPreemption", "SchedulerAsyncAPICalls",
		"OpportunisticBatching", "NominatedNodeNameForExpectation", "SchedulerQueueingHints", "SchedulerPopFromBackoffQ",
		"GenericWorkload", "GangScheduling", "NodeDeclaredFeatures", "PodLevelResources", "InPlacePodVerticalScaling",
		"MatchLabelKeysInPodAffinity", "DRAPartitionableDevices", "DRADeviceTaints", "DRAConsumableCapacity", "StorageCapacityScoring",
		"VolumeAttributesClass", "SidecarContainers"} {
		gates = append(gates, fmt.Sprintf("%s=%v", g, safeEnabled(g)))
	}
	fmt.Fprintf(w, "feature gates: %s\n", strings.Join(gates, " "))
}

func safeEnabled(name string) (v any) {
	defer func() {
		if recover() != nil {
			v = "unknown"
		}
	}()
	return utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(name))
}

func derefInt32(p *int32) any {
	if p == nil {
		return nil
	}
	return *p
}
