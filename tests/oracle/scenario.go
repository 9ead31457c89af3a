package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	appsv1defaults "k8s.io/kubernetes/pkg/apis/apps/v1"
	corev1defaults "k8s.io/kubernetes/pkg/apis/core/v1"
	policyv1defaults "k8s.io/kubernetes/pkg/apis/policy/v1"
	schedulingv1defaults "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"sigs.k8s.io/yaml"
)

// rawScenario is the file format: real Kubernetes objects, kept raw until
// they are decoded by the client-go scheme.
type rawScenario struct {
	Name     string            `json:"name"`
	Objects  []json.RawMessage `json:"objects"`
	Schedule []json.RawMessage `json:"schedule"`
}

type scenario struct {
	Name      string
	Objects   []runtime.Object // cluster state, API-defaulted, with namespaces and UIDs filled in
	NodeOrder []string         // node names in input order
	Schedule  []*v1.Pod        // pods to schedule, in order
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
	return s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func readScenario(path string, scheme *runtime.Scheme, applyDefaults bool) (*scenario, error) {
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
	decoder := serializer.NewCodecFactory(scheme).UniversalDeserializer()
	decode := func(r json.RawMessage, what string, i int) (runtime.Object, error) {
		obj, gvk, err := decoder.Decode(r, nil, nil)
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
		if applyDefaults {
			scheme.Default(obj)
		}
		return obj, nil
	}

	sc := &scenario{Name: raw.Name}
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
		if p.Spec.NodeName != "" {
			return nil, fmt.Errorf("schedule[%d] %s/%s: spec.nodeName must be empty", i, p.Namespace, p.Name)
		}
		if p.Spec.SchedulerName == "" { // even with -no-api-defaults: the scheduler ignores pods of other schedulers
			p.Spec.SchedulerName = v1.DefaultSchedulerName
		}
		sc.Schedule = append(sc.Schedule, p)
	}

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
	if applyDefaults {
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
	return sc, nil
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
