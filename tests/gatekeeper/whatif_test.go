// Package gatekeeper runs policies/gatekeeper/whatif (the ConstraintTemplate that calls
// spreadlab's what-if service through external data) in Gatekeeper's own constraint framework,
// the Rego driver gator and the admission webhook use, with its external-data client talking to
// a real `spreadlab serve` over TLS 1.3 (gator itself has no external-data support). The
// expected verdicts are the real kube-scheduler's recordings of the seed scenarios.
package gatekeeper

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/frameworks/constraint/pkg/apis/externaldata/unversioned"
	constraintclient "github.com/open-policy-agent/frameworks/constraint/pkg/client"
	"github.com/open-policy-agent/frameworks/constraint/pkg/client/drivers/rego"
	"github.com/open-policy-agent/frameworks/constraint/pkg/client/reviews"
	"github.com/open-policy-agent/frameworks/constraint/pkg/externaldata"
	"github.com/open-policy-agent/gatekeeper/v3/apis"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/gator/reader"
	mutationtypes "github.com/open-policy-agent/gatekeeper/v3/pkg/mutation/types"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/target"
	"github.com/open-policy-agent/gatekeeper/v3/pkg/util"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

var root = filepath.Join("..", "..")

// pemPair writes a PEM certificate and key; signed by parent (self-signed when nil).
func pemPair(t *testing.T, template *x509.Certificate, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) ([]byte, []byte, *x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = template, key
	}
	der, err := x509.CreateCertificate(rand.Reader, template, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDer, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDer}), cert, key
}

// startServe starts `spreadlab serve` (SPREADLAB_BIN) on a cluster snapshot file (relative to the
// repository root); returns its URL and the CA bundle.
func startServe(t *testing.T, snapshot string) (string, []byte) {
	t.Helper()
	bin := os.Getenv("SPREADLAB_BIN")
	if bin == "" {
		t.Fatal("SPREADLAB_BIN must name the spreadlab binary (scripts/test-gatekeeper-kyverno.sh sets it)")
	}
	dir := t.TempDir()
	now := time.Now()
	caPEM, _, ca, caKey := pemPair(t, &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "spreadlab test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}, nil, nil)
	certPEM, keyPEM, _, _ := pemPair(t, &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames:  []string{"localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, ca, caKey)
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "serve",
		"--snapshot", filepath.Join(root, snapshot),
		"--cert", filepath.Join(dir, "tls.crt"), "--key", filepath.Join(dir, "tls.key"),
		"--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatalf("spreadlab serve: %v", err)
	}
	port := regexp.MustCompile(`https://127\.0\.0\.1:(\d+)`).FindStringSubmatch(line)
	if port == nil {
		t.Fatalf("no address in %q", line)
	}
	return "https://localhost:" + port[1] + "/gatekeeper", caPEM
}

// whatifClient is Gatekeeper's constraint client with the whatif template and constraint, its
// provider pointing at a `spreadlab serve` on the snapshot.
func whatifClient(t *testing.T, snapshot string) *constraintclient.Client {
	t.Helper()
	url, caPEM := startServe(t, snapshot)
	providers := externaldata.NewCache()
	if err := providers.Upsert(&unversioned.Provider{
		ObjectMeta: metav1.ObjectMeta{Name: "spreadlab-whatif"},
		Spec:       unversioned.ProviderSpec{URL: url, Timeout: 10, CABundle: base64.StdEncoding.EncodeToString(caPEM)},
	}); err != nil {
		t.Fatal(err)
	}
	driver, err := rego.New(rego.AddExternalDataProviderCache(providers))
	if err != nil {
		t.Fatal(err)
	}
	client, err := constraintclient.NewClient(
		constraintclient.Targets(&target.K8sValidationTarget{}),
		constraintclient.Driver(driver),
		constraintclient.EnforcementPoints(util.GatorEnforcementPoint),
	)
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := apis.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	files := os.DirFS(root)
	template, err := reader.ReadTemplate(scheme, files, "policies/gatekeeper/whatif/template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.AddTemplate(ctx, template); err != nil {
		t.Fatal(err)
	}
	constraint, err := reader.ReadConstraint(files, "policies/gatekeeper/whatif/constraint.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.AddConstraint(ctx, constraint); err != nil {
		t.Fatal(err)
	}
	return client
}

// messages runs one review (an object, as gator and the audit review it, or an admission
// request); returns the violation messages.
func messages(t *testing.T, client *constraintclient.Client, obj interface{}) []string {
	t.Helper()
	responses, err := client.Review(context.Background(), obj, reviews.EnforcementPoint(util.GatorEnforcementPoint))
	if err != nil {
		t.Fatal(err)
	}
	var messages []string
	for _, result := range responses.Results() {
		messages = append(messages, result.Msg)
	}
	return messages
}

// review runs the whatif template and constraint on the scenario's workload with the provider
// pointing at the service; returns the violation messages.
func review(t *testing.T, scenario string) []string {
	t.Helper()
	client := whatifClient(t, filepath.Join("tests", "scenarios", scenario, "cluster.yaml"))
	object, err := reader.ReadObject(os.DirFS(root), filepath.Join("tests/scenarios", scenario, "workload.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return messages(t, client, target.AugmentedUnstructured{Object: *object, Source: mutationtypes.SourceTypeOriginal})
}

// pending reads the real scheduler's messages for the scenario's Pending pods, as the release
// spreadlab serve runs by default (the newest, 1.37) decided them.
func pending(t *testing.T, scenario string) []string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root, "tests", "scenarios", scenario, "expected-1.37.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var messages []string
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		var decision struct {
			Node    *string `json:"node"`
			Message string  `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &decision); err != nil {
			t.Fatal(err)
		}
		if decision.Node == nil {
			messages = append(messages, decision.Message)
		}
	}
	return messages
}

func TestPendingReplicaIsDeniedWithTheSchedulerMessage(t *testing.T) {
	const scenario = "gpu-three-zones-one-full"
	want := pending(t, scenario)
	if len(want) != 1 {
		t.Fatalf("the scenario has %d Pending pods, want 1", len(want))
	}
	messages := review(t, scenario)
	if len(messages) != 1 {
		t.Fatalf("violations %q, want one", messages)
	}
	head := strings.SplitN(want[0], " preemption:", 2)[0]
	if !strings.Contains(messages[0], head) {
		t.Errorf("violation %q does not carry the real scheduler's %q", messages[0], head)
	}
}

func TestWorkloadThatFitsIsAdmitted(t *testing.T) {
	const scenario = "vllm-eight-two-zones"
	if want := pending(t, scenario); len(want) != 0 {
		t.Fatalf("the scenario has Pending pods: %q", want)
	}
	if messages := review(t, scenario); len(messages) != 0 {
		t.Errorf("violations %q, want none", messages)
	}
}

// inferDeployment is tests/analyses/rollout-gpu-busy.yaml's Deployment (three replicas, one
// nvidia.com/gpu each, a hard zone spread) with `gpus` GPUs per replica.
func inferDeployment(gpus string) []byte {
	return []byte(`{"apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "infer", "namespace": "default"},
  "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "infer"}},
    "template": {"metadata": {"labels": {"app": "infer"}}, "spec": {
      "containers": [{"name": "server", "image": "vllm/vllm-openai:v0.6.1",
        "resources": {"requests": {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "` + gpus + `"},
                      "limits": {"nvidia.com/gpu": "` + gpus + `"}}}],
      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "infer"}}}]}}}}`)
}

// An UPDATE that changes the template to two GPUs per replica, on tests/analyses/rollout-gpu-busy.yaml
// (three single-GPU nodes, one per zone, each running one of the Deployment's three current
// pods). Derived from the scheduler's NodeResourcesFit filter (upstream
// pkg/scheduler/framework/plugins/noderesources/fit.go): after the rollout the old pods are gone,
// and no node has the two GPUs a new pod requests, so all three stay Pending. Judged as a CREATE
// (the old template sent only the object) the three running pods would count as its replicas and
// it would be admitted.
func TestTemplateChangeIsJudgedAsAnUpdate(t *testing.T) {
	client := whatifClient(t, filepath.Join("tests", "analyses", "rollout-gpu-busy.yaml"))
	request := func(operation admissionv1.Operation, object, old []byte) *target.AugmentedReview {
		gvk := metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
		return &target.AugmentedReview{
			AdmissionRequest: &admissionv1.AdmissionRequest{
				UID: "1", Kind: gvk, RequestKind: &gvk,
				Resource:  metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
				Name:      "infer",
				Namespace: "default",
				Operation: operation,
				Object:    runtime.RawExtension{Raw: object},
				OldObject: runtime.RawExtension{Raw: old},
			},
			Source:      mutationtypes.SourceTypeOriginal,
			IsAdmission: true,
		}
	}
	got := messages(t, client, request(admissionv1.Update, inferDeployment("2"), inferDeployment("1")))
	if len(got) != 1 || !strings.Contains(got[0], "3 of 3 replicas would stay Pending") ||
		!strings.Contains(got[0], "Insufficient nvidia.com/gpu") {
		t.Errorf("UPDATE to two GPUs per replica: violations %q, want the three new replicas Pending for nvidia.com/gpu", got)
	}
	// No template change (a no-op UPDATE): the three running pods are its replicas.
	if got := messages(t, client, request(admissionv1.Update, inferDeployment("1"), inferDeployment("1"))); len(got) != 0 {
		t.Errorf("UPDATE without a template change: violations %q, want none", got)
	}
}
