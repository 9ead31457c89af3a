package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

var testEnv *env

func TestMain(m *testing.M) {
	var err error
	if testEnv, err = newEnv(false); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

func TestWithScenario(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"s", map[string]int{"a": 1}, `{"scenario":"s","a":1}` + "\n"},
		{`q"<&>`, struct{}{}, `{"scenario":"q\"<&>"}` + "\n"},
		{"x", timingLine{Scenario: "kept"}, ""},
	} {
		got, err := withScenario(tc.name, tc.v)
		if err != nil {
			t.Fatal(err)
		}
		if tc.want == "" {
			if !bytes.HasPrefix(got, []byte(`{"scenario":"kept",`)) {
				t.Errorf("an object with its own scenario field was changed: %s", got)
			}
			continue
		}
		if string(got) != tc.want {
			t.Errorf("withScenario(%q) = %s, want %s", tc.name, got, tc.want)
		}
	}
	if _, err := withScenario("s", []int{1}); err == nil {
		t.Error("a non-object was accepted")
	}
}

// yamlToLine turns a YAML scenario into one JSON Lines input line with the given name.
func yamlToLine(t *testing.T, path, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		t.Fatal(err)
	}
	m["name"] = name
	line, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return append(line, '\n')
}

func decodeLines(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("bad output line %s: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// singleOutput runs testdata/<name>.yaml as the oracle does without -batch
// (main: readScenario, then runScenario with the default options) and returns
// its output lines.
func singleOutput(t *testing.T, name string) []map[string]any {
	t.Helper()
	sc, err := testEnv.dec.readScenario("testdata/"+name+".yaml", (&options{}).decodeMode())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := scenarioContext(time.Minute)
	defer cancel()
	var out bytes.Buffer
	op := &options{crossCheck: true, timeout: time.Minute}
	if _, err := runScenario(ctx, testEnv, op, sc, func(v any) error {
		b, err := marshalLine(v)
		out.Write(b)
		return err
	}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return decodeLines(t, out.Bytes())
}

// TestBatch runs testdata scenarios, a broken line and a blank line in one batch:
// each scenario's lines must equal the single-scenario output of this same binary
// (same release) plus the "scenario" field, followed by its terminator; the broken
// line gets an error terminator and the batch goes on. The scenarios' goroutines
// must not pile up. (What a release's scheduler outputs on them: TestRecorded.)
func TestBatch(t *testing.T) {
	names := []string{"d-preemption", "f-system-default-spread", "b-hostname-anti-affinity"}
	var in bytes.Buffer
	in.Write(yamlToLine(t, "testdata/d-preemption.yaml", names[0]))
	in.WriteString("\n{not json\n")
	in.Write(yamlToLine(t, "testdata/f-system-default-spread.yaml", names[1]))
	in.WriteString(`{"name":"bad-object","objects":[{"apiVersion":"v1","kind":"Nope"}],"schedule":[]}` + "\n")
	in.Write(yamlToLine(t, "testdata/b-hostname-anti-affinity.yaml", names[2]))

	singles := map[string][]map[string]any{}
	for _, name := range names {
		singles[name] = singleOutput(t, name)
	}

	before := runtime.NumGoroutine()
	var out bytes.Buffer
	op := &options{crossCheck: true, timeout: time.Minute}
	if err := runBatch(testEnv, op, &in, &out); err != nil {
		t.Fatal(err)
	}
	lines := decodeLines(t, out.Bytes())

	i := 0
	next := func() map[string]any {
		if i >= len(lines) {
			t.Fatalf("output ends after %d lines", i)
		}
		i++
		return lines[i-1]
	}
	checkScenario := func(name string) {
		want := singles[name]
		if len(want) == 0 {
			t.Fatalf("%s: no single-scenario output", name)
		}
		for _, w := range want {
			got := next()
			if got["scenario"] != name {
				t.Fatalf("line %d: scenario %v, want %s", i, got["scenario"], name)
			}
			delete(got, "scenario")
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%s: line %d differs from the recorded single-scenario output:\n got %v\nwant %v", name, i, got, w)
			}
		}
		end := next()
		wantEnd := map[string]any{"scenario": name, "end": true, "pods": float64(len(want)), "error": nil}
		if !reflect.DeepEqual(end, wantEnd) {
			t.Errorf("terminator %v, want %v", end, wantEnd)
		}
	}
	checkError := func(name, contains string) {
		end := next()
		msg, _ := end["error"].(string)
		if end["scenario"] != name || end["end"] != true || end["pods"] != float64(0) || !strings.Contains(msg, contains) {
			t.Errorf("terminator %v, want scenario %s with an error containing %q", end, name, contains)
		}
	}
	checkScenario(names[0])
	checkError("#3", "parsing scenario") // line 2 is blank
	checkScenario(names[1])
	checkError("bad-object", "Nope")
	checkScenario(names[2])
	if i != len(lines) {
		t.Errorf("%d extra lines", len(lines)-i)
	}

	// Every scenario's informers and scheduler stop with its context.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+5 {
		t.Errorf("%d goroutines after the batch, %d before", n, before)
	}
}

// TestRecorded compares the single-scenario output on every testdata/*.yaml with
// the recording of this binary's release, testdata/recorded/v1.NN/<name>.out.jsonl.
// The recordings are the output of that release's oracle binary (the real
// kube-scheduler of that release), written by `./record.sh 1.NN`, never by hand.
func TestRecorded(t *testing.T) {
	dir := filepath.Join("testdata", "recorded", kubeMinor())
	files, _ := filepath.Glob("testdata/*.yaml")
	if len(files) == 0 {
		t.Fatal("no testdata scenarios")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		rec := filepath.Join(dir, name+".out.jsonl")
		if _, err := os.Stat(rec); err != nil {
			t.Errorf("%s: no recording for %s (run ./record.sh %s): %v", name, kubeRelease, strings.TrimPrefix(kubeMinor(), "v"), err)
			continue
		}
		want := decodeLines(t, mustRead(t, rec))
		got := singleOutput(t, name)
		if len(got) != len(want) {
			t.Errorf("%s: %d lines, recording %s has %d", name, len(got), rec, len(want))
			continue
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%s: line %d differs from %s:\n got %v\nwant %v", name, i+1, rec, got[i], want[i])
			}
		}
	}
}

// kubeMinor is "v1.NN" of kubeRelease ("v1.NN.P").
func kubeMinor() string {
	parts := strings.SplitN(kubeRelease, ".", 3)
	return parts[0] + "." + parts[1]
}

// readTable decodes a ported upstream table (tests/upstream/<plugin>/<Test>.yaml) into fx.
func readTable(t *testing.T, file string, fx any) {
	t.Helper()
	data, err := yaml.YAMLToJSON(mustRead(t, file))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if err := json.Unmarshal(data, fx); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// timingScenario writes the shape of crates/conformance/src/synthetic.rs at a
// small size (nodes node-00000.. over 3 zones, pods <shape>-00000..) and reads it.
func timingScenario(t *testing.T, shape string, nodes, pods int) *scenario {
	t.Helper()
	var b strings.Builder
	b.WriteString("name: timing\nobjects:\n")
	for i := 0; i < nodes; i++ {
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Node
  metadata:
    name: node-%05d
    labels: {kubernetes.io/hostname: node-%05d, topology.kubernetes.io/zone: zone-%d}
  status:
    capacity: {cpu: "32", memory: 128Gi, pods: "110"}
    allocatable: {cpu: "32", memory: 128Gi, pods: "110"}
`, i, i, i%3)
	}
	b.WriteString("schedule:\n")
	for i := 0; i < pods; i++ {
		constraint := `topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: spread}}}]`
		if shape == "anti" {
			constraint = `affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchExpressions: [{key: app, operator: In, values: [anti]}]}, topologyKey: kubernetes.io/hostname}]}}`
		}
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Pod
  metadata: {name: %s-%05d, namespace: default, labels: {app: %s}}
  spec:
    containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 100m, memory: 128Mi}}}]
    %s
`, shape, i, shape, constraint)
	}
	path := filepath.Join(t.TempDir(), "timing.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := testEnv.dec.readScenario(path, modeAPI)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestTiming checks that -time schedules every pod: 6 spread pods on 6 nodes in
// 3 zones (2 a zone), and 6 anti-affinity pods (one a node), with both deciders.
func TestTiming(t *testing.T) {
	sc := timingScenario(t, "spread", 6, 6)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o, err := newOracle(ctx, testEnv, sc)
	if err != nil {
		t.Fatal(err)
	}
	zones := map[string]int{}
	for _, p := range sc.Schedule {
		res := o.schedule(ctx, p)
		if res.Node == nil || res.Error != "" {
			t.Fatalf("%s: not scheduled: %+v", res.Pod, res)
		}
		ni, _ := o.snapshot.Get(*res.Node)
		zones[ni.Node().Labels["topology.kubernetes.io/zone"]]++
	}
	if !reflect.DeepEqual(zones, map[string]int{"zone-0": 2, "zone-1": 2, "zone-2": 2}) {
		t.Errorf("pods per zone %v", zones)
	}

	for _, shape := range []string{"spread", "anti"} {
		for _, viaSchedulePod := range []bool{false, true} {
			sc := timingScenario(t, shape, 6, 6)
			var got []any
			op := &options{viaSchedulePod: viaSchedulePod}
			n, err := runTiming(ctx, testEnv, op, sc, func(v any) error { got = append(got, v); return nil })
			if err != nil || n != 6 || len(got) != 1 {
				t.Fatalf("%s: runTiming = %d, %v, %v", shape, n, err, got)
			}
			line := got[0].(timingLine)
			if line.Pods != 6 || line.Nodes != 6 || line.Scheduled != 6 || line.Errors != 0 || line.PodsPerSecond <= 0 ||
				(line.Decider == "SchedulePod") != viaSchedulePod {
				t.Errorf("%s: %+v", shape, line)
			}
		}
	}
	// The 7th anti pod has no node left: the oracle's path reports it unschedulable.
	sc = timingScenario(t, "anti", 6, 7)
	var got []any
	if _, err := runTiming(ctx, testEnv, &options{viaSchedulePod: true}, sc, func(v any) error { got = append(got, v); return nil }); err != nil {
		t.Fatal(err)
	}
	if line := got[0].(timingLine); line.Scheduled != 6 || line.Errors != 0 {
		t.Errorf("anti 6/7: %+v", line)
	}
}

// pluginCase runs one single-plugin scenario given as YAML and returns the
// results as generic JSON.
func pluginCase(t *testing.T, plugin, scenarioYAML string) ([]map[string]any, error) {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(scenarioYAML))
	if err != nil {
		t.Fatal(err)
	}
	var raw rawScenario
	if err := json.Unmarshal(j, &raw); err != nil {
		t.Fatal(err)
	}
	sc, err := testEnv.dec.build(&raw, modePlugin)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	_, err = runPlugin(ctx, testEnv, &options{plugin: plugin}, sc, func(v any) error {
		b, err := marshalLine(v)
		out.Write(b)
		return err
	})
	if err != nil {
		return nil, err
	}
	return decodeLines(t, out.Bytes()), nil
}

const twoZones = `
objects:
  - {apiVersion: v1, kind: Node, metadata: {name: node-a, labels: {zone: zone1, kubernetes.io/hostname: node-a}}, status: {capacity: {pods: "32"}, allocatable: {pods: "32"}}}
  - {apiVersion: v1, kind: Node, metadata: {name: node-b, labels: {zone: zone1, kubernetes.io/hostname: node-b}}, status: {capacity: {pods: "32"}, allocatable: {pods: "32"}}}
  - {apiVersion: v1, kind: Node, metadata: {name: node-x, labels: {zone: zone2, kubernetes.io/hostname: node-x}}, status: {capacity: {pods: "32"}, allocatable: {pods: "32"}}}
  - {apiVersion: v1, kind: Pod, metadata: {name: p-a1, labels: {foo: ""}}, spec: {nodeName: node-a}}
  - {apiVersion: v1, kind: Pod, metadata: {name: p-b1, labels: {foo: ""}}, spec: {nodeName: node-b}}
`

// TestPluginMode: PodTopologySpread alone, from upstream TestSingleConstraint
// ("pod is required to spread evenly among 2 zones, existing pods are on zone1")
// and a PreFilter Skip, a score with candidates, and args with a v1 field name.
func TestPluginMode(t *testing.T) {
	got, err := pluginCase(t, "PodTopologySpread", twoZones+`
args: {defaultingType: List}
candidates: [node-a, node-x]
schedule:
  - apiVersion: v1
    kind: Pod
    metadata: {name: hard, labels: {foo: ""}}
    spec:
      topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchExpressions: [{key: foo, operator: Exists}]}}
  - {apiVersion: v1, kind: Pod, metadata: {name: none, labels: {foo: ""}}}
  - apiVersion: v1
    kind: Pod
    metadata: {name: soft, labels: {foo: ""}}
    spec:
      topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchExpressions: [{key: foo, operator: Exists}]}}
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d lines", len(got))
	}
	hard, none, soft := got[0], got[1], got[2]
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	if want := `{"code":"Success","plugin":"","reasons":[]}`; js(hard["preFilter"]) != want {
		t.Errorf("hard preFilter %s", js(hard["preFilter"]))
	}
	unsched := `{"code":"Unschedulable","reasons":["node(s) didn't match pod topology spread constraints"]}`
	if want := `{"node-a":` + unsched + `,"node-b":` + unsched + `,"node-x":{"code":"Success","reasons":[]}}`; js(hard["filter"]) != want {
		t.Errorf("hard filter %s", js(hard["filter"]))
	}
	if js(hard["preScore"]) != `{"code":"Skip","message":""}` || hard["scores"] != nil {
		t.Errorf("hard: preScore %s, scores %s", js(hard["preScore"]), js(hard["scores"]))
	}
	if js(none["preFilter"]) != `{"code":"Skip","plugin":"PodTopologySpread","reasons":[]}` || none["filter"] != nil {
		t.Errorf("none: preFilter %s, filter %s", js(none["preFilter"]), js(none["filter"]))
	}
	// Candidates node-a (1 matching pod in zone1... counted over the candidates'
	// zones) and node-x (0): the emptier zone scores higher.
	sc, _ := soft["scores"].(map[string]any)
	if len(sc) != 2 || !(sc["node-x"].(float64) > sc["node-a"].(float64)) {
		t.Errorf("soft scores %s", js(soft["scores"]))
	}

	// Unknown plugin, bad args: the scenario cannot be run.
	if _, err := pluginCase(t, "NoSuchPlugin", twoZones); err == nil || !strings.Contains(err.Error(), "NoSuchPlugin") {
		t.Errorf("unknown plugin: %v", err)
	}
	if _, err := pluginCase(t, "PodTopologySpread", twoZones+"args: {defaultingType: Nope}\n"); err == nil {
		t.Error("invalid args accepted")
	}
	// The scenario's "plugin" field overrides -plugin; weights and args go through v1 decoding.
	got, err = pluginCase(t, "PodTopologySpread", twoZones+`
plugin: NodeName
schedule:
  - {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {nodeName: node-b}}
`)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := got[0]["filter"].(map[string]any)
	if js(f["node-b"]) != `{"code":"Success","reasons":[]}` || js(f["node-a"]) != `{"code":"UnschedulableAndUnresolvable","reasons":["node(s) didn't match the requested node name"]}` {
		t.Errorf("NodeName filter %s", js(f))
	}
}

// TestUpstreamFixtures runs every case of tests/upstream through single-plugin
// mode and compares with the expectations ported from upstream. It depends on
// files maintained elsewhere, so it only runs with ORACLE_UPSTREAM=1.
func TestUpstreamFixtures(t *testing.T) {
	if os.Getenv("ORACLE_UPSTREAM") == "" {
		t.Skip("set ORACLE_UPSTREAM=1 to check tests/upstream against the real plugins")
	}
	files := upstreamTables(t, "*/*.yaml")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	checked, skipped := 0, 0
	defer func() { t.Logf("%d files, %d cases checked, %d skipped", len(files), checked, skipped) }()
	for _, file := range files {
		var fx struct {
			Plugin string           `json:"plugin"`
			Skip   any              `json:"skip"`
			Cases  []map[string]any `json:"cases"`
		}
		readTable(t, file, &fx)
		if filepath.Base(filepath.Dir(file)) == "defaultpreemption" {
			continue // preemption tables: TestPreemptionTables
		}
		if fileSkip(t, file, fx.Skip) {
			skipped += len(fx.Cases)
			continue
		}
		for _, c := range fx.Cases {
			name := tableName(file) + "/" + c["name"].(string)
			if c["skip"] != nil {
				if strings.HasPrefix(tableName(file), "v1.") {
					t.Logf("SKIP %s on %s: %v", name, kubeRelease, c["skip"])
				}
				skipped++
				continue
			}
			checked++
			sc := map[string]any{"objects": c["objects"], "schedule": []any{c["pod"]}, "args": c["args"], "candidates": c["candidates"]}
			scYAML, _ := json.Marshal(sc)
			got, err := pluginCase(t, fx.Plugin, string(scYAML))
			expect, _ := c["expect"].(map[string]any)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			g := got[0]
			pf, _ := g["preFilter"].(map[string]any)
			if want, ok := expect["preFilter"].(map[string]any); ok {
				for k, v := range want {
					if js(pf[k]) != js(v) {
						t.Errorf("%s: preFilter.%s = %s, upstream %s", name, k, js(pf[k]), js(v))
					}
				}
			}
			if want, ok := expect["filter"].(map[string]any); ok {
				f, _ := g["filter"].(map[string]any)
				if pf["code"] == "Skip" {
					// Upstream either called Filter anyway or lists what a skipped plugin means (Success).
					f, _ = g["filterAfterSkip"].(map[string]any)
				}
				for node, w := range want {
					gotNode, _ := f[node].(map[string]any)
					for k, v := range w.(map[string]any) {
						if js(gotNode[k]) != js(v) && !(pf["code"] == "Skip" && k == "code" && v == "Success") {
							t.Errorf("%s: filter[%s].%s = %s, upstream %s", name, node, k, js(gotNode[k]), js(v))
						}
					}
				}
			}
			ps, _ := g["preScore"].(map[string]any)
			if want, ok := expect["preScore"].(map[string]any); ok {
				for k, v := range want {
					if k == "message" && strings.Contains(js(ps[k]), strings.Trim(js(v), `"`)) {
						continue // upstream asserts a substring
					}
					if js(ps[k]) != js(v) {
						t.Errorf("%s: preScore.%s = %s, upstream %s", name, k, js(ps[k]), js(v))
					}
				}
			}
			if ps["code"] == "Skip" && expect["preScore"] == nil {
				g["scores"] = g["scoresAfterSkip"] // upstream ran Score without PreScore
			}
			if want, ok := expect["scores"]; ok && js(g["scores"]) != js(want) {
				t.Errorf("%s: scores = %s, upstream %s (scoreError %s)", name, js(g["scores"]), js(want), js(g["scoreError"]))
			}
		}
	}
}
