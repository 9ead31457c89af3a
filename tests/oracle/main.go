// Command oracle runs the real kube-scheduler v1.35 code in-process on a
// spreadlab scenario and prints, per pod to schedule, what it decides (JSON Lines).
//
// Usage: oracle [flags] <scenario.yaml|scenario.json|->
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
)

func main() {
	klogFlags := flag.NewFlagSet("klog", flag.ExitOnError)
	klog.InitFlags(klogFlags)
	verbosity := flag.String("v", "0", "klog verbosity of the scheduler code (logs go to stderr)")
	noDefaults := flag.Bool("no-api-defaults", false, "do not apply kube-apiserver defaulting and Priority admission to the input objects")
	featureGates := flag.String("feature-gates", "", "feature gates to change from their v1.35 defaults, e.g. OpportunisticBatching=false")
	dumpProfile := flag.Bool("dump-profile", false, "print the expanded default profile (plugins per extension point) and the relevant feature gates to stderr")
	crossCheck := flag.Bool("cross-check", true, "also run the scheduler's own SchedulePod on each pod and report disagreements in \"crossCheck\"")
	timeout := flag.Duration("timeout", 60*time.Second, "overall timeout")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: %s [flags] <scenario.yaml|scenario.json|->\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	_ = klogFlags.Set("v", *verbosity)
	_ = klogFlags.Set("logtostderr", "true")
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *featureGates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(*featureGates); err != nil {
			fatalf("--feature-gates: %v", err)
		}
	}

	scheme := newScheme()
	sc, err := readScenario(flag.Arg(0), scheme, !*noDefaults)
	if err != nil {
		fatalf("%v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	o, err := newOracle(ctx, sc)
	if err != nil {
		fatalf("building the scheduler: %v", err)
	}
	o.crossCheckOn = *crossCheck
	if *dumpProfile {
		o.dumpProfile(os.Stderr)
	}

	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for _, p := range sc.Schedule {
		res := o.schedule(ctx, p)
		if err := enc.Encode(res); err != nil {
			fatalf("%v", err)
		}
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "oracle: "+format+"\n", args...)
	os.Exit(1)
}
