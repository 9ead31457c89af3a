package main

// Which ported upstream table a release checks. tests/upstream/<plugin>/<Test>.yaml are ported
// from the v1.35 upstream test files (the base release). Where a later (or earlier) release's
// upstream test file expects something else, tests/upstream-overrides/v1.NN/<plugin>/<Test>.yaml
// is that release's port of the same test function, a whole file that replaces the base one for
// release 1.NN and every release further from 1.35 on the same side, until a nearer override
// (format and rules: tests/upstream/README.md, "Per-release overrides").

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const (
	tablesDir    = "../upstream"
	overridesDir = "../upstream-overrides"
	baseMinor    = 35 // the release the tables under tests/upstream are ported from
)

// releaseMinor is 36 for kubeRelease v1.36.3.
func releaseMinor(t *testing.T) int {
	t.Helper()
	parts := strings.Split(kubeRelease, ".")
	if len(parts) < 2 {
		t.Fatalf("kubeRelease %q", kubeRelease)
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		t.Fatalf("kubeRelease %q", kubeRelease)
	}
	return n
}

// tableFor returns the table of rel (a path under tests/upstream, e.g.
// "noderesources/TestFitScore.yaml") that release minor checks: the override of the nearest
// release between 1.35 (exclusive) and minor (inclusive) that has one, else the base table.
// ok is false when neither exists.
func tableFor(rel string, minor int) (path string, ok bool) {
	step := 1
	if minor < baseMinor {
		step = -1
	}
	for m := minor; m != baseMinor; m -= step {
		p := filepath.Join(overridesDir, fmt.Sprintf("v1.%d", m), rel)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	p := filepath.Join(tablesDir, rel)
	if _, err := os.Stat(p); err == nil {
		return p, true
	}
	return "", false
}

// upstreamTables lists the tables matching glob (relative to tests/upstream, e.g. "*/*.yaml")
// as this binary's release checks them (tableFor); a table only an override holds counts too.
func upstreamTables(t *testing.T, glob string) []string {
	t.Helper()
	minor := releaseMinor(t)
	rels := map[string]bool{}
	add := func(root string) {
		matches, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			rel, err := filepath.Rel(root, m)
			if err != nil {
				t.Fatal(err)
			}
			rels[rel] = true
		}
	}
	add(tablesDir)
	dirs, _ := filepath.Glob(filepath.Join(overridesDir, "v1.*"))
	for _, d := range dirs {
		add(d)
	}
	var out []string
	for rel := range rels {
		if p, ok := tableFor(rel, minor); ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// tableName is how failures name a table: "noderesources/TestFitScore.yaml", or
// "v1.36/noderesources/TestFitScore.yaml" for an override.
func tableName(path string) string {
	for _, root := range []string{overridesDir, tablesDir} {
		if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return path
}

// fileSkip is a table's file-level "skip" (an override saying the release has no such
// upstream test, or cannot run it): logged, never silent.
func fileSkip(t *testing.T, path string, skip any) bool {
	t.Helper()
	if reason, ok := skip.(string); ok && reason != "" {
		t.Logf("SKIP %s on %s: %s", tableName(path), kubeRelease, reason)
		return true
	}
	return false
}

// TestTableFor checks the resolution on the real override of TestNodeResourcesBalancedAllocation
// (v1.36) from every release.
func TestTableFor(t *testing.T) {
	rel := filepath.Join("noderesources", "TestNodeResourcesBalancedAllocation.yaml")
	for minor, want := range map[int]string{
		34: filepath.Join(tablesDir, rel),
		35: filepath.Join(tablesDir, rel),
		36: filepath.Join(overridesDir, "v1.36", rel),
		37: filepath.Join(overridesDir, "v1.36", rel),
	} {
		if got, ok := tableFor(rel, minor); !ok || got != want {
			t.Errorf("1.%d: %s, want %s", minor, got, want)
		}
	}
	if _, ok := tableFor("nope/TestNope.yaml", 36); ok {
		t.Error("a missing table was found")
	}
}
