package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	appsv1defaults "k8s.io/kubernetes/pkg/apis/apps/v1"
	corev1defaults "k8s.io/kubernetes/pkg/apis/core/v1"
	policyv1defaults "k8s.io/kubernetes/pkg/apis/policy/v1"
	schedulingv1defaults "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	storagev1defaults "k8s.io/kubernetes/pkg/apis/storage/v1"
	"sigs.k8s.io/yaml"
)

// rawScenario is the file format: real Kubernetes objects, kept raw until
// they are decoded by the client-go scheme.
type rawScenario struct {
	Name string `json:"name"`
	// The Kubernetes release the scenario is meant for ("1.36"); empty for any. A binary built
	// for another release refuses it (see kubeRelease in compat_v1NN.go).
	KubernetesVersion string            `json:"kubernetesVersion,omitempty"`
	Objects           []json.RawMessage `json:"objects"`
	Schedule          []json.RawMessage `json:"schedule"`
	// Single-plugin mode only (-plugin): the plugin's args in upstream v1 config field
	// names, the nodes given to PreScore/Score, and an optional plugin name that
	// overrides the -plugin flag.
	Args       json.RawMessage `json:"args,omitempty"`
	Candidates []string        `json:"candidates,omitempty"`
	Plugin     string          `json:"plugin,omitempty"`
}

type scenario struct {
	Name      string
	Objects   []runtime.Object // cluster state, API-defaulted, with namespaces and UIDs filled in
	NodeOrder []string         // node names in input order
	Schedule  []*v1.Pod        // pods to schedule, in order

	Args       json.RawMessage // -plugin mode: plugin args (v1 field names), or nil
	Candidates []string        // -plugin mode: nodes for PreScore/Score, or nil (every node)
	Plugin     string          // -plugin mode: overrides the -plugin flag when not empty
}

// decodeMode says what the oracle does to the decoded objects, on top of decoding.
type decodeMode int

const (
	// modeAPI: what kube-apiserver does on create: defaulting, Priority admission,
	// namespaces created and labelled kubernetes.io/metadata.name.
	modeAPI decodeMode = iota
	// modeRaw (-no-api-defaults): no defaulting, no admission; namespaces are
	// still created and labelled.
	modeRaw
	// modePlugin (-plugin): objects as upstream plugin unit tests build them. Pods
	// are not defaulted and get no priority; other objects are defaulted. Only the
	// "default" namespace is added when missing, and no namespace gets a label it
	// did not have.
	modePlugin
	// modePluginRaw (-plugin -no-api-defaults): modePlugin without any defaulting.
	modePluginRaw
)

func (m decodeMode) plugin() bool { return m == modePlugin || m == modePluginRaw }

// decoder turns scenario documents into objects. It is built once per process.
type decoder struct {
	scheme *runtime.Scheme
	codec  runtime.Decoder
}

func newDecoder() *decoder {
	s := newScheme()
	return &decoder{scheme: s, codec: serializer.NewCodecFactory(s).UniversalDeserializer()}
}

// clusterScoped lists the kinds of the scenario format that have no namespace.
var clusterScoped = map[string]bool{
	"Node": true, "Namespace": true, "PriorityClass": true,
	"PersistentVolume": true, "StorageClass": true, "CSINode": true, "CSIDriver": true,
	"DeviceClass": true, "ResourceSlice": true,
}

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	must(clientgoscheme.AddToScheme(s))
	// API-server defaulting (what kube-apiserver does to every object on create).
	must(corev1defaults.RegisterDefaults(s))
	must(appsv1defaults.RegisterDefaults(s))
	must(policyv1defaults.RegisterDefaults(s))
	must(schedulingv1defaults.RegisterDefaults(s))
	must(storagev1defaults.RegisterDefaults(s))
	return s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// applyDefaults runs the kube-apiserver defaulting functions on obj where mode asks for it.
func (d *decoder) applyDefaults(obj runtime.Object, mode decodeMode) {
	_, isPod := obj.(*v1.Pod)
	if mode == modeAPI || (mode == modePlugin && !isPod) {
		d.scheme.Default(obj)
	}
}

// emptyNamespaceToDefault rewrites "" in the namespaces lists of the pod's
// affinity terms to "default": objects without a namespace are put in
// "default", and a term naming "" (upstream unit tests do) must keep matching them.
func emptyNamespaceToDefault(p *v1.Pod) {
	a := p.Spec.Affinity
	if a == nil {
		return
	}
	fix := func(t *v1.PodAffinityTerm) {
		for i, ns := range t.Namespaces {
			if ns == "" {
				t.Namespaces[i] = metav1.NamespaceDefault
			}
		}
	}
	if pa := a.PodAffinity; pa != nil {
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			fix(&pa.RequiredDuringSchedulingIgnoredDuringExecution[i])
		}
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			fix(&pa.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm)
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			fix(&pa.RequiredDuringSchedulingIgnoredDuringExecution[i])
		}
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			fix(&pa.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm)
		}
	}
}

// readScenario reads a YAML or JSON scenario file ("-": stdin).
func (d *decoder) readScenario(path string, mode decodeMode) (*scenario, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	jsonData, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("parsing scenario: %w", err)
	}
	var raw rawScenario
	if err := json.Unmarshal(jsonData, &raw); err != nil {
		return nil, fmt.Errorf("parsing scenario: %w", err)
	}
	return d.build(&raw, mode)
}

// build decodes the raw objects with the client-go scheme and does what mode asks.
func (d *decoder) build(raw *rawScenario, mode decodeMode) (*scenario, error) {
	decode := func(r json.RawMessage, what string, i int) (runtime.Object, error) {
		obj, gvk, err := d.codec.Decode(r, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", what, i, err)
		}
		acc, err := meta.Accessor(obj)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", what, i, err)
		}
		if !clusterScoped[gvk.Kind] && acc.GetNamespace() == "" {
			acc.SetNamespace("default")
		}
		if acc.GetUID() == "" {
			// Deterministic UIDs: the cache and the nominator key pods by UID.
			acc.SetUID(types.UID(fmt.Sprintf("%s/%s/%s", gvk.Kind, acc.GetNamespace(), acc.GetName())))
		}
		if acc.GetResourceVersion() == "" && (gvk.Kind == "PersistentVolume" || gvk.Kind == "PersistentVolumeClaim") {
			// Stored objects have one; the scheduler's volume assume caches compare them.
			acc.SetResourceVersion("1")
		}
		d.applyDefaults(obj, mode)
		if p, ok := obj.(*v1.Pod); ok && mode.plugin() {
			emptyNamespaceToDefault(p)
		}
		return obj, nil
	}

	if v := strings.TrimPrefix(raw.KubernetesVersion, "v"); v != "" && !strings.HasPrefix(kubeRelease, "v"+v+".") && "v"+v != kubeRelease {
		return nil, fmt.Errorf("the scenario is for Kubernetes %s; this oracle runs %s (tests/oracle/build.sh builds each release)", raw.KubernetesVersion, kubeRelease)
	}
	sc := &scenario{Name: raw.Name, Args: raw.Args, Candidates: raw.Candidates, Plugin: raw.Plugin}
	for i, r := range raw.Objects {
		obj, err := decode(r, "objects", i)
		if err != nil {
			return nil, err
		}
		sc.Objects = append(sc.Objects, obj)
		if n, ok := obj.(*v1.Node); ok {
			sc.NodeOrder = append(sc.NodeOrder, n.Name)
		}
	}
	for i, r := range raw.Schedule {
		obj, err := decode(r, "schedule", i)
		if err != nil {
			return nil, err
		}
		p, ok := obj.(*v1.Pod)
		if !ok {
			return nil, fmt.Errorf("schedule[%d]: want a Pod, got %T", i, obj)
		}
		if p.Spec.NodeName != "" && !mode.plugin() { // plugin unit tests may set it (NodeName)
			return nil, fmt.Errorf("schedule[%d] %s/%s: spec.nodeName must be empty", i, p.Namespace, p.Name)
		}
		if p.Spec.SchedulerName == "" && !mode.plugin() { // even with -no-api-defaults: the scheduler ignores pods of other schedulers
			p.Spec.SchedulerName = v1.DefaultSchedulerName
		}
		sc.Schedule = append(sc.Schedule, p)
	}
	return finishScenario(sc, mode), nil
}

// finishScenario adds the namespaces and, in modeAPI, does Priority admission.
func finishScenario(sc *scenario, mode decodeMode) *scenario {
	// Namespaces: kube-apiserver always has the namespaces that objects live in, and
	// labels every namespace with kubernetes.io/metadata.name (InterPodAffinity's
	// namespaceSelector relies on that label).
	haveNS := map[string]*v1.Namespace{}
	for _, o := range sc.Objects {
		if ns, ok := o.(*v1.Namespace); ok {
			haveNS[ns.Name] = ns
		}
	}
	addNS := func(name string) {
		if name == "" || haveNS[name] != nil {
			return
		}
		ns := &v1.Namespace{}
		ns.Name = name
		ns.UID = types.UID("Namespace//" + name)
		haveNS[name] = ns
		sc.Objects = append(sc.Objects, ns)
	}
	addNS("default")
	if mode.plugin() {
		return sc
	}
	for _, o := range sc.Objects {
		if acc, err := meta.Accessor(o); err == nil {
			addNS(acc.GetNamespace())
		}
	}
	for _, p := range sc.Schedule {
		addNS(p.Namespace)
	}
	for name, ns := range haveNS {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[v1.LabelMetadataName] = name
	}

	// Priority admission (plugin/pkg/admission/priority) on create: resolve
	// spec.priority and spec.preemptionPolicy from the PriorityClass.
	if mode == modeAPI {
		var classes []*schedulingv1.PriorityClass
		for _, o := range sc.Objects {
			if pc, ok := o.(*schedulingv1.PriorityClass); ok {
				classes = append(classes, pc)
			}
		}
		for _, o := range sc.Objects {
			if p, ok := o.(*v1.Pod); ok {
				admitPriority(p, classes)
			}
		}
		for _, p := range sc.Schedule {
			admitPriority(p, classes)
		}
	}
	return sc
}

// admitPriority mirrors what the Priority admission plugin does to a new pod. A
// priority already present in the input is kept.
func admitPriority(p *v1.Pod, classes []*schedulingv1.PriorityClass) {
	var pc *schedulingv1.PriorityClass
	if p.Spec.PriorityClassName != "" {
		for _, c := range classes {
			if c.Name == p.Spec.PriorityClassName {
				pc = c
			}
		}
	} else {
		// The global default class; with several, the one with the lowest value.
		for _, c := range classes {
			if c.GlobalDefault && (pc == nil || c.Value < pc.Value) {
				pc = c
			}
		}
		if pc != nil {
			p.Spec.PriorityClassName = pc.Name
		}
	}
	prio := int32(0)
	policy := v1.PreemptLowerPriority
	if pc != nil {
		prio = pc.Value
		if pc.PreemptionPolicy != nil {
			policy = *pc.PreemptionPolicy
		}
	}
	if p.Spec.Priority == nil {
		p.Spec.Priority = &prio
	}
	if p.Spec.PreemptionPolicy == nil {
		p.Spec.PreemptionPolicy = &policy
	}
}
