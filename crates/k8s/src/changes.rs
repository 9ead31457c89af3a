//! A watched cluster's changes applied to a load of it ([`Loaded`]) in place: a changed Pod,
//! Node or Namespace is read as a fresh read of the changed cluster reads it and takes the place
//! a fresh read gives it (pods in the `namespace/name` order a watched cluster lists them in; a
//! changed node or namespace in its old place, a new one in the name order a watched cluster
//! lists them in), so the loaded cluster equals the fresh read's; the engine's snapshots of it
//! take the same change (`Snapshot::add_bound_pod`, `remove_bound_pod`, `update_node`,
//! `insert_node`, `remove_node`, `Snapshot::namespaces`) and stay what `Snapshot::new` builds
//! from it ([`apply_change`]).

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
    /// A node: the old one's name when it was there (deleted, or replaced by the new one), and
    /// the new one when it is there.
    Node {
        /// The old node's name.
        old: Option<&'k str>,
        /// The new node.
        new: Option<Object>,
    },
    /// A Namespace (its labels are what namespace selectors read): the old one's name when it
    /// was there, and the new one when it is there.
    Namespace {
        /// The old namespace's name.
        old: Option<&'k str>,
        /// The new namespace.
        new: Option<Object>,
    },
}

/// Applies `change` to `base`, whose pods are in key order ([`Loaded::pods_by_key`]), and to
/// every snapshot built from it, leaving them as a fresh read of the changed cluster and
/// `Snapshot::new` would be; `false` when the object is not one a change in place can take (a
/// new node or namespace while they are not in name order, or what the loader reads as more
/// than one object or as another kind): the caller reads the cluster whole again.
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
                Applied::Node(_)
                | Applied::NewNode(_)
                | Applied::Namespace(_)
                | Applied::Unsupported => false,
            }
        }
        ObjectChange::Node { old, new } => {
            let name = match new.map(|new| apply_object(base, origin, new, options)) {
                None | Some(Applied::Nothing) => None,
                Some(Applied::Node(index)) => {
                    let node = &base.cluster.nodes[index];
                    if !snapshots
                        .iter_mut()
                        .all(|snapshot| snapshot.update_node(node.clone()))
                    {
                        return false;
                    }
                    Some(index)
                }
                Some(Applied::NewNode(index)) => {
                    let node = &base.cluster.nodes[index];
                    // Pods bound to it before it joined (a fresh read binds them to it).
                    let pods: Vec<&Arc<Pod>> = if base.may_have_pods_on(&node.name) {
                        base.cluster
                            .pods
                            .iter()
                            .filter(|pod| pod.node_name.as_ref() == Some(&node.name))
                            .collect()
                    } else {
                        Vec::new()
                    };
                    for snapshot in snapshots.iter_mut() {
                        if !snapshot.insert_node(index, node.clone()) {
                            return false;
                        }
                        for pod in &pods {
                            snapshot.add_bound_pod(Arc::clone(pod));
                        }
                    }
                    Some(index)
                }
                Some(Applied::Pod(_) | Applied::Namespace(_) | Applied::Unsupported) => {
                    return false;
                }
            }
            .map(|index| base.cluster.nodes[index].name.clone());
            // The old node, unless the new one took its place.
            if let Some(old) = old.filter(|&old| name.as_deref() != Some(old))
                && base.remove_node(old).is_some()
            {
                for snapshot in snapshots.iter_mut() {
                    snapshot.remove_node(old);
                }
            }
            true
        }
        ObjectChange::Namespace { old, new } => {
            let name = match new.map(|new| apply_object(base, origin, new, options)) {
                None | Some(Applied::Nothing) => None,
                Some(Applied::Namespace(index)) => {
                    let namespace = &base.cluster.namespaces[index];
                    for snapshot in snapshots.iter_mut() {
                        snapshot
                            .namespaces
                            .insert(namespace.name.clone(), namespace.labels.clone());
                    }
                    Some(namespace.name.clone())
                }
                Some(_) => return false,
            };
            if let Some(old) = old.filter(|&old| name.as_deref() != Some(old)) {
                let namespaces = &mut base.cluster.namespaces;
                if let Some(position) = namespaces.iter().position(|n| n.name == old) {
                    namespaces.remove(position);
                    for snapshot in snapshots.iter_mut() {
                        snapshot.namespaces.remove(old);
                    }
                }
            }
            true
        }
    }
}

/// What reading one changed object did to a [`Loaded`] ([`apply_object`]).
#[derive(Clone, Debug)]
enum Applied {
    /// A bound pod, now in the cluster.
    Pod(Arc<Pod>),
    /// The node at this index of the cluster's nodes, read again in its place.
    Node(usize),
    /// A node the cluster did not have, now at this index of its nodes (in name order).
    NewNode(usize),
    /// The Namespace at this index of the cluster's namespaces: read again in its place, or
    /// new in name order.
    Namespace(usize),
    /// Nothing entered the cluster (a terminal pod, or an object with errors, which are kept).
    Nothing,
    /// The object would change more than one object in place (a workload, or a kind other than
    /// Pod, Node and Namespace), or a new node or namespace has no place (they are not in name
    /// order): the caller reads the whole cluster again.
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

    /// Takes the node `name` out of the cluster (a deletion; the pods bound to it stay, as in
    /// a fresh read until the pod garbage collector deletes them) and returns where it was;
    /// `None` when it is not there.
    pub fn remove_node(&mut self, name: &str) -> Option<usize> {
        let position = self
            .cluster
            .nodes
            .iter()
            .position(|node| node.name == name)?;
        self.cluster.nodes.remove(position);
        Some(position)
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
    let namespaces = cluster.namespaces.len() - before.namespaces;
    let others = base.workloads.len() != before.workloads
        || base.hpas.len() != before.hpas
        || cluster.services.len() != before.services
        || cluster.controllers.len() != before.controllers
        || cluster.pdbs.len() != before.pdbs
        || !Arc::ptr_eq(&cluster.storage, &before.storage);
    match (pods, nodes + namespaces, others) {
        (0, 0, false) => Applied::Nothing,
        (0, 1, false) if namespaces == 1 => {
            match place_by_name(&mut base.cluster.namespaces, |n| &n.name) {
                Some((index, _)) => Applied::Namespace(index),
                None => {
                    base.truncate(before);
                    Applied::Unsupported
                }
            }
        }
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
        (0, 1, false) => match place_by_name(&mut base.cluster.nodes, |n| &n.name) {
            Some((index, true)) => Applied::NewNode(index),
            Some((index, false)) => Applied::Node(index),
            None => {
                base.truncate(before);
                Applied::Unsupported
            }
        },
        _ => {
            base.truncate(before);
            Applied::Unsupported
        }
    }
}

/// Moves the object just loaded (the last of `items`) to where a fresh read lists it: in place
/// of the one of the same name, or, new, in the name order a watched cluster lists nodes and
/// namespaces in. Its index, and whether it is new; `None`, with `items` as they were, when a
/// new one has no place (the others are not in name order).
fn place_by_name<T>(items: &mut Vec<T>, name: impl Fn(&T) -> &String) -> Option<(usize, bool)> {
    let item = items.pop()?;
    if let Some(index) = items.iter().position(|other| name(other) == name(&item)) {
        items[index] = item;
        return Some((index, false));
    }
    if !items.windows(2).all(|pair| name(&pair[0]) < name(&pair[1])) {
        items.push(item);
        return None;
    }
    let index = items.partition_point(|other| name(other) < name(&item));
    items.insert(index, item);
    Some((index, true))
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
