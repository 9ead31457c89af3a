package main

// The end state of VolumeBinding's PreBind, without its waits.
//
// VolumeBinding's PreBind (BindPodVolumes) writes the chosen bindings to the API and then polls,
// once a second, until the PV controller (static bindings) or an external provisioner (dynamic
// provisioning) has completed them. The fake clientset has neither controller, and a one-second
// poll per pod would make the differential run take hours. So the oracle swaps the plugin's
// binder for one whose BindPodVolumes writes what those controllers end with, and waits (finely)
// until the scheduler's own caches see it. Everything the scheduler decides (PreFilter, Filter,
// Reserve's assumptions) is the real code's; only this controller work is stood in for:
//   - a static binding: the volume's claimRef (set by the scheduler's AssumePodVolumes) and
//     phase Bound; the claim's volumeName, the pv.kubernetes.io/bind-completed annotation and
//     phase Bound (the PV controller's syncClaim/bind);
//   - a provisioned claim: a new volume named pvc-<namespace>-<claim>, the claim's class and
//     request, pinned to the node's values of the topology keys the provisioning CSI driver
//     reports in the node's CSINode (as the external-provisioner's topology feature does; no pin
//     when the node lists no such driver); then the claim is bound as above.
// spreadlab's engine binds claims to the same end state (crates/engine/src/plugins/volume_binding/binder.rs).

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"sync/atomic"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/volumebinding"
)

// resourceVersions hands out increasing resource versions (the scheduler's assume caches only
// take an informer's object when its version is newer; the fake tracker sets none).
var resourceVersions atomic.Int64

func init() { resourceVersions.Store(1000) }

func bump(m *metav1.ObjectMeta) {
	m.ResourceVersion = strconv.FormatInt(resourceVersions.Add(1), 10)
}

// binder is the plugin's real binder except for BindPodVolumes.
type binder struct {
	volumebinding.SchedulerVolumeBinder
	o *oracle
}

// installBinder swaps the VolumeBinding plugin's binder.
func (o *oracle) installBinder() {
	for _, ext := range o.fw.EnqueueExtensions() {
		if pl, ok := ext.(*volumebinding.VolumeBinding); ok {
			pl.Binder = &binder{SchedulerVolumeBinder: pl.Binder, o: o}
		}
	}
}

// unexported reads the unexported field name of *s (BindingInfo keeps its volume and claim
// unexported; the oracle only reads them).
func unexported[T any](s any, name string) T {
	f := reflect.ValueOf(s).Elem().FieldByName(name)
	return *(*T)(unsafe.Pointer(f.UnsafeAddr()))
}

func (b *binder) BindPodVolumes(ctx context.Context, pod *v1.Pod, podVolumes *volumebinding.PodVolumes) error {
	client := b.o.client.CoreV1()
	for _, binding := range podVolumes.StaticBindings {
		pv := unexported[*v1.PersistentVolume](binding, "pv").DeepCopy()
		pvc := unexported[*v1.PersistentVolumeClaim](binding, "pvc")
		pv.Status.Phase = v1.VolumeBound
		bump(&pv.ObjectMeta)
		if _, err := client.PersistentVolumes().Update(ctx, pv, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("binding volume %s: %w", pv.Name, err)
		}
		if err := b.bindClaim(ctx, pvc.Namespace, pvc.Name, pv.Name); err != nil {
			return err
		}
	}
	for _, provision := range podVolumes.DynamicProvisions {
		pvc := provision.PVC
		pv, err := b.provision(ctx, pod.Spec.NodeName, pvc)
		if err != nil {
			return err
		}
		if err := b.bindClaim(ctx, pvc.Namespace, pvc.Name, pv.Name); err != nil {
			return err
		}
	}
	// Wait until the scheduler's caches hold the bound claims and their volumes.
	node, err := b.o.factory.Core().V1().Nodes().Lister().Get(pod.Spec.NodeName)
	if err != nil {
		return err
	}
	logger := klog.FromContext(ctx)
	return poll(ctx, func() bool {
		claims, err := b.GetPodVolumeClaims(logger, pod)
		if err != nil ||
			len(unexported[[]*v1.PersistentVolumeClaim](claims, "unboundClaimsDelayBinding")) > 0 ||
			len(unexported[[]*v1.PersistentVolumeClaim](claims, "unboundClaimsImmediate")) > 0 {
			return false
		}
		_, reasons, err := b.FindPodVolumes(logger, pod, claims, node)
		return err == nil && len(reasons) == 0
	})
}

func (b *binder) bindClaim(ctx context.Context, namespace, name, volume string) error {
	claims := b.o.client.CoreV1().PersistentVolumeClaims(namespace)
	pvc, err := claims.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("binding claim %s/%s: %w", namespace, name, err)
	}
	pvc = pvc.DeepCopy()
	pvc.Spec.VolumeName = volume
	if pvc.Annotations == nil {
		pvc.Annotations = map[string]string{}
	}
	pvc.Annotations["pv.kubernetes.io/bind-completed"] = "yes"
	pvc.Status.Phase = v1.ClaimBound
	bump(&pvc.ObjectMeta)
	if _, err := claims.Update(ctx, pvc, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("binding claim %s/%s: %w", namespace, name, err)
	}
	return nil
}

func (b *binder) provision(ctx context.Context, nodeName string, pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolume, error) {
	className := ""
	if pvc.Spec.StorageClassName != nil {
		className = *pvc.Spec.StorageClassName
	}
	if c, ok := pvc.Annotations[v1.BetaStorageClassAnnotation]; ok {
		className = c
	}
	class, err := b.o.factory.Storage().V1().StorageClasses().Lister().Get(className)
	if err != nil {
		return nil, fmt.Errorf("provisioning %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	node, err := b.o.factory.Core().V1().Nodes().Lister().Get(nodeName)
	if err != nil {
		return nil, err
	}
	var requirements []v1.NodeSelectorRequirement
	if csiNode, err := b.o.factory.Storage().V1().CSINodes().Lister().Get(nodeName); err == nil {
		for _, d := range csiNode.Spec.Drivers {
			if d.Name != class.Provisioner {
				continue
			}
			for _, key := range d.TopologyKeys {
				if value, ok := node.Labels[key]; ok {
					requirements = append(requirements, v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{value}})
				}
			}
		}
	}
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + pvc.Namespace + "-" + pvc.Name},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: pvc.Spec.Resources.Requests[v1.ResourceStorage]},
			AccessModes:                   pvc.Spec.AccessModes,
			VolumeMode:                    pvc.Spec.VolumeMode,
			StorageClassName:              className,
			VolumeAttributesClassName:     pvc.Spec.VolumeAttributesClassName,
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			ClaimRef:                      &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
			PersistentVolumeSource:        v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: class.Provisioner, VolumeHandle: pvc.Namespace + "-" + pvc.Name}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}
	if len(requirements) > 0 {
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: requirements}}}}
	}
	bump(&pv.ObjectMeta)
	return b.o.client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
}
