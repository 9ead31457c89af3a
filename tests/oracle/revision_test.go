package main

// The Deployment controller's template comparison, judged by the real code: each pair of
// tests/revisions/equal-ignore-hash.json is stored as the API server stores it (defaulted by
// pkg/apis/apps/v1's SetObjectDefaults_Deployment, converted to the internal type and back) and
// compared with deploymentutil.EqualIgnoreHash, as FindNewReplicaSet does. The recorded `equal`
// must be what upstream decides; crates/k8s/tests/revisions.rs checks spreadlab against it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
)

type revisionCase struct {
	Name       string                 `json:"name"`
	Deployment corev1.PodTemplateSpec `json:"deployment"`
	ReplicaSet corev1.PodTemplateSpec `json:"replicaSet"`
	Equal      bool                   `json:"equal"`
}

// stored is the template as the API server stores and serves it.
func stored(t *testing.T, template corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	t.Helper()
	deployment := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: template}}
	legacyscheme.Scheme.Default(deployment)
	internal := &apps.Deployment{}
	if err := legacyscheme.Scheme.Convert(deployment, internal, nil); err != nil {
		t.Fatal(err)
	}
	out := &appsv1.Deployment{}
	if err := legacyscheme.Scheme.Convert(internal, out, nil); err != nil {
		t.Fatal(err)
	}
	return &out.Spec.Template
}

func TestEqualIgnoreHashCases(t *testing.T) {
	data, err := os.ReadFile("../revisions/equal-ignore-hash.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []revisionCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 10 {
		t.Fatalf("only %d cases", len(file.Cases))
	}
	for _, tc := range file.Cases {
		got := deploymentutil.EqualIgnoreHash(stored(t, tc.ReplicaSet), stored(t, tc.Deployment))
		if got != tc.Equal {
			t.Errorf("%s: EqualIgnoreHash = %v, recorded %v", tc.Name, got, tc.Equal)
		}
	}
}

// The pod templates of every controller in tests/corpus and tests/scenarios, each as written and
// as the API server stores it, recorded in tests/revisions/stored-templates.json (ORACLE_RECORD=1
// rewrites it). crates/k8s/tests/revisions.rs checks that spreadlab finds each pair equal, as the
// Deployment controller does: real-world templates, the real defaulting.
func TestStoredTemplatesAreRecorded(t *testing.T) {
	var inputs []string
	for _, pattern := range []string{"../corpus/*/*", "../corpus/*/*/*", "../scenarios/*/*.yaml"} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, matches...)
	}
	sort.Strings(inputs)
	type pair struct {
		Source  string          `json:"source"`
		Written json.RawMessage `json:"written"`
		Stored  json.RawMessage `json:"stored"`
	}
	var pairs []pair
	for _, path := range inputs {
		if !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") && !strings.HasSuffix(path, ".json") {
			continue
		}
		if strings.HasSuffix(path, "oracle-input.yaml") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for document := 0; ; document++ {
			var object map[string]any
			if err := decoder.Decode(&object); err != nil {
				break // the end, or a document the API server would not read either
			}
			objects := []map[string]any{object}
			if items, ok := object["items"].([]any); ok {
				for _, item := range items {
					if m, ok := item.(map[string]any); ok {
						objects = append(objects, m)
					}
				}
			}
			for index, o := range objects {
				switch o["kind"] {
				case "Deployment", "StatefulSet", "ReplicaSet":
				default:
					continue
				}
				spec, _ := o["spec"].(map[string]any)
				written, err := json.Marshal(spec["template"])
				if err != nil || spec["template"] == nil {
					continue
				}
				var template corev1.PodTemplateSpec
				if err := json.Unmarshal(written, &template); err != nil {
					continue // not a template the API server would accept
				}
				stored, err := json.Marshal(stored(t, template))
				if err != nil {
					t.Fatal(err)
				}
				source := fmt.Sprintf("%s#%d/%d %s %v", strings.TrimPrefix(path, "../"), document, index, o["kind"], o["metadata"].(map[string]any)["name"])
				pairs = append(pairs, pair{source, written, stored})
			}
		}
	}
	if len(pairs) < 20 {
		t.Fatalf("only %d templates found", len(pairs))
	}
	got, err := json.MarshalIndent(pairs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const file = "../revisions/stored-templates.json"
	if os.Getenv("ORACLE_RECORD") == "1" {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s is missing or stale: rerun with ORACLE_RECORD=1 (%d templates)", file, len(pairs))
	}
}
