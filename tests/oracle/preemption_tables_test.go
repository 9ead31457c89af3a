package main

// TestPreemptionTables runs tests/upstream/defaultpreemption/*.yaml (ported from upstream's
// defaultpreemption/default_preemption_test.go) through the real DefaultPreemption plugin, built
// as upstream's test builds it: a framework with the case's plugins at Filter and PreFilter, the
// case's nodes, pods and PDBs. It checks that the tables say what the real plugin does. Like
// TestUpstreamFixtures it only runs with ORACLE_UPSTREAM=1.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	kubeschedulerconfigv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	configv1 "k8s.io/kubernetes/pkg/scheduler/apis/config/v1"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/interpodaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/podtopologyspread"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/tainttoleration"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

type preemptionCase struct {
	Name                string            `json:"name"`
	Skip                string            `json:"skip"`
	Plugins             []string          `json:"plugins"`
	Args                map[string]int32  `json:"args"`
	Offset              *int32            `json:"offset"`
	NodeStatuses        map[string]string `json:"nodeStatuses"`
	NominatedNodeStatus string            `json:"nominatedNodeStatus"`
	Objects             []json.RawMessage `json:"objects"`
	Pod                 v1.Pod            `json:"pod"`
	Expect              struct {
		BestNode   []string       `json:"bestNode"`
		Candidates *[]any         `json:"candidates"`
		PostFilter map[string]any `json:"postFilter"`
		Preempt    map[string]any `json:"preempt"`
		Eligible   *bool          `json:"eligible"`
	} `json:"expect"`
}

var preemptionFactories = map[string]frameworkruntime.PluginFactory{
	noderesources.Name:     frameworkruntime.FactoryAdapter(feature.Features{}, noderesources.NewFit),
	podtopologyspread.Name: frameworkruntime.FactoryAdapter(feature.Features{}, podtopologyspread.New),
	interpodaffinity.Name:  frameworkruntime.FactoryAdapter(feature.Features{}, interpodaffinity.New),
	tainttoleration.Name:   frameworkruntime.FactoryAdapter(feature.Features{}, tainttoleration.New),
}

type noopActivator struct{}

func (noopActivator) Activate(klog.Logger, map[string]*v1.Pod) {}

func TestPreemptionTables(t *testing.T) {
	if os.Getenv("ORACLE_UPSTREAM") == "" {
		t.Skip("set ORACLE_UPSTREAM=1 to check tests/upstream/defaultpreemption against the real plugin")
	}
	metrics.Register()
	files := upstreamTables(t, "defaultpreemption/*.yaml")
	if len(files) == 0 {
		t.Fatal("no preemption tables")
	}
	for _, file := range files {
		var fx struct {
			Skip  any              `json:"skip"`
			Cases []preemptionCase `json:"cases"`
		}
		readTable(t, file, &fx)
		if fileSkip(t, file, fx.Skip) {
			continue
		}
		for _, c := range fx.Cases {
			// A KNOWN MISMATCH is the engine's: the real plugin must still do what the table says.
			if c.Skip != "" && !strings.HasPrefix(c.Skip, "KNOWN MISMATCH") {
				if strings.HasPrefix(tableName(file), "v1.") {
					t.Logf("SKIP %s/%s on %s: %s", tableName(file), c.Name, kubeRelease, c.Skip)
				}
				continue
			}
			t.Run(tableName(file)+"/"+c.Name, func(t *testing.T) { runPreemptionCase(t, c) })
		}
	}
}

func runPreemptionCase(t *testing.T, c preemptionCase) {
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	var nodes []*v1.Node
	var pods []*v1.Pod
	var pdbs []*policy.PodDisruptionBudget
	if c.Pod.UID == "" {
		c.Pod.UID = types.UID(c.Pod.Name)
	}
	objs := []runtime.Object{c.Pod.DeepCopy()}
	for _, raw := range c.Objects {
		var meta struct{ Kind string }
		_ = json.Unmarshal(raw, &meta)
		switch meta.Kind {
		case "Node":
			n := &v1.Node{}
			if err := json.Unmarshal(raw, n); err != nil {
				t.Fatal(err)
			}
			nodes = append(nodes, n)
			objs = append(objs, n)
		case "Pod":
			p := &v1.Pod{}
			if err := json.Unmarshal(raw, p); err != nil {
				t.Fatal(err)
			}
			if p.UID == "" {
				p.UID = types.UID(p.Name) // upstream's .UID(name)
			}
			pods = append(pods, p)
			objs = append(objs, p)
		case "PodDisruptionBudget":
			p := &policy.PodDisruptionBudget{}
			if err := json.Unmarshal(raw, p); err != nil {
				t.Fatal(err)
			}
			if p.Name == "" {
				p.Name = fmt.Sprintf("pdb-%d", len(pdbs))
			}
			pdbs = append(pdbs, p)
			objs = append(objs, p)
		default:
			t.Fatalf("kind %q", meta.Kind)
		}
	}
	pod := c.Pod.DeepCopy()

	cs := clientsetfake.NewClientset(objs...)
	var mu sync.Mutex
	deleted := []string{}
	cs.PrependReactor("patch", "pods", func(clienttesting.Action) (bool, runtime.Object, error) { return true, nil, nil })
	cs.PrependReactor("delete", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		deleted = append(deleted, action.(clienttesting.DeleteAction).GetName())
		return true, nil, nil
	})
	informerFactory := informers.NewSharedInformerFactory(cs, 0)
	registered := []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
	}
	for _, name := range c.Plugins {
		factory, ok := preemptionFactories[name]
		if !ok {
			t.Fatalf("plugin %s", name)
		}
		registered = append(registered, tf.RegisterPluginAsExtensions(name, factory, "Filter", "PreFilter"))
	}
	logger, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	snapshot := internalcache.NewSnapshot(pods, nodes)
	f, err := tf.NewFramework(ctx, registered, "", append([]frameworkruntime.Option{
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithEventRecorder(&events.FakeRecorder{}),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithPodNominator(internalqueue.NewSchedulingQueue(nil, informerFactory)),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithParallelism(1),
		frameworkruntime.WithLogger(logger),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodActivator(noopActivator{}),
	}, preemptionFrameworkOptions(snapshot)...)...)
	if err != nil {
		t.Fatal(err)
	}
	v1args := &kubeschedulerconfigv1.DefaultPreemptionArgs{}
	configv1.SetDefaults_DefaultPreemptionArgs(v1args)
	args := &config.DefaultPreemptionArgs{}
	if err := configv1.Convert_v1_DefaultPreemptionArgs_To_config_DefaultPreemptionArgs(v1args, args, nil); err != nil {
		t.Fatal(err)
	}
	if v, ok := c.Args["minCandidateNodesPercentage"]; ok {
		args.MinCandidateNodesPercentage = v
	}
	if v, ok := c.Args["minCandidateNodesAbsolute"]; ok {
		args.MinCandidateNodesAbsolute = v
	}
	pl, err := defaultpreemption.New(ctx, args, f, feature.Features{})
	if err != nil {
		t.Fatal(err)
	}
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())

	state := framework.NewCycleState()
	if _, status, _ := f.RunPreFilterPlugins(ctx, state, pod); !status.IsSuccess() {
		t.Errorf("PreFilter: %v", status)
	}
	nodeInfos, err := f.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(nodeInfos, func(i, j int) bool { return nodeInfos[i].Node().Name < nodeInfos[j].Node().Name })
	dryRun := func() []map[string]any {
		offset, num := pl.GetOffsetAndNumCandidates(int32(len(nodeInfos)))
		if c.Offset != nil {
			offset = *c.Offset
		}
		got, statuses, err := pl.Evaluator.DryRunPreemption(ctx, state, pod, nodeInfos, pdbs, offset, num)
		if err != nil {
			t.Errorf("DryRunPreemption: %v", err)
		}
		if len(got) == 0 {
			statuses.ForEachExplicitNode(func(name string, s *fwk.Status) { t.Logf("dry run %s: %v", name, s) })
		}
		out := []map[string]any{}
		for _, cand := range got {
			victims := []string{}
			for _, v := range cand.Victims().Pods {
				victims = append(victims, v.Name)
			}
			sort.Strings(victims)
			out = append(out, map[string]any{"node": cand.Name(), "victims": victims, "numPDBViolations": cand.Victims().NumPDBViolations})
		}
		sort.Slice(out, func(i, j int) bool { return out[i]["node"].(string) < out[j]["node"].(string) })
		if len(got) > 0 {
			if best := pl.Evaluator.SelectCandidate(ctx, got); best != nil && len(c.Expect.BestNode) > 0 {
				found := false
				for _, n := range c.Expect.BestNode {
					found = found || n == best.Name()
				}
				if !found {
					t.Errorf("best node %s, table accepts %v", best.Name(), c.Expect.BestNode)
				}
			}
		}
		return out
	}
	if c.Expect.BestNode != nil {
		if len(dryRun()) == 0 {
			t.Errorf("no candidate, table accepts %v", c.Expect.BestNode)
		}
	}
	if c.Expect.Candidates != nil {
		got := dryRun()
		var gotAny, want any
		_ = json.Unmarshal([]byte(js(got)), &gotAny)
		_ = json.Unmarshal([]byte(js(*c.Expect.Candidates)), &want)
		if !reflect.DeepEqual(gotAny, want) {
			t.Errorf("candidates %s, table %s", js(got), js(want))
		}
	}
	if c.Expect.Eligible != nil {
		var status *fwk.Status
		if c.NominatedNodeStatus != "" {
			status = fwk.NewStatus(codeOf(c.NominatedNodeStatus))
		}
		if got, _ := pl.PodEligibleToPreemptOthers(ctx, pod, status); got != *c.Expect.Eligible {
			t.Errorf("eligible %v, table %v", got, *c.Expect.Eligible)
		}
	}
	for key, want := range map[string]map[string]any{"postFilter": c.Expect.PostFilter, "preempt": c.Expect.Preempt} {
		if want == nil {
			continue
		}
		m := framework.NewDefaultNodeToStatus()
		for _, n := range nodes {
			if c.NodeStatuses == nil {
				m.Set(n.Name, fwk.NewStatus(fwk.Unschedulable))
			} else if code, ok := c.NodeStatuses[n.Name]; ok {
				m.Set(n.Name, fwk.NewStatus(codeOf(code)))
			}
		}
		mu.Lock()
		deleted = deleted[:0]
		mu.Unlock()
		res, status := pl.PostFilter(ctx, state, pod, m)
		var nominated any
		if res != nil && res.NominatingInfo != nil {
			nominated = res.NominatedNodeName
		}
		got := map[string]any{"nominatedNode": nominated, "code": status.Code().String(), "message": status.Message()}
		mu.Lock()
		victims := append([]string{}, deleted...)
		mu.Unlock()
		sort.Strings(victims)
		got["victims"] = victims
		for k, v := range want {
			if js(got[k]) != js(v) && !(k == "victims" && js(v) == "[]" && len(victims) == 0) {
				t.Errorf("%s.%s = %s, table %s", key, k, js(got[k]), js(v))
			}
		}
	}
}

func codeOf(name string) fwk.Code {
	for code := fwk.Success; code <= fwk.Pending; code++ {
		if code.String() == name {
			return code
		}
	}
	panic("unknown code " + name)
}
