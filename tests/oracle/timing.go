package main

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
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
