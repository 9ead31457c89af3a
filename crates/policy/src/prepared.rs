//! A cluster read and loaded once for many decisions (`spreadlab serve` keeps one per state of
//! its snapshot files or watched cluster). A decision loads only the admitted object onto it
//! (`spreadlab_k8s::load_onto`) and places the object's replicas on a shared engine snapshot
//! (`Snapshot::mark`, `scheduler::simulate_on`), then takes both back (`Loaded::truncate`,
//! `Snapshot::rollback`): the same load and the same placement a whole read would make, without
//! re-reading, re-loading or re-building the cluster. Checks that follow more than the
//! replicas' placement (lint, zone loss, a rollout over running replicas, claims) read the
//! cluster source as [`crate::decide`] does (a test decides every fixture both ways). A watched
//! cluster's pod, node and namespace changes (additions and deletions too) are applied to it in
//! place ([`Prepared::advance`]), leaving it as a fresh read of the changed cluster would be.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use spreadlab_engine::KubeVersion;
use spreadlab_engine::framework::Snapshot;
use spreadlab_engine::scheduler;
use spreadlab_k8s::slim::SlimPod;
use spreadlab_k8s::{Loaded, Object, ObjectChange, Workload};

use crate::checks;
use crate::decide::{self, Problem};
use crate::request::{Admission, Kind};
use crate::settings::Settings;
use crate::snapshot::ClusterSource;

/// A cluster source with its objects loaded once, for many decisions ([`crate::decide::decide_prepared`]).
pub struct Prepared {
    /// The source as of the last change applied (checks that read more read it).
    source: Mutex<Arc<dyn ClusterSource + Send + Sync>>,
    state: Mutex<State>,
}

/// The loaded cluster and the engine's snapshot of it, one per release asked for.
struct State {
    base: Loaded,
    snapshots: BTreeMap<KubeVersion, Snapshot>,
    /// How many objects a read of the source gives (the slow path's bound on the cluster's size).
    objects: usize,
    /// The loaded cluster lists its pods in key order (`Loaded::pods_by_key`: a watched
    /// cluster's read); changes are applied only then.
    by_key: bool,
    /// A change could not be applied whole: decisions read the source until the model is
    /// built again.
    broken: bool,
}

/// One object of the cluster source that changed since it was read: its kind, and its old and
/// new state (`None`: not there), both as the source lists them.
#[derive(Clone, Debug)]
pub struct Change {
    /// Its kind.
    pub kind: ChangedKind,
    /// Before.
    pub old: Option<Arc<Value>>,
    /// After.
    pub new: Option<Arc<Value>>,
}

/// The kinds [`Prepared::advance`] applies changes of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangedKind {
    /// A Pod.
    Pod,
    /// A Node.
    Node,
    /// A Namespace.
    Namespace,
}

impl Prepared {
    /// Reads and loads the kinds every decision reads (Nodes, bound Pods, Namespaces,
    /// PriorityClasses, Services) from `source`.
    pub fn new(source: Arc<dyn ClusterSource + Send + Sync>) -> Result<Prepared, Problem> {
        let objects = decide::read_base(source.as_ref(), None)?;
        let count = objects.len();
        let mut base = spreadlab_k8s::load_objects(
            decide::CLUSTER_ORIGIN,
            objects,
            &decide::load_options("default"),
        );
        // Each decision looks for the admitted workload's running pods (its revision, its
        // replicas to create, its domains): through the index, not every pod.
        base.index_pods();
        let by_key = base.pods_by_key();
        Ok(Prepared {
            source: Mutex::new(source),
            state: Mutex::new(State {
                base,
                snapshots: BTreeMap::new(),
                objects: count,
                by_key,
                broken: false,
            }),
        })
    }

    /// The source the cluster was read from (as of the last change applied).
    pub fn source(&self) -> Arc<dyn ClusterSource + Send + Sync> {
        Arc::clone(&self.source.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Applies `changes`, which moved the cluster to `source`, in place: the loaded cluster and
    /// every snapshot become what a fresh read of `source` builds (`spreadlab_k8s::apply_change`:
    /// `Snapshot::add_bound_pod`, `remove_bound_pod`, `update_node`, `insert_node`,
    /// `remove_node`, the snapshot's namespaces). `false`, with nothing changed, when they hold
    /// what cannot be applied so (a pod the source could not list): the caller builds a new
    /// `Prepared` then.
    pub fn advance(
        &self,
        source: Arc<dyn ClusterSource + Send + Sync>,
        changes: &[Change],
    ) -> bool {
        let Ok(mut guard) = self.state.lock() else {
            return false;
        };
        if guard.broken || !guard.by_key {
            return false;
        }
        let Some(parsed) = changes.iter().map(parse).collect::<Option<Vec<_>>>() else {
            return false;
        };
        *self.source.lock().unwrap_or_else(PoisonError::into_inner) = source;
        let state = &mut *guard;
        let options = decide::load_options("default");
        let (warnings, errors) = (state.base.warnings.len(), state.base.errors.len());
        for change in parsed {
            if !apply(state, change, &options) {
                // Read whole again by the caller; until then decisions read the new source.
                state.broken = true;
                return false;
            }
        }
        // What the changed objects' reads said is not kept: no decision reads it, and a stream
        // of changes would grow it without end.
        state.base.warnings.truncate(warnings);
        state.base.errors.truncate(errors);
        // A removed pod leaves its arena slot behind: a snapshot holding more dead slots than
        // live pods is built again from the loaded cluster (once per that many changes).
        let live = state.base.cluster.pods.len();
        let State {
            base, snapshots, ..
        } = state;
        for snapshot in snapshots.values_mut() {
            if snapshot.pods.len() > 2 * live + 1024 {
                *snapshot = Snapshot::new(&base.cluster, snapshot.version).0;
            }
        }
        true
    }

    /// Builds the engine's snapshot for `version` now, so that the first decision does not.
    pub fn warm(&self, version: KubeVersion) {
        if let Ok(mut state) = self.state.lock() {
            let State {
                base, snapshots, ..
            } = &mut *state;
            snapshot_for(snapshots, base, version);
        }
    }

    /// The cluster checks of the admitted `object` (as admitted, mutated), or `None` when they
    /// need more than this prepared cluster holds: the caller reads the source then.
    pub(crate) fn violations(
        &self,
        admission: &Admission,
        object: &Value,
        kind: Kind,
        template_changed: bool,
        settings: &Settings,
    ) -> Option<Result<Vec<String>, Problem>> {
        let follows_more = !settings.lint_rules.is_empty()
            || settings.min_zone_loss_survival.is_some()
            || decide::uses_claims(object);
        if follows_more {
            return None;
        }
        // A decision that panicked midway (a bug) may have left the loaded cluster taken or
        // the snapshot with its replicas: from then on every decision reads the source.
        let Ok(mut guard) = self.state.lock() else {
            return None;
        };
        let State {
            base,
            snapshots,
            objects,
            by_key,
            broken,
        } = &mut *guard;
        if *broken {
            return None;
        }
        if *objects > decide::MAX_CLUSTER_OBJECTS {
            return Some(Err(decide::too_many(*objects)));
        }
        if kind == Kind::Pod
            && base
                .pod_position(&admission.namespace, &admission.name, *by_key)
                .is_some()
        {
            // The slow path leaves the admitted Pod's old copy out of the cluster.
            return None;
        }
        let version = settings.version();
        // Built from the cluster as read, before the object is loaded onto it.
        let snapshot = snapshot_for(snapshots, base, version);
        let mark = spreadlab_k8s::load_onto(
            base,
            decide::CLUSTER_ORIGIN,
            vec![Object::Value(object.clone())],
            &decide::load_options(&admission.namespace),
        );
        let errors = base.errors_since(&mark);
        let mut rebuild = false;
        let result = match decide::admitted_in(base, admission, kind, errors, 0) {
            // Not scheduled (a Pod bound by its author): nothing to check.
            Ok(None) => Some(Ok(Vec::new())),
            Ok(Some(workload)) => {
                let rollout_update = checks::rolls_out(workload) && template_changed;
                let placed = place(workload, base, &mark, snapshot, rollout_update, settings);
                placed.map(|(violations, rolled_back)| {
                    rebuild = !rolled_back;
                    Ok(violations)
                })
            }
            Err(error) => Some(Err(Problem::Object(error))),
        };
        base.truncate(mark);
        if rebuild {
            // A preemption's dry run or victim moved a pod that was there: built again on next use.
            snapshots.remove(&version);
        }
        result
    }
}

/// A change read once: a pod as the source lists pods; a node's or namespace's old name and new
/// state.
enum Parsed<'c> {
    Pod {
        old: Option<Box<SlimPod>>,
        new: Option<Box<SlimPod>>,
    },
    /// A Node or a Namespace.
    Named {
        kind: ChangedKind,
        old: Option<&'c str>,
        new: Option<&'c Value>,
    },
}

/// `change` read, or `None` when it is not one [`apply`] makes exactly: a pod's only when the
/// source can list its new state.
fn parse(change: &Change) -> Option<Parsed<'_>> {
    let pod = |value: &Value| SlimPod::from_value(value).ok().map(Box::new);
    match change.kind {
        ChangedKind::Pod => Some(Parsed::Pod {
            old: change.old.as_deref().and_then(pod),
            new: match change.new.as_deref() {
                None => None,
                Some(new) => Some(pod(new)?),
            },
        }),
        ChangedKind::Node | ChangedKind::Namespace => Some(Parsed::Named {
            kind: change.kind,
            old: change
                .old
                .as_deref()
                .and_then(|old| old["metadata"]["name"].as_str()),
            new: change.new.as_deref(),
        }),
    }
}

/// Applies one change to the loaded cluster and every snapshot (`spreadlab_k8s::apply_change`),
/// reading only bound pods as [`decide::read_base`] does; `false` when the loader read the object
/// otherwise than [`parse`] expected.
fn apply(state: &mut State, change: Parsed<'_>, options: &spreadlab_k8s::LoadOptions) -> bool {
    let State {
        base,
        snapshots,
        objects,
        ..
    } = state;
    let mut snapshots: Vec<&mut Snapshot> = snapshots.values_mut().collect();
    // The old pod, which the change borrows its namespace and name from.
    let old_pod;
    let change = match change {
        Parsed::Pod { old, new } => {
            // Unbound pods are the scheduler's queue, not capacity.
            old_pod = old.filter(|old| old.is_bound());
            let new = new.filter(|new| new.is_bound());
            *objects =
                objects.saturating_sub(usize::from(old_pod.is_some())) + usize::from(new.is_some());
            ObjectChange::Pod {
                old: old_pod.as_deref().map(|old| {
                    (
                        old.namespace().unwrap_or("default"),
                        old.name().unwrap_or_default(),
                    )
                }),
                new: new.map(|new| Object::from(*new)),
            }
        }
        Parsed::Named { kind, old, new } => {
            *objects =
                objects.saturating_sub(usize::from(old.is_some())) + usize::from(new.is_some());
            let new = new.map(|new| Object::Value(new.clone()));
            if kind == ChangedKind::Node {
                ObjectChange::Node { old, new }
            } else {
                ObjectChange::Namespace { old, new }
            }
        }
    };
    spreadlab_k8s::apply_change(
        base,
        &mut snapshots,
        decide::CLUSTER_ORIGIN,
        change,
        options,
    )
}

/// The snapshot of `base` for `version`, built on first use.
fn snapshot_for<'s>(
    snapshots: &'s mut BTreeMap<KubeVersion, Snapshot>,
    base: &Loaded,
    version: KubeVersion,
) -> &'s mut Snapshot {
    snapshots
        .entry(version)
        .or_insert_with(|| Snapshot::new(&base.cluster, version).0)
}

/// Places `workload`'s missing replicas on `snapshot` and checks them as
/// `checks::cluster_violations` does on a settled cluster, then rolls the snapshot back: the
/// violations, and whether the rollback could be made. `None` when the checks need more (a
/// rollout over running replicas, or its stall).
fn place(
    workload: &Workload,
    base: &Loaded,
    mark: &spreadlab_k8s::LoadMark,
    snapshot: &mut Snapshot,
    rollout_update: bool,
    settings: &Settings,
) -> Option<(Vec<String>, bool)> {
    let running = base.running_pods(workload);
    let analysed = checks::analysed_beside(workload, &base.cluster, &running, rollout_update);
    if rollout_update && (settings.reject_rollout_stall || !analysed.running.is_empty()) {
        return None;
    }
    if !settings.reject_pending && !settings.counts_domains() {
        return Some((Vec::new(), true));
    }
    let options = decide::options(settings);
    let snapshot_mark = snapshot.mark();
    snapshot
        .controllers
        .extend(base.controllers_since(mark).iter().cloned());
    let decisions = scheduler::simulate_on(snapshot, &analysed.to_create, &options);
    let mut violations = Vec::new();
    let pending: Vec<&scheduler::PodDecision> =
        decisions.iter().filter(|d| d.node.is_none()).collect();
    if settings.reject_pending
        && let Some(first) = pending.first()
    {
        violations.push(checks::pending_violation(
            pending.len().saturating_add(analysed.not_built),
            analysed.desired,
            first.message.as_deref(),
        ));
    }
    if settings.counts_domains() {
        // The nodes the replicas run on: the running ones', then the placed ones'.
        let nodes: BTreeSet<&str> = running
            .iter()
            .filter_map(|pod| pod.node_name.as_deref())
            .chain(decisions.iter().filter_map(|d| d.node.as_deref()))
            .collect();
        violations.extend(checks::domains_violations(
            settings,
            analysed.desired,
            |key| {
                nodes
                    .iter()
                    .filter_map(|node| snapshot.node_index.get(*node))
                    .filter_map(|&index| snapshot.nodes[index].node.labels.get(key))
                    .cloned()
                    .collect()
            },
        ));
    }
    let rolled_back = snapshot.rollback(snapshot_mark);
    Some((violations, rolled_back))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FixtureCluster;
    use serde_json::json;

    /// A long stream of pod changes keeps the snapshot's arena bounded (dead slots are dropped by
    /// building it again) and the warnings of the changed objects' reads unkept.
    #[test]
    fn a_long_stream_of_changes_keeps_the_model_bounded() {
        let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}});
        let source = Arc::new(FixtureCluster::new(vec![node]));
        let prepared = Prepared::new(source.clone()).unwrap();
        prepared.warm(KubeVersion::DEFAULT);
        // An unknown PriorityClass: each read of the pod warns.
        let pod = Arc::new(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {"nodeName": "a", "priorityClassName": "missing",
                     "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}));
        for round in 0..5_000 {
            let (old, new) = if round % 2 == 0 {
                (None, Some(pod.clone()))
            } else {
                (Some(pod.clone()), None)
            };
            let change = Change {
                kind: ChangedKind::Pod,
                old,
                new,
            };
            assert!(prepared.advance(source.clone(), &[change]), "round {round}");
        }
        let state = prepared.state.lock().unwrap();
        let snapshot = &state.snapshots[&KubeVersion::DEFAULT];
        assert!(
            snapshot.pods.len() <= 1024 + 1,
            "{} slots",
            snapshot.pods.len()
        );
        assert!(
            state.base.warnings.is_empty(),
            "{} warnings kept",
            state.base.warnings.len()
        );
        assert!(state.base.cluster.pods.is_empty());
        assert_eq!(snapshot.nodes[0].pods.len(), 0);
    }
}
