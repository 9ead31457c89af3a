package main

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// timingLine is the only output of -time for a scenario.
type timingLine struct {
	Scenario      string  `json:"scenario"`
	Pods          int     `json:"pods"`
	Nodes         int     `json:"nodes"`
	Seconds       float64 `json:"seconds"`
	PodsPerSecond float64 `json:"podsPerSecond"`
	Scheduled     int     `json:"scheduled"`    // pods bound
	Errors        int     `json:"errors"`       // pods whose result has "error"
	SetupSeconds  float64 `json:"setupSeconds"` // building the scheduler and syncing informers
	Decider       string  `json:"decider"`      // "oracle" (the step-by-step cycle) or "SchedulePod"
	CPUSeconds    float64 `json:"cpuSeconds"`   // process CPU time (user+system, all threads, GC included) during the loop
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// runTiming schedules the scenario's pods as the default mode does, without the
// cross-check and without building the per-pod report, and emits one timingLine.
// Only the loop over the pods is timed.
func runTiming(ctx context.Context, e *env, op *options, sc *scenario, emit func(any) error) (int, error) {
	setupStart := time.Now()
	o, err := newOracle(ctx, e, sc)
	if err != nil {
		return 0, fmt.Errorf("building the scheduler: %w", err)
	}
	o.crossCheckOn = false
	o.quiet = true
	o.viaSchedulePod = op.viaSchedulePod
	if op.dumpProfile {
		o.dumpProfile(os.Stderr)
	}
	setup := time.Since(setupStart)

	line := timingLine{Scenario: sc.Name, Pods: len(sc.Schedule), Nodes: len(sc.NodeOrder), SetupSeconds: setup.Seconds(), Decider: "oracle"}
	if o.viaSchedulePod {
		line.Decider = "SchedulePod"
	}
	start, cpuStart := time.Now(), cpuTime()
	for _, p := range sc.Schedule {
		res := o.schedule(ctx, p)
		switch {
		case res.Error != "":
			line.Errors++
		case res.Node != nil:
			line.Scheduled++
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	elapsed := time.Since(start)
	line.CPUSeconds = (cpuTime() - cpuStart).Seconds()
	line.Seconds = elapsed.Seconds()
	if elapsed > 0 {
		line.PodsPerSecond = float64(len(sc.Schedule)) / elapsed.Seconds()
	}
	return len(sc.Schedule), emit(line)
}

// synthetic builds the benchmark shapes of crates/bench (src/lib.rs): nodes
// node-00000.. round-robin over 3 zones (zone-0..2), labelled with hostname,
// zone and kubernetes.io/os=linux, allocatable 32 cpu, 128Gi, 110 pods; pods
// default/<shape>-00000.. labelled app=<shape>, one container "c" requesting
// 100m and 128Mi, with either a hard zone spread (maxSkew 1, selector app=spread)
// or required hostname anti-affinity (app In [anti]).
func (d *decoder) synthetic(shape string, nodes, pods int, mode decodeMode) (*scenario, error) {
	if shape != "spread" && shape != "anti" {
		return nil, fmt.Errorf("-synthetic: want spread or anti, got %q", shape)
	}
	if nodes <= 0 || pods < 0 {
		return nil, fmt.Errorf("-synthetic: need -nodes > 0 and -pods >= 0")
	}
	sc := &scenario{Name: fmt.Sprintf("synthetic-%s-%d-nodes-%d-pods", shape, nodes, pods)}
	const zones = 3
	for i := 0; i < nodes; i++ {
		name := fmt.Sprintf("node-%05d", i)
		res := v1.ResourceList{
			v1.ResourceCPU:    resource.MustParse("32"),
			v1.ResourceMemory: resource.MustParse("128Gi"),
			v1.ResourcePods:   resource.MustParse("110"),
		}
		n := &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("Node//" + name), Labels: map[string]string{
				v1.LabelHostname:     name,
				v1.LabelTopologyZone: fmt.Sprintf("zone-%d", i%zones),
				v1.LabelOSStable:     "linux",
			}},
			Status: v1.NodeStatus{Capacity: res, Allocatable: res.DeepCopy()},
		}
		d.applyDefaults(n, mode)
		sc.Objects = append(sc.Objects, n)
		sc.NodeOrder = append(sc.NodeOrder, name)
	}
	app := map[string]string{"app": shape}
	for i := 0; i < pods; i++ {
		name := fmt.Sprintf("%s-%05d", shape, i)
		p := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: name,
				UID: types.UID("Pod/default/" + name), Labels: map[string]string{"app": shape}},
			Spec: v1.PodSpec{
				SchedulerName: v1.DefaultSchedulerName,
				Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
					v1.ResourceCPU:    resource.MustParse("100m"),
					v1.ResourceMemory: resource.MustParse("128Mi"),
				}}}},
			},
		}
		if shape == "spread" {
			p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
				MaxSkew:           1,
				TopologyKey:       v1.LabelTopologyZone,
				WhenUnsatisfiable: v1.DoNotSchedule,
				LabelSelector:     &metav1.LabelSelector{MatchLabels: app},
			}}
		} else {
			p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{shape}},
					}},
					TopologyKey: v1.LabelHostname,
				}},
			}}
		}
		d.applyDefaults(p, mode)
		sc.Schedule = append(sc.Schedule, p)
	}
	return finishScenario(sc, mode), nil
}
