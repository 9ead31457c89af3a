package main

// The Deployment controller's template comparison, judged by the real code: each pair of
// tests/revisions/equal-ignore-hash.json is stored as the API server stores it (defaulted by
// pkg/apis/apps/v1's SetObjectDefaults_Deployment, converted to the internal type and back) and
// compared with deploymentutil.EqualIgnoreHash, as FindNewReplicaSet does. The recorded `equal`
// must be what upstream decides; crates/k8s/tests/revisions.rs checks spreadlab against it.

import (
	"encoding/json"
	"os"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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
