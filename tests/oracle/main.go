// Command oracle runs the real kube-scheduler v1.35 code in-process on a
// spreadlab scenario and prints, per pod to schedule, what it decides (JSON Lines).
//
// Usage:
//
//	oracle [flags] <scenario.yaml|scenario.json|->
//	oracle -batch [flags] [scenarios.jsonl|-]      (JSON Lines, one scenario a line; default stdin)
//
// Modes (combinable with -batch): the default full scheduling cycle, -plugin
// <Name> (one plugin, no binding), -time (throughput only; `cargo xtask speed`
// feeds it the synthetic benchmark scenarios of crates/conformance/src/synthetic.rs).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
)

// options are the command-line choices that affect how one scenario is run.
type options struct {
	noDefaults     bool
	dumpProfile    bool
	crossCheck     bool
	plugin         string // single-plugin mode when not empty
	timing         bool   // -time
	viaSchedulePod bool   // -time-schedulepod
	timeout        time.Duration
}

func (op *options) decodeMode() decodeMode {
	switch {
	case op.plugin != "":
		if op.noDefaults {
			return modePluginRaw
		}
		return modePlugin
	case op.noDefaults:
		return modeRaw
	}
	return modeAPI
}

func main() {
	klogFlags := flag.NewFlagSet("klog", flag.ExitOnError)
	klog.InitFlags(klogFlags)
	var op options
	verbosity := flag.String("v", "0", "klog verbosity of the scheduler code (logs go to stderr)")
	flag.BoolVar(&op.noDefaults, "no-api-defaults", false, "do not apply kube-apiserver defaulting and Priority admission to the input objects")
	featureGates := flag.String("feature-gates", "", "feature gates to change from the release's defaults, e.g. OpportunisticBatching=false")
	flag.BoolVar(&op.dumpProfile, "dump-profile", false, "print the expanded profile (plugins per extension point) and the relevant feature gates to stderr")
	flag.BoolVar(&op.crossCheck, "cross-check", true, "also run the scheduler's own SchedulePod on each pod and report disagreements in \"crossCheck\"")
	flag.DurationVar(&op.timeout, "timeout", 60*time.Second, "timeout per scenario (0: none)")
	batch := flag.Bool("batch", false, "read scenarios as JSON Lines (stdin, or the file argument) and run them one after another")
	flag.StringVar(&op.plugin, "plugin", "", "single-plugin mode: run only this plugin's PreFilter/Filter/PreScore/Score on each pod, without binding")
	flag.BoolVar(&op.timing, "time", false, "timing mode: schedule without per-pod output or cross-check, print one throughput line")
	flag.BoolVar(&op.viaSchedulePod, "time-schedulepod", false, "with -time: let the scheduler's own SchedulePod (parallel filtering and scoring) pick the nodes instead of the oracle's step-by-step cycle")
	fieldManaged := flag.Bool("field-managed-client", false, "use fake.NewClientset (field-managed object tracker, much slower API writes) instead of fake.NewSimpleClientset")
	cpuProfile := flag.String("cpuprofile", "", "write a Go CPU profile to this file")
	printVersion := flag.Bool("version", false, "print the k8s.io/kubernetes release this oracle runs (e.g. v1.35.4) and exit")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: %s [flags] <scenario.yaml|scenario.json|->\n"+
			"       %s -batch [flags] [scenarios.jsonl|-]\n", os.Args[0], os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	if *printVersion {
		fmt.Println(kubeRelease)
		return
	}
	_ = klogFlags.Set("v", *verbosity)
	_ = klogFlags.Set("logtostderr", "true")
	if (*batch && flag.NArg() > 1) || (!*batch && flag.NArg() != 1) {
		flag.Usage()
		os.Exit(2)
	}
	if op.plugin != "" && op.timing {
		fatalf("-plugin cannot be combined with -time")
	}
	if op.viaSchedulePod && !op.timing {
		fatalf("-time-schedulepod needs -time")
	}
	if *featureGates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(*featureGates); err != nil {
			fatalf("--feature-gates: %v", err)
		}
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fatalf("%v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fatalf("%v", err)
		}
		defer pprof.StopCPUProfile()
	}

	e, err := newEnv(op.timing)
	if err != nil {
		fatalf("default configuration: %v", err)
	}
	e.fieldManaged = *fieldManaged

	if *batch {
		in := os.Stdin
		if flag.NArg() == 1 && flag.Arg(0) != "-" {
			f, err := os.Open(flag.Arg(0))
			if err != nil {
				fatalf("%v", err)
			}
			defer f.Close()
			in = f
		}
		if err := runBatch(e, &op, in, os.Stdout); err != nil {
			fatalf("%v", err)
		}
		return
	}

	sc, err := e.dec.readScenario(flag.Arg(0), op.decodeMode())
	if err != nil {
		fatalf("%v", err)
	}

	ctx, cancel := scenarioContext(op.timeout)
	defer cancel()
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	emit := func(v any) error { return enc.Encode(v) }
	if _, err := runScenario(ctx, e, &op, sc, emit); err != nil {
		fatalf("%v", err)
	}
}

func scenarioContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return context.WithCancel(context.Background())
	}
	return context.WithTimeout(context.Background(), timeout)
}

// runScenario runs one scenario in the mode op asks for and passes every output
// object to emit. It returns the number of pods processed. An error means the
// scenario could not be run (some pods may have been emitted already).
func runScenario(ctx context.Context, e *env, op *options, sc *scenario, emit func(any) error) (int, error) {
	switch {
	case op.plugin != "":
		return runPlugin(ctx, e, op, sc, emit)
	case op.timing:
		return runTiming(ctx, e, op, sc, emit)
	}
	o, err := newOracle(ctx, e, sc)
	if err != nil {
		return 0, fmt.Errorf("building the scheduler: %w", err)
	}
	o.crossCheckOn = op.crossCheck
	if op.dumpProfile {
		o.dumpProfile(os.Stderr)
	}
	// Pods already waiting in the snapshot (a creationTimestamp: the API server stored them
	// before this moment) exist before the first cycle, as in a running cluster: the queue's
	// Add puts their status.nominatedNodeName in the nominator, so earlier cycles count them.
	if err := o.createWaiting(ctx, sc.Schedule); err != nil {
		return 0, fmt.Errorf("creating the waiting pods: %w", err)
	}
	n := 0
	for _, p := range sc.Schedule {
		res := o.schedule(ctx, p)
		if err := emit(res); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func fatalf(format string, args ...any) {
	pprof.StopCPUProfile()
	fmt.Fprintf(os.Stderr, "oracle: "+format+"\n", args...)
	os.Exit(1)
}
