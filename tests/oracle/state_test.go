package main

// TestUpstreamStateSteps checks the `steps` of tests/upstream tables (PreFilter,
// then AddPod / RemovePod of the PreFilter extensions, then the state; format in
// tests/upstream/README.md) against the real plugins, built as single-plugin mode
// builds them. The plugins' state types are internal to their packages
// (podtopologyspread.preFilterState, interpodaffinity.preFilterState): the state
// is read from the CycleState under the plugin's key and walked with reflect,
// whose kind getters (String, Int, Len, Index, MapRange) read unexported fields
// and types; nothing is written through reflect.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// counts is a count map as the tables write it: topology key, value, count.
type counts map[string]map[string]int64

// stateRun is one plugin with its PreFilter state for one pod.
type stateRun struct {
	pr    *pluginRunner
	pod   *v1.Pod
	steps []*v1.Pod // the steps' pods, decoded like the scenario's pods
	state fwk.CycleState
}

// newStateRun decodes objects, the incoming pod and the steps' pods as
// single-plugin mode does, builds the plugin and runs its PreFilter.
func newStateRun(ctx context.Context, plugin string, objects []any, pod any, stepPods []any, args any) (*stateRun, error) {
	raw := map[string]any{"objects": objects, "schedule": append([]any{pod}, stepPods...), "args": args}
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var rs rawScenario
	if err := json.Unmarshal(data, &rs); err != nil {
		return nil, err
	}
	sc, err := testEnv.dec.build(&rs, modePlugin)
	if err != nil {
		return nil, err
	}
	pr, err := newPluginRunner(ctx, plugin, sc)
	if err != nil {
		return nil, err
	}
	pl, ok := pr.plugin.(fwPreFilterPlugin)
	if !ok {
		return nil, fmt.Errorf("%s has no PreFilter", plugin)
	}
	run := &stateRun{pr: pr, pod: sc.Schedule[0], steps: sc.Schedule[1:], state: framework.NewCycleState()}
	// Upstream's state tests fail the case unless PreFilter succeeds.
	if _, st := pl.PreFilter(ctx, run.state, run.pod, pr.nodes); !st.IsSuccess() {
		return nil, fmt.Errorf("PreFilter: %v", st.AsError())
	}
	return run, nil
}

// step calls AddPod (delta 1) or RemovePod (-1) with step pod i and the NodeInfo of node.
func (r *stateRun) step(ctx context.Context, i int, node string, delta int) error {
	ext := r.pr.plugin.(fwPreFilterPlugin).PreFilterExtensions()
	if ext == nil {
		return fmt.Errorf("no PreFilter extensions")
	}
	ni, err := r.pr.snapshot.Get(node)
	if err != nil || ni.Node() == nil {
		return fmt.Errorf("no node %q", node)
	}
	pi, err := framework.NewPodInfo(r.steps[i])
	if err != nil {
		return err
	}
	var st *fwk.Status
	if delta > 0 {
		st = ext.AddPod(ctx, r.state, r.pod, pi, ni)
	} else {
		st = ext.RemovePod(ctx, r.state, r.pod, pi, ni)
	}
	return st.AsError()
}

// stateValue is the plugin's stored state (a pointer to its preFilterState), dereferenced.
func (r *stateRun) stateValue() (reflect.Value, error) {
	data, err := r.state.Read(fwk.StateKey("PreFilter" + r.pr.name))
	if err != nil {
		return reflect.Value{}, err
	}
	return reflect.ValueOf(data).Elem(), nil
}

// spreadState is PodTopologySpread's state in the tables' shape: one entry per
// constraint with topologyKey, maxSkew, minDomains, domains and criticalPaths
// (sorted as upstream's stateCmpOpts sort ties).
func spreadState(s reflect.Value) []map[string]any {
	var out []map[string]any
	cs, paths, match := s.FieldByName("Constraints"), s.FieldByName("CriticalPaths"), s.FieldByName("TpValueToMatchNum")
	for i := 0; i < cs.Len(); i++ {
		c := cs.Index(i)
		domains := map[string]any{}
		iter := match.Index(i).MapRange()
		for iter.Next() {
			domains[iter.Key().String()] = iter.Value().Int()
		}
		p := paths.Index(i).Elem()
		pair := func(j int) []any { return []any{p.Index(j).Field(0).String(), p.Index(j).Field(1).Int()} }
		out = append(out, map[string]any{
			"topologyKey":   c.FieldByName("TopologyKey").String(),
			"maxSkew":       c.FieldByName("MaxSkew").Int(),
			"minDomains":    c.FieldByName("MinDomains").Int(),
			"domains":       domains,
			"criticalPaths": sortPaths([][]any{pair(0), pair(1)}),
		})
	}
	return out
}

// sortPaths is upstream's criticalPaths.sort: equal counts, values in alphabetical order.
func sortPaths(p [][]any) [][]any {
	if js(p[0][1]) == js(p[1][1]) && fmt.Sprint(p[0][0]) > fmt.Sprint(p[1][0]) {
		p[0][0], p[1][0] = p[1][0], p[0][0]
	}
	return p
}

// affinityState is InterPodAffinity's three count maps, by upstream field name.
func affinityState(s reflect.Value) map[string]counts {
	out := map[string]counts{}
	for _, field := range []string{"existingAntiAffinityCounts", "affinityCounts", "antiAffinityCounts"} {
		m := counts{}
		goField := field
		if f, ok := interPodAffinityStateFields[field]; ok {
			goField = f
		}
		iter := s.FieldByName(goField).MapRange()
		for iter.Next() {
			key, value := iter.Key().Field(0).String(), iter.Key().Field(1).String()
			if m[key] == nil {
				m[key] = map[string]int64{}
			}
			m[key][value] = iter.Value().Int()
		}
		out[field] = m
	}
	return out
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

// objectKey identifies a pod of a table (namespace, name) as the Rust runner does.
func objectKey(o any) string {
	m, _ := o.(map[string]any)
	md, _ := m["metadata"].(map[string]any)
	return js([]any{md["namespace"], md["name"]})
}

func TestUpstreamStateSteps(t *testing.T) {
	if os.Getenv("ORACLE_UPSTREAM") == "" {
		t.Skip("set ORACLE_UPSTREAM=1 to check the steps of tests/upstream against the real plugins")
	}
	files := upstreamTables(t, "*/*.yaml")
	checked, skipped := 0, 0
	defer func() { t.Logf("%d cases with steps checked, %d skipped", checked, skipped) }()
	for _, file := range files {
		var fx struct {
			Plugin string           `json:"plugin"`
			Skip   any              `json:"skip"`
			Cases  []map[string]any `json:"cases"`
		}
		readTable(t, file, &fx)
		if fileSkip(t, file, fx.Skip) {
			continue
		}
		for i, c := range fx.Cases {
			steps, _ := c["steps"].([]any)
			if len(steps) == 0 {
				continue
			}
			name := fmt.Sprintf("%s/%d %s", tableName(file), i, c["name"])
			if c["skip"] != nil {
				skipped++
				continue
			}
			checked++
			for _, problem := range checkStateCase(fx.Plugin, c, steps) {
				t.Errorf("%s: %s", name, problem)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no case with steps")
	}
}

// checkStateCase runs one case's steps and returns every mismatch.
func checkStateCase(plugin string, c map[string]any, steps []any) (problems []string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	objects, _ := c["objects"].([]any)
	var stepPods []any
	for _, s := range steps {
		for _, op := range []string{"addPod", "removePod"} {
			if o, ok := s.(map[string]any)[op].(map[string]any); ok {
				stepPods = append(stepPods, o["pod"])
			}
		}
	}
	if len(stepPods) != len(steps) {
		return []string{"a step without addPod or removePod"}
	}
	run, err := newStateRun(ctx, plugin, objects, c["pod"], stepPods, c["args"])
	if err != nil {
		return []string{err.Error()}
	}
	cluster := append([]any{}, objects...) // the objects as the steps leave them
	for i, s := range steps {
		sm := s.(map[string]any)
		op, delta := "addPod", 1
		if _, ok := sm["removePod"]; ok {
			op, delta = "removePod", -1
		}
		what := fmt.Sprintf("step %d (%s)", i, op)
		node, _ := sm[op].(map[string]any)["node"].(string)
		if err := run.step(ctx, i, node, delta); err != nil {
			return append(problems, fmt.Sprintf("%s: %v", what, err))
		}
		if delta > 0 {
			cluster = append(cluster, stepPods[i])
		} else {
			kept := cluster[:0:0]
			for _, o := range cluster {
				if o.(map[string]any)["kind"] != "Pod" || objectKey(o) != objectKey(stepPods[i]) {
					kept = append(kept, o)
				}
			}
			cluster = kept
		}
		sv, err := run.stateValue()
		if err != nil {
			return append(problems, fmt.Sprintf("%s: %v", what, err))
		}
		expect, _ := sm["expect"].(map[string]any)
		if want, ok := expect["preFilterState"].([]any); ok {
			got := spreadState(sv)
			for _, w := range want {
				w := w.(map[string]any)
				w["criticalPaths"] = sortPaths(toPaths(w["criticalPaths"]))
			}
			if js(got) != js(want) {
				problems = append(problems, fmt.Sprintf("%s: preFilterState = %s, upstream %s", what, js(got), js(want)))
			}
		}
		if want, ok := expect["interPodAffinityState"].(map[string]any); ok {
			got := affinityState(sv)
			for _, field := range sortedKeys(want) {
				if js(got[field]) != js(want[field]) {
					problems = append(problems, fmt.Sprintf("%s: %s = %s, table %s", what, field, js(got[field]), js(want[field])))
				}
			}
		}
		if expect["equalsFreshPreFilter"] == true {
			fresh, err := newStateRun(ctx, plugin, cluster, c["pod"], nil, c["args"])
			if err != nil {
				return append(problems, fmt.Sprintf("%s: fresh PreFilter: %v", what, err))
			}
			fv, err := fresh.stateValue()
			if err != nil {
				return append(problems, fmt.Sprintf("%s: fresh PreFilter: %v", what, err))
			}
			if plugin != "InterPodAffinity" {
				return append(problems, what+": equalsFreshPreFilter is for InterPodAffinity")
			}
			if got, want := affinityState(sv), affinityState(fv); js(got) != js(want) {
				problems = append(problems, fmt.Sprintf("%s: state %s, fresh PreFilter %s", what, js(got), js(want)))
			}
		}
	}
	return problems
}

// toPaths reads a table's criticalPaths ([[value, count], [value, count]]).
func toPaths(v any) [][]any {
	var out [][]any
	for _, p := range v.([]any) {
		pair := p.([]any)
		out = append(out, []any{pair[0], int64(pair[1].(float64))})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
