//! Every mutation an object undergoes between `kubectl apply` and the scheduler, in one place:
//! API-server defaulting and admission (Kubernetes v1.35, default feature gates and admission
//! plugins) and the few labels controllers add to the pods they create. One function or block per
//! rule, each citing the upstream file.
//!
//! Bound pods read from a snapshot went through all of this when they were created; [`admit_pod`]
//! is idempotent, so it is applied to them too: a real snapshot is unchanged, and a hand-written
//! bound pod (only `limits`, no default tolerations) is stored as the API server would store it.
//! Workload templates and the pods created from them are admitted as well.

use std::collections::BTreeMap;

use spreadlab_engine::model::{
    Labels, Operator, Pod, PodAffinity, PreemptionPolicy, Requirement, Selector, TaintEffect,
    Toleration, TolerationOperator,
};

// ---------------------------------------------------------------------------------------------
// Pod admission
// ---------------------------------------------------------------------------------------------

/// `node.kubernetes.io/not-ready`.
pub const TAINT_NODE_NOT_READY: &str = "node.kubernetes.io/not-ready";
/// `node.kubernetes.io/unreachable`.
pub const TAINT_NODE_UNREACHABLE: &str = "node.kubernetes.io/unreachable";

/// Applies the API server's pod mutations at creation. Idempotent: admitting an admitted pod again
/// changes nothing, so a pod built from an admitted template can be admitted once more after the
/// controller's per-pod labels are added.
pub fn admit_pod(pod: &mut Pod) {
    default_requests_from_limits(pod);
    default_host_network_ports(pod);
    merge_spread_match_label_keys(pod);
    merge_affinity_label_keys(pod);
    add_default_tolerations(pod);
}

/// Rule 1. `pkg/apis/core/v1/defaults.go` `SetDefaults_Pod`: for every container and init
/// container, each `limits` entry without a `requests` entry gets request = limit (any resource
/// name). Pods only, not templates: it happens when the controller creates the pod.
fn default_requests_from_limits(pod: &mut Pod) {
    for container in pod
        .containers
        .iter_mut()
        .chain(pod.init_containers.iter_mut())
    {
        for (name, limit) in &container.limits {
            container.requests.entry(name.clone()).or_insert(*limit);
        }
    }
}

/// Rule 2. `pkg/apis/core/v1/defaults.go` `SetDefaults_Pod` (`defaultHostNetworkPorts`): with
/// `hostNetwork: true`, every container and init container port whose `hostPort` is 0 gets
/// `hostPort = containerPort`.
fn default_host_network_ports(pod: &mut Pod) {
    if !pod.host_network {
        return;
    }
    for container in pod
        .containers
        .iter_mut()
        .chain(pod.init_containers.iter_mut())
    {
        for port in &mut container.ports {
            if port.host_port == 0 {
                port.host_port = port.container_port;
            }
        }
    }
}

/// ANDs `extra` onto a selector, skipping requirements it already has (so admission stays
/// idempotent; validation forbids a key in both `matchLabelKeys` and the selector, so nothing
/// the API server would keep twice is lost). A nil selector stays nil.
fn and_new(selector: &Selector, extra: Vec<Requirement>) -> Selector {
    match selector {
        Selector::Nothing => Selector::Nothing,
        Selector::Requirements(existing) => {
            let fresh: Vec<Requirement> = extra
                .into_iter()
                .filter(|r| !existing.contains(r))
                .collect();
            if fresh.is_empty() {
                selector.clone()
            } else {
                selector.and(fresh)
            }
        }
    }
}

/// `key <operator> [pod's value]` for each key present in the pod's labels; absent keys skipped.
fn requirements_from_keys(
    labels: &Labels,
    keys: &[String],
    operator: Operator,
) -> Vec<Requirement> {
    keys.iter()
        .filter_map(|key| labels.get(key).map(|value| (key, value)))
        .filter_map(|(key, value)| {
            Requirement::new(key.clone(), operator, vec![value.clone()]).ok()
        })
        .collect()
}

/// Rule 3. `pkg/registry/core/pod/strategy.go` (`PrepareForCreate`, gate
/// MatchLabelKeysInPodTopologySpreadSelectorMerge, beta and on since v1.34): for each spread
/// constraint with a non-nil `labelSelector`, each `matchLabelKeys` key present in the pod's
/// labels appends `key In [value]` to the selector. A nil selector is left alone.
fn merge_spread_match_label_keys(pod: &mut Pod) {
    for constraint in &mut pod.topology_spread_constraints {
        if constraint.match_label_keys.is_empty() {
            continue;
        }
        let extra = requirements_from_keys(&pod.labels, &constraint.match_label_keys, Operator::In);
        constraint.selector = and_new(&constraint.selector, extra);
    }
}

/// Rule 4. `pkg/registry/core/pod/strategy.go` (`applyMatchLabelKeysAndMismatchLabelKeys`, gate
/// MatchLabelKeysInPodAffinity, GA and locked on since v1.33): for every required and preferred
/// pod affinity and anti-affinity term with a non-nil `labelSelector`, `matchLabelKeys` keys
/// present on the pod append `key In [value]` and `mismatchLabelKeys` keys `key NotIn [value]`.
fn merge_affinity_label_keys(pod: &mut Pod) {
    let labels = pod.labels.clone();
    let merge = |affinity: &mut PodAffinity| {
        let terms = affinity.required.iter_mut().chain(
            affinity
                .preferred
                .iter_mut()
                .map(|weighted| &mut weighted.term),
        );
        for term in terms {
            let mut extra = requirements_from_keys(&labels, &term.match_label_keys, Operator::In);
            extra.extend(requirements_from_keys(
                &labels,
                &term.mismatch_label_keys,
                Operator::NotIn,
            ));
            if !extra.is_empty() {
                term.selector = and_new(&term.selector, extra);
            }
        }
    };
    if let Some(affinity) = pod.affinity.pod_affinity.as_mut() {
        merge(affinity);
    }
    if let Some(anti_affinity) = pod.affinity.pod_anti_affinity.as_mut() {
        merge(anti_affinity);
    }
}

/// Rule 5. `plugin/pkg/admission/defaulttolerationseconds/admission.go` (DefaultTolerationSeconds,
/// on by default): unless a toleration already covers the key (or has an empty key) with effect
/// `NoExecute` (or an empty effect), add `node.kubernetes.io/not-ready:NoExecute` and then
/// `node.kubernetes.io/unreachable:NoExecute`, operator `Exists`, `tolerationSeconds: 300` (the
/// engine's model has no `tolerationSeconds`: it only matters for eviction, not placement).
fn add_default_tolerations(pod: &mut Pod) {
    let covers = |key: &str| {
        pod.tolerations.iter().any(|t| {
            (t.key == key || t.key.is_empty())
                && matches!(t.effect, None | Some(TaintEffect::NoExecute))
        })
    };
    let missing: Vec<&str> = [TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE]
        .into_iter()
        .filter(|key| !covers(key))
        .collect();
    for key in missing {
        pod.tolerations.push(Toleration {
            key: key.to_owned(),
            operator: TolerationOperator::Exists,
            value: String::new(),
            effect: Some(TaintEffect::NoExecute),
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Node defaulting
// ---------------------------------------------------------------------------------------------

/// Rule 7. `pkg/apis/core/v1/defaults.go` (`SetDefaults_NodeStatus`): a Node whose
/// `status.allocatable` is absent gets a copy of `status.capacity` (an explicit, even empty,
/// `allocatable` is kept). Applied to the API object before conversion; returns whether it
/// defaulted (conversion errors then name `status.capacity`). Verified with the oracle: a node
/// with only `capacity` takes pods there.
pub(crate) fn default_node_allocatable(node: &mut k8s_openapi::api::core::v1::Node) -> bool {
    match node.status.as_mut() {
        Some(status) if status.allocatable.is_none() && status.capacity.is_some() => {
            status.allocatable = status.capacity.clone();
            true
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Priority (admission plugin `Priority`)
// ---------------------------------------------------------------------------------------------

/// A PriorityClass as the Priority admission plugin reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PriorityClass {
    pub value: i32,
    pub global_default: bool,
    /// `preemptionPolicy`; `pkg/apis/scheduling/v1/defaults.go` defaults it to
    /// `PreemptLowerPriority`.
    pub preemption_policy: PreemptionPolicy,
}

/// The PriorityClasses known to a load, with the two the API server always creates
/// (`pkg/apis/scheduling/types.go`: `system-node-critical` 2000001000, `system-cluster-critical`
/// 2000000000).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PriorityClasses {
    classes: BTreeMap<String, PriorityClass>,
}

impl Default for PriorityClasses {
    fn default() -> PriorityClasses {
        let system = |value| PriorityClass {
            value,
            global_default: false,
            preemption_policy: PreemptionPolicy::PreemptLowerPriority,
        };
        let classes = BTreeMap::from([
            ("system-node-critical".to_owned(), system(2_000_001_000)),
            ("system-cluster-critical".to_owned(), system(2_000_000_000)),
        ]);
        PriorityClasses { classes }
    }
}

impl PriorityClasses {
    /// Adds (or replaces) a class.
    pub fn insert(&mut self, name: String, class: PriorityClass) {
        self.classes.insert(name, class);
    }

    /// `plugin/pkg/admission/priority/admission.go` (`admitPod`): a named class gives its value and
    /// preemption policy; no name gives the global default class (the lowest value if several
    /// are marked default), else priority 0 and `PreemptLowerPriority`. `None` for an unknown
    /// name (the API server rejects such a pod).
    pub fn resolve(&self, class_name: Option<&str>) -> Option<(i32, PreemptionPolicy)> {
        match class_name.filter(|name| !name.is_empty()) {
            Some(name) => self
                .classes
                .get(name)
                .map(|class| (class.value, class.preemption_policy)),
            None => {
                let default = self
                    .classes
                    .values()
                    .filter(|class| class.global_default)
                    .min_by_key(|class| class.value);
                Some(
                    default.map_or((0, PreemptionPolicy::PreemptLowerPriority), |class| {
                        (class.value, class.preemption_policy)
                    }),
                )
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Workload defaulting (API server) and controller-added labels
// ---------------------------------------------------------------------------------------------

/// `pkg/apis/apps/v1/defaults.go` (`SetDefaults_Deployment`, `_ReplicaSet`, `_StatefulSet`) and
/// `pkg/apis/core/v1/defaults.go` (`SetDefaults_ReplicationController`): `replicas` defaults to 1.
pub(crate) fn default_replicas(replicas: Option<i32>) -> i32 {
    replicas.unwrap_or(1)
}

/// `pkg/apis/batch/v1/defaults.go` (`SetDefaults_Job`): with neither set, `completions` and
/// `parallelism` are 1; otherwise `parallelism` defaults to 1. The Job controller
/// (`pkg/controller/job/job_controller.go`, `manageJob`) then runs
/// `min(parallelism, completions - succeeded)` pods at once (`parallelism` alone for a work queue
/// without `completions`), none while `suspend` is true.
pub(crate) fn job_active_pods(
    parallelism: Option<i32>,
    completions: Option<i32>,
    succeeded: i32,
    suspend: bool,
) -> i32 {
    if suspend {
        return 0;
    }
    let (parallelism, completions) = match (parallelism, completions) {
        (None, None) => (1, Some(1)),
        (parallelism, completions) => (parallelism.unwrap_or(1), completions),
    };
    completions
        .map_or(parallelism, |completions| {
            parallelism.min(completions.saturating_sub(succeeded))
        })
        .max(0)
}

/// `pkg/apis/core/v1/defaults.go` (`SetDefaults_ReplicationController`): an absent or empty
/// selector defaults to the template's labels.
pub(crate) fn replication_controller_selector(
    selector: Option<&Labels>,
    template_labels: &Labels,
) -> Selector {
    match selector {
        Some(selector) if !selector.is_empty() => Selector::from_set(selector),
        _ => Selector::from_set(template_labels),
    }
}

/// `kubernetes.io/metadata.name`.
pub const LABEL_NAMESPACE_NAME: &str = "kubernetes.io/metadata.name";

/// `pkg/registry/core/namespace/strategy.go` (`PrepareForCreate`/`PrepareForUpdate`, GA since
/// v1.22): every Namespace carries `kubernetes.io/metadata.name=<name>`.
pub(crate) fn default_namespace_labels(name: &str, labels: &mut Labels) {
    labels.insert(LABEL_NAMESPACE_NAME.to_owned(), name.to_owned());
}

/// `pod-template-hash`.
pub const LABEL_POD_TEMPLATE_HASH: &str = "pod-template-hash";
/// `controller-revision-hash` (StatefulSet and DaemonSet pods).
pub const LABEL_CONTROLLER_REVISION_HASH: &str = "controller-revision-hash";
/// `statefulset.kubernetes.io/pod-name`.
pub const LABEL_STATEFULSET_POD_NAME: &str = "statefulset.kubernetes.io/pod-name";
/// `apps.kubernetes.io/pod-index`.
pub const LABEL_POD_INDEX: &str = "apps.kubernetes.io/pod-index";
/// `batch.kubernetes.io/controller-uid`.
pub const LABEL_JOB_CONTROLLER_UID: &str = "batch.kubernetes.io/controller-uid";
/// `batch.kubernetes.io/job-name`.
pub const LABEL_JOB_NAME: &str = "batch.kubernetes.io/job-name";

/// `k8s.io/apimachinery/pkg/util/rand.SafeEncodeString`'s alphabet (no vowels, no look-alikes).
const SAFE_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// 32-bit FNV-1a.
fn fnv1a32(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// An opaque, stable stand-in for a controller's template hash: FNV-1a over `seed`, printed as 10
/// decimal digits and run through the safe-encoding alphabet (as `SafeEncodeString` does to the
/// decimal hash). The real hash is over the Go-printed template and is not reproducible.
pub fn template_hash(seed: &str) -> String {
    format!("{:010}", fnv1a32(seed))
        .bytes()
        .map(|digit| SAFE_ALPHABET[usize::from(digit) % SAFE_ALPHABET.len()] as char)
        .collect()
}

/// Rule 6. `pkg/controller/deployment/sync.go` (`getNewReplicaSet`) with
/// `pkg/controller/controller_utils.go` (`ComputeHash`): the Deployment controller's ReplicaSet,
/// and so every pod, gets `pod-template-hash=<hash>` in its template labels and selector. Here
/// the hash is [`template_hash`] of the workload key. Returns the hash.
pub(crate) fn add_pod_template_hash(
    workload_key: &str,
    template_labels: &mut Labels,
    selector: &mut Selector,
) -> String {
    let hash = template_hash(workload_key);
    template_labels.insert(LABEL_POD_TEMPLATE_HASH.to_owned(), hash.clone());
    *selector = selector.and([Requirement::equals(LABEL_POD_TEMPLATE_HASH, hash.clone())]);
    hash
}

/// `pkg/controller/statefulset/stateful_set_utils.go` (`newVersionedStatefulSetPod`,
/// `initIdentity`; gate PodIndexLabel GA since v1.32): a StatefulSet pod gets its name, its ordinal
/// and the current revision (`<set>-<hash>`) as labels before it is created. A template that
/// already carries a revision (the live one, `load/revisions.rs`) keeps it; otherwise the hash
/// is a stand-in.
pub(crate) fn add_stateful_set_pod_labels(
    set_key: &str,
    set_name: &str,
    pod_name: &str,
    ordinal: i32,
    labels: &mut Labels,
) {
    labels.insert(LABEL_STATEFULSET_POD_NAME.to_owned(), pod_name.to_owned());
    labels.insert(LABEL_POD_INDEX.to_owned(), ordinal.to_string());
    labels
        .entry(LABEL_CONTROLLER_REVISION_HASH.to_owned())
        .or_insert_with(|| format!("{set_name}-{}", template_hash(set_key)));
}

/// `pkg/registry/batch/job/strategy.go` (`generateSelector`): a Job without `manualSelector`
/// gets a `controller-uid` from its UID, in its selector and (with `job-name`, new and legacy
/// spellings) in its template labels. Here the UID is an opaque stable stand-in derived from the
/// workload key. Returns the generated selector.
pub(crate) fn generate_job_selector(
    job_key: &str,
    job_name: &str,
    template_labels: &mut Labels,
) -> Selector {
    let uid = stand_in_uid(job_key);
    for (key, value) in [
        (LABEL_JOB_CONTROLLER_UID, uid.as_str()),
        ("controller-uid", uid.as_str()),
        (LABEL_JOB_NAME, job_name),
        ("job-name", job_name),
    ] {
        template_labels.insert(key.to_owned(), value.to_owned());
    }
    Selector::from_set(&Labels::from([(LABEL_JOB_CONTROLLER_UID.to_owned(), uid)]))
}

/// A UUID-shaped stand-in, stable per seed.
fn stand_in_uid(seed: &str) -> String {
    let parts: Vec<u32> = (0..4)
        .map(|salt| fnv1a32(&format!("{salt}/{seed}")))
        .collect();
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:04x}{:08x}",
        parts[0],
        parts[1] >> 16,
        parts[1] & 0xffff,
        parts[2] >> 16,
        parts[2] & 0xffff,
        parts[3]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use spreadlab_engine::model::{
        Container, ContainerPort, PodAffinityTerm, TopologySpreadConstraint,
        WeightedPodAffinityTerm, WhenUnsatisfiable,
    };

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn limits_become_missing_requests_only() {
        let mut pod = Pod::named("ns", "p");
        pod.containers.push(Container {
            requests: BTreeMap::from([("cpu".to_owned(), 100)]),
            limits: BTreeMap::from([
                ("cpu".to_owned(), 500),
                ("memory".to_owned(), 1 << 30),
                ("example.com/foo".to_owned(), 2),
            ]),
            ..Container::default()
        });
        pod.init_containers.push(Container {
            limits: BTreeMap::from([("cpu".to_owned(), 200)]),
            ..Container::default()
        });
        admit_pod(&mut pod);
        assert_eq!(
            pod.containers[0].requests,
            BTreeMap::from([
                ("cpu".to_owned(), 100),
                ("memory".to_owned(), 1 << 30),
                ("example.com/foo".to_owned(), 2)
            ])
        );
        assert_eq!(pod.init_containers[0].requests["cpu"], 200);
    }

    #[test]
    fn host_network_ports_default_to_container_ports() {
        let port = |host_port| ContainerPort {
            host_port,
            host_ip: String::new(),
            protocol: String::new(),
            container_port: 8080,
        };
        let mut pod = Pod::named("ns", "p");
        pod.containers.push(Container {
            ports: vec![port(0), port(9090)],
            ..Container::default()
        });
        let mut without = pod.clone();
        pod.host_network = true;
        admit_pod(&mut pod);
        assert_eq!(
            pod.containers[0]
                .ports
                .iter()
                .map(|p| p.host_port)
                .collect::<Vec<_>>(),
            vec![8080, 9090]
        );
        admit_pod(&mut without);
        assert_eq!(without.containers[0].ports[0].host_port, 0);
    }

    #[test]
    fn spread_match_label_keys_merge_into_non_nil_selectors() {
        let mut pod = Pod::named("ns", "p");
        pod.labels = labels(&[("app", "web"), ("pod-template-hash", "abc")]);
        let constraint = |selector| TopologySpreadConstraint {
            max_skew: 1,
            topology_key: "zone".into(),
            when_unsatisfiable: WhenUnsatisfiable::DoNotSchedule,
            selector,
            min_domains: None,
            node_affinity_policy: None,
            node_taints_policy: None,
            match_label_keys: vec!["pod-template-hash".into(), "absent".into()],
        };
        pod.topology_spread_constraints
            .push(constraint(Selector::from_set(&labels(&[("app", "web")]))));
        pod.topology_spread_constraints
            .push(constraint(Selector::Nothing));
        admit_pod(&mut pod);
        let expected = Selector::from_set(&labels(&[("app", "web"), ("pod-template-hash", "abc")]));
        assert_eq!(pod.topology_spread_constraints[0].selector, expected);
        assert_eq!(
            pod.topology_spread_constraints[1].selector,
            Selector::Nothing
        );
        // Idempotent.
        let once = pod.clone();
        admit_pod(&mut pod);
        assert_eq!(pod, once);
    }

    #[test]
    fn affinity_match_and_mismatch_label_keys() {
        let mut pod = Pod::named("ns", "p");
        pod.labels = labels(&[("tenant", "t1"), ("app", "web")]);
        let term = |selector| PodAffinityTerm {
            selector,
            topology_key: "zone".into(),
            namespaces: vec![],
            namespace_selector: None,
            match_label_keys: vec!["app".into()],
            mismatch_label_keys: vec!["tenant".into()],
            parse_error: None,
        };
        pod.affinity.pod_anti_affinity = Some(PodAffinity {
            required: vec![term(Selector::everything())],
            preferred: vec![WeightedPodAffinityTerm {
                weight: 10,
                term: term(Selector::Nothing),
            }],
        });
        admit_pod(&mut pod);
        let anti = pod.affinity.pod_anti_affinity.as_ref().unwrap();
        assert_eq!(
            anti.required[0].selector,
            Selector::Requirements(vec![
                Requirement::equals("app", "web"),
                Requirement::new("tenant", Operator::NotIn, vec!["t1".into()]).unwrap(),
            ])
        );
        assert_eq!(anti.preferred[0].term.selector, Selector::Nothing);
    }

    #[test]
    fn default_tolerations_unless_already_tolerated() {
        let mut pod = Pod::named("ns", "p");
        admit_pod(&mut pod);
        assert_eq!(pod.tolerations.len(), 2);
        assert_eq!(pod.tolerations[0].key, TAINT_NODE_NOT_READY);
        assert_eq!(pod.tolerations[1].key, TAINT_NODE_UNREACHABLE);
        assert!(
            pod.tolerations
                .iter()
                .all(|t| t.operator == TolerationOperator::Exists
                    && t.effect == Some(TaintEffect::NoExecute))
        );
        // An empty key with an empty effect covers both.
        let mut tolerant = Pod::named("ns", "q");
        tolerant.tolerations.push(Toleration {
            key: String::new(),
            operator: TolerationOperator::Exists,
            value: String::new(),
            effect: None,
        });
        admit_pod(&mut tolerant);
        assert_eq!(tolerant.tolerations.len(), 1);
        // A NoSchedule toleration of not-ready does not cover NoExecute.
        let mut partial = Pod::named("ns", "r");
        partial.tolerations.push(Toleration {
            key: TAINT_NODE_NOT_READY.into(),
            operator: TolerationOperator::Exists,
            value: String::new(),
            effect: Some(TaintEffect::NoSchedule),
        });
        admit_pod(&mut partial);
        assert_eq!(partial.tolerations.len(), 3);
    }

    #[test]
    fn priority_resolution() {
        let mut classes = PriorityClasses::default();
        assert_eq!(
            classes.resolve(None),
            Some((0, PreemptionPolicy::PreemptLowerPriority))
        );
        assert_eq!(
            classes.resolve(Some("system-node-critical")),
            Some((2_000_001_000, PreemptionPolicy::PreemptLowerPriority))
        );
        assert_eq!(classes.resolve(Some("nope")), None);
        classes.insert(
            "high".into(),
            PriorityClass {
                value: 1000,
                global_default: true,
                preemption_policy: PreemptionPolicy::Never,
            },
        );
        classes.insert(
            "low".into(),
            PriorityClass {
                value: 10,
                global_default: true,
                preemption_policy: PreemptionPolicy::PreemptLowerPriority,
            },
        );
        assert_eq!(
            classes.resolve(None),
            Some((10, PreemptionPolicy::PreemptLowerPriority))
        );
        assert_eq!(
            classes.resolve(Some("high")),
            Some((1000, PreemptionPolicy::Never))
        );
    }

    #[test]
    fn job_defaults() {
        assert_eq!(job_active_pods(None, None, 0, false), 1);
        assert_eq!(job_active_pods(None, None, 1, false), 0);
        assert_eq!(job_active_pods(Some(5), None, 0, false), 5);
        assert_eq!(job_active_pods(Some(5), Some(3), 0, false), 3);
        assert_eq!(job_active_pods(Some(5), Some(8), 6, false), 2);
        assert_eq!(job_active_pods(None, Some(4), 0, false), 1);
        assert_eq!(job_active_pods(Some(5), Some(3), 0, true), 0);
    }

    #[test]
    fn node_allocatable_defaults_to_capacity_only_when_absent() {
        use k8s_openapi::api::core::v1::{Node, NodeStatus};
        use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
        let list = |cpu: &str| BTreeMap::from([("cpu".to_owned(), Quantity(cpu.to_owned()))]);
        let node = |capacity: Option<&str>, allocatable: Option<BTreeMap<String, Quantity>>| Node {
            status: Some(NodeStatus {
                capacity: capacity.map(list),
                allocatable,
                ..NodeStatus::default()
            }),
            ..Node::default()
        };
        let allocatable = |node: &Node| node.status.as_ref().unwrap().allocatable.clone();

        let mut capacity_only = node(Some("4"), None);
        assert!(default_node_allocatable(&mut capacity_only));
        assert_eq!(allocatable(&capacity_only), Some(list("4")));

        let mut both = node(Some("4"), Some(list("3500m")));
        assert!(!default_node_allocatable(&mut both));
        assert_eq!(allocatable(&both), Some(list("3500m")));

        let mut explicitly_empty = node(Some("4"), Some(BTreeMap::new()));
        assert!(!default_node_allocatable(&mut explicitly_empty));
        assert_eq!(allocatable(&explicitly_empty), Some(BTreeMap::new()));

        let mut neither = node(None, None);
        assert!(!default_node_allocatable(&mut neither));
        assert_eq!(allocatable(&neither), None);
        let mut no_status = Node::default();
        assert!(!default_node_allocatable(&mut no_status));
        assert!(no_status.status.is_none());
    }

    #[test]
    fn loaded_node_without_allocatable_uses_capacity() {
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus: {capacity: {cpu: \"2\", pods: \"110\"}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: b}\nstatus: {capacity: {cpu: lots}}\n";
        let loaded = crate::load(
            &[crate::Source {
                name: "nodes.yaml".into(),
                text: text.into(),
            }],
            &crate::LoadOptions::default(),
        );
        assert_eq!(loaded.cluster.nodes.len(), 1);
        assert_eq!(loaded.cluster.nodes[0].allocatable["cpu"], 2000);
        assert_eq!(loaded.cluster.nodes[0].allocatable["pods"], 110);
        // A bad quantity copied from capacity is reported where it was written.
        assert_eq!(loaded.errors.len(), 1);
        assert_eq!(
            loaded.errors[0].path.as_deref(),
            Some("status.capacity.cpu"),
            "{}",
            loaded.errors[0]
        );
    }

    #[test]
    fn template_hash_is_stable_and_safe() {
        let hash = template_hash("Deployment/default/web");
        assert_eq!(hash.len(), 10);
        assert!(hash.bytes().all(|b| SAFE_ALPHABET.contains(&b)));
        assert_eq!(hash, template_hash("Deployment/default/web"));
        assert_ne!(hash, template_hash("Deployment/default/api"));
        // FNV-1a 32 of the empty string is the offset basis 2166136261.
        assert_eq!(fnv1a32(""), 2_166_136_261);
        assert_eq!(fnv1a32("a"), 0xe40c_292c);
    }
}
