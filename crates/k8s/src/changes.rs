//! A watched cluster's changes applied to a load of it ([`Loaded`]) in place: a changed Pod or
//! Node is read as a fresh read of the changed cluster reads it and takes the place a fresh
//! read gives it (pods in the `namespace/name` order a watched cluster lists them in; a node in
//! its old place), so the loaded cluster equals the fresh read's; the engine's snapshots of it
//! take the same change (`Snapshot::add_bound_pod`, `remove_bound_pod`, `update_node`) and stay
//! what `Snapshot::new` builds from it ([`apply_change`]).

use std::cmp::Ordering;
use std::sync::Arc;

use spreadlab_engine::framework::Snapshot;
use spreadlab_engine::model::Pod;

use crate::{LoadOptions, Loaded, Object, load_onto};

/// One changed object for [`apply_change`].
#[derive(Debug)]
pub enum ObjectChange<'k> {
    /// A pod: the old one's namespace and name when it was bound (deleted, or replaced by the
    /// new one), and the new one when it is bound.
    Pod {
        /// The old pod's `(namespace, name)`.
        old: Option<(&'k str, &'k str)>,
        /// The new pod.
        new: Option<Object>,
    },
    /// A node's new state (a node of that name is in the cluster).
    Node(Object),
}

/// Applies `change` to `base`, whose pods are in key order ([`Loaded::pods_by_key`]), and to
/// every snapshot built from it, leaving them as a fresh read of the changed cluster and
/// `Snapshot::new` would be; `false` when the object is not one a change in place can take (a
/// new node, or what the loader reads as more than one pod or node): the caller reads the
/// cluster whole again.
pub fn apply_change(
    base: &mut Loaded,
    snapshots: &mut [&mut Snapshot],
    origin: &str,
    change: ObjectChange<'_>,
    options: &LoadOptions,
) -> bool {
    match change {
        ObjectChange::Pod { old, new } => {
            if let Some((namespace, name)) = old
                && let Some(gone) = base.remove_pod(namespace, name)
                && let Some(node) = gone.node_name.as_deref()
            {
                for snapshot in snapshots.iter_mut() {
                    snapshot.remove_bound_pod(namespace, name, node);
                }
            }
            let Some(new) = new else {
                return true;
            };
            match apply_object(base, origin, new, options) {
                Applied::Pod(pod) => {
                    for snapshot in snapshots.iter_mut() {
                        snapshot.add_bound_pod(Arc::clone(&pod));
                    }
                    true
                }
                Applied::Nothing => true,
                Applied::Node(_) | Applied::Unsupported => false,
            }
        }
        ObjectChange::Node(new) => match apply_object(base, origin, new, options) {
            Applied::Node(index) => {
                let node = &base.cluster.nodes[index];
                snapshots
                    .iter_mut()
                    .all(|snapshot| snapshot.update_node(node.clone()))
            }
            _ => false,
        },
    }
}

/// What reading one changed object did to a [`Loaded`] ([`apply_object`]).
#[derive(Clone, Debug)]
enum Applied {
    /// A bound pod, now in the cluster.
    Pod(Arc<Pod>),
    /// The node at this index of the cluster's nodes, read again in its place.
    Node(usize),
    /// Nothing entered the cluster (a terminal pod, or an object with errors, which are kept).
    Nothing,
    /// The object would change more than one pod or node in place (a new node, a workload, or
    /// a kind other than Pod and Node): the caller reads the whole cluster again.
    Unsupported,
}

impl Loaded {
    /// Whether the cluster lists its pods in `namespace/name` order, as a read of a watched
    /// cluster does: only then can [`apply_change`] and [`Loaded::remove_pod`] keep it so.
    pub fn pods_by_key(&self) -> bool {
        self.cluster
            .pods
            .windows(2)
            .all(|pair| key_order(&pair[0], &pair[1].namespace, &pair[1].name) == Ordering::Less)
    }

    /// Where the pod `namespace/name` is among the cluster's pods: searched by halves when they
    /// are in key order (`by_key`, see [`Loaded::pods_by_key`]), one by one otherwise.
    pub fn pod_position(&self, namespace: &str, name: &str, by_key: bool) -> Option<usize> {
        let pods = &self.cluster.pods;
        if by_key {
            pods.binary_search_by(|pod| key_order(pod, namespace, name))
                .ok()
        } else {
            pods.iter()
                .position(|pod| pod.namespace == namespace && pod.name == name)
        }
    }

    /// Takes the pod `namespace/name` out of a cluster whose pods are in key order (a deletion,
    /// or the old side of an update) and returns it; `None` when it is not there.
    pub fn remove_pod(&mut self, namespace: &str, name: &str) -> Option<Arc<Pod>> {
        let position = self.pod_position(namespace, name, true)?;
        let pod = self.cluster.pods.remove(position);
        if let Some(index) = &mut self.pod_index {
            index.removed(position, &pod);
        }
        Some(pod)
    }
}

/// Reads `object` (a changed bound Pod or Node) onto `base`, whose pods are in key order
/// ([`Loaded::pods_by_key`]), as a fresh read of the whole cluster would have read it (see the
/// module documentation).
fn apply_object(base: &mut Loaded, origin: &str, object: Object, options: &LoadOptions) -> Applied {
    let before = base.mark();
    load_onto(base, origin, vec![object], options);
    let cluster = &base.cluster;
    let pods = cluster.pods.len() - before.pods;
    let nodes = cluster.nodes.len() - before.nodes;
    let others = base.workloads.len() != before.workloads
        || base.hpas.len() != before.hpas
        || cluster.namespaces.len() != before.namespaces
        || cluster.services.len() != before.services
        || cluster.controllers.len() != before.controllers
        || cluster.pdbs.len() != before.pdbs
        || !Arc::ptr_eq(&cluster.storage, &before.storage);
    match (pods, nodes, others) {
        (0, 0, false) => Applied::Nothing,
        (1, 0, false) => {
            let pods = &mut base.cluster.pods;
            let pod = pods.pop().expect("one pod was loaded");
            let position = pods.partition_point(|other| {
                key_order(other, &pod.namespace, &pod.name) == Ordering::Less
            });
            pods.insert(position, Arc::clone(&pod));
            if let Some(index) = &mut base.pod_index {
                index.inserted(position, &pod);
            }
            Applied::Pod(pod)
        }
        (0, 1, false) => {
            let nodes = &mut base.cluster.nodes;
            let node = nodes.pop().expect("one node was loaded");
            match nodes.iter().position(|other| other.name == node.name) {
                Some(index) => {
                    nodes[index] = node;
                    Applied::Node(index)
                }
                None => {
                    base.truncate(before);
                    Applied::Unsupported
                }
            }
        }
        _ => {
            base.truncate(before);
            Applied::Unsupported
        }
    }
}

/// `pod` against `namespace/name` in the order of the keys a watched cluster lists pods by.
fn key_order(pod: &Pod, namespace: &str, name: &str) -> Ordering {
    key_bytes(&pod.namespace, &pod.name).cmp(key_bytes(namespace, name))
}

/// The bytes of `namespace/name`.
fn key_bytes<'a>(namespace: &'a str, name: &'a str) -> impl Iterator<Item = u8> + 'a {
    namespace
        .bytes()
        .chain(std::iter::once(b'/'))
        .chain(name.bytes())
}
