//! spreadlab-k8s: the one door through which Kubernetes API objects enter spreadlab.
//!
//! It reads text (multi-document YAML, JSON, `kind: List`, `kubectl get -o yaml|json`, `helm
//! template` output), types it with `k8s-openapi`, converts it into
//! [`spreadlab_engine::model`] and applies what the API server and controllers would do to it
//! ([`admission`], one commented module). Bad documents are reported with file, document, object,
//! field path and line, and skipped; loading goes on.
//!
//! Layers, from the bottom:
//! - `yaml` / `raw`: text to untyped documents, with size, count, depth and alias bounds
//!   (`yaml` is the only user of the YAML crate);
//! - [`convert_pod`] / [`convert_node`]: `k8s-openapi` types to the engine model, as written;
//! - [`admission`]: API-server defaulting and admission, controller-added labels;
//! - `load`: dispatch by kind into a [`Loaded`] cluster and its [`Workload`]s.
//!
//! `k8s-openapi` is used without a version feature: the final binary chooses the Kubernetes API
//! version (spreadlab targets 1.35).

pub mod admission;
mod changes;
mod convert;
mod error;
mod load;
mod locate;
mod locate_json;
mod pod_index;
mod polyaxon;
mod raw;
pub mod revision;
pub mod slim;
mod workload;
mod yaml;

/// The corpus and scenario files the unit tests read (the same file the integration tests use).
#[cfg(test)]
#[path = "../tests/common/files.rs"]
mod test_files;

pub use admission::admit_pod;
pub use changes::{ObjectChange, apply_change};
pub use convert::{convert_node, convert_pod, selector_parse_errors};
pub use error::{ConvertError, InputError, InputWarning};
pub use workload::{Origin, Workload, WorkloadKind};
pub use yaml::{CacheReads, DocumentCache, Warmup, WarmupProgress};

use spreadlab_engine::model::Cluster;

use crate::load::Loader;
use crate::raw::Limits;

/// One text to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// A file path, or `-` for stdin; used in messages only.
    pub name: String,
    /// The whole text.
    pub text: String,
}

/// Bounds and defaults for a load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// The namespace of objects that name none (cluster-scoped kinds have none).
    pub default_namespace: String,
    /// Largest source accepted, in bytes (each source on its own).
    pub max_bytes: usize,
    /// Most objects read in one load (documents, and each item of a List); past it, one error and
    /// the rest is not read.
    pub max_documents: usize,
    /// Deepest nesting of mappings and sequences accepted in a document.
    pub max_depth: usize,
    /// What a field the API types do not have is (kubectl's `--validate`).
    pub field_validation: FieldValidation,
    /// The release the answers are for, when chosen: a node whose kubelet runs another minor
    /// release gets a warning. `None`: no check.
    pub kubernetes_version: Option<spreadlab_engine::KubeVersion>,
}

/// What a field the API types do not know is, as kubectl's `--validate` (and the API server's
/// `fieldValidation`) decide: a misspelled or wrongly cased field changes nothing the API server
/// stores, so reading on silently would answer for an object the user did not write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    /// An input error (kubectl's default, `--validate=strict`).
    #[default]
    Strict,
    /// A warning (`--validate=warn`), e.g. for dumps from a newer cluster, or for objects the API
    /// server already accepted (the admission policy).
    Warn,
    /// Dropped silently (`--validate=ignore`).
    Ignore,
}

impl Default for LoadOptions {
    /// `default`, 64 MiB, 100,000 documents, depth 64, strict field validation.
    fn default() -> LoadOptions {
        LoadOptions {
            default_namespace: String::from("default"),
            max_bytes: 64 * 1024 * 1024,
            max_documents: 100_000,
            max_depth: 64,
            field_validation: FieldValidation::Strict,
            kubernetes_version: None,
        }
    }
}

impl LoadOptions {
    pub(crate) fn limits(&self) -> Limits {
        Limits {
            max_documents: self.max_documents,
            max_depth: self.max_depth,
        }
    }
}

/// Everything a load produced.
///
/// - `cluster`: Nodes; bound Pods (`spec.nodeName` set; terminal ones kept, the engine drops
///   them; admitted again, which changes nothing on a real snapshot: [`admit_pod`]); Namespaces (with the
///   `kubernetes.io/metadata.name` label); Services; ReplicaSets, StatefulSets and
///   ReplicationControllers as controllers, plus the ReplicaSet each Deployment's controller
///   would create (`<name>-<pod-template-hash>`); PodDisruptionBudgets.
/// - `workloads`: Deployments, ReplicaSets, StatefulSets, Jobs, Polyaxon services and unbound
///   Pods, in reading order. Left out, because another workload already stands for them: a
///   ReplicaSet owned by a loaded Deployment (it stays a controller in `cluster`), and an unbound,
///   live Pod that a loaded Deployment, ReplicaSet, StatefulSet or Job selects.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    /// The cluster snapshot.
    pub cluster: Cluster,
    /// What to place.
    pub workloads: Vec<Workload>,
    /// Things loaded, but maybe not as meant; and kinds skipped.
    pub warnings: Vec<InputWarning>,
    /// Documents and objects rejected and skipped.
    pub errors: Vec<InputError>,
    /// HorizontalPodAutoscalers read.
    pub hpas: Vec<Hpa>,
    /// PriorityClasses read (and the two built-in system classes).
    priority_classes: admission::PriorityClasses,
    /// The pods by namespace and label, once [`Loaded::index_pods`] asked for it.
    pod_index: Option<pod_index::PodIndex>,
}

/// A HorizontalPodAutoscaler (`autoscaling/v1` or `v2`): what it scales and up to how many.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hpa {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `spec.scaleTargetRef.kind`.
    pub target_kind: String,
    /// `spec.scaleTargetRef.name`.
    pub target_name: String,
    /// `spec.minReplicas` (default 1).
    pub min_replicas: i32,
    /// `spec.maxReplicas`.
    pub max_replicas: i32,
}

impl Loaded {
    /// The scenario the engine settles and analyses: the cluster and, in input order, every
    /// workload with its running replicas, the pods its controller creates now, its update
    /// strategy and its HorizontalPodAutoscaler's `maxReplicas`
    /// ([`Workload::for_analysis`] plus [`Loaded::hpa_for`]).
    pub fn scenario(&self) -> spreadlab_engine::model::Scenario {
        let workloads = self
            .workloads
            .iter()
            .map(|workload| {
                let mut analysed = workload.for_analysis(&self.cluster);
                analysed.hpa_max_replicas = self
                    .hpa_for(workload)
                    .map(|hpa| usize::try_from(hpa.max_replicas).unwrap_or(0));
                analysed
            })
            .collect();
        spreadlab_engine::model::Scenario {
            cluster: self.cluster.clone(),
            workloads,
        }
    }

    /// Whether [`Loaded::scenario`] is sure to be the same for `self` and `other`, found
    /// without building either: the three things it is built from (the cluster, the workloads
    /// and the HorizontalPodAutoscalers) are equal. `false` says nothing: the scenarios may still
    /// be equal (an autoscaler that scales nothing, a field the analysis drops).
    pub fn same_scenario_as(&self, other: &Loaded) -> bool {
        self.cluster == other.cluster
            && self.workloads == other.workloads
            && self.hpas == other.hpas
    }

    /// The HorizontalPodAutoscaler scaling `workload`, if one was read.
    pub fn hpa_for(&self, workload: &Workload) -> Option<&Hpa> {
        self.hpas.iter().find(|hpa| {
            hpa.namespace == workload.namespace
                && hpa.target_name == workload.name
                && hpa.target_kind == workload.kind.as_str()
        })
    }

    /// The priority the Priority admission plugin gives a pod naming `class_name` (`None`: the
    /// global default class, else 0); `None` for a class this load does not know.
    pub fn priority_of_class(&self, class_name: Option<&str>) -> Option<i32> {
        self.priority_classes
            .resolve(class_name)
            .map(|(value, _)| value)
    }
}

/// Reads every source; JSON when the first non-space character is `{` or `[`, YAML otherwise.
/// Never panics on input: every problem is an [`InputError`] or an [`InputWarning`].
pub fn load(sources: &[Source], options: &LoadOptions) -> Loaded {
    load_with(sources, options, None)
}

/// [`load`], parsing only the YAML documents whose text `cache` does not hold from the previous
/// read through it (an editor re-reading its text after each edit). The result is [`load`]'s.
pub fn load_cached(sources: &[Source], options: &LoadOptions, cache: &mut DocumentCache) -> Loaded {
    cache.begin(&options.limits());
    let loaded = load_with(sources, options, Some(&mut *cache));
    cache.finish();
    loaded
}

fn load_with(
    sources: &[Source],
    options: &LoadOptions,
    mut cache: Option<&mut DocumentCache>,
) -> Loaded {
    let mut loader = Loader::new(options);
    // Every source is parsed first, so that objects with one identity are known before any is
    // read (a later source replaces an earlier object: load/identity.rs).
    let mut parsed: Vec<Option<Vec<Result<raw::RawDocument, InputError>>>> = sources
        .iter()
        .map(|source| {
            (source.text.len() <= options.max_bytes).then(|| {
                // A UTF-8 byte order mark (Windows editors write one) is not content.
                let text = source.text.strip_prefix('\u{feff}').unwrap_or(&source.text);
                if raw::looks_like_json(text) {
                    raw::parse_json(text, &options.limits())
                } else {
                    yaml::parse_documents_with(text, &options.limits(), cache.as_deref_mut())
                }
            })
        })
        .collect();
    let documents: Vec<(&str, Vec<(usize, &serde_json::Value)>)> = sources
        .iter()
        .zip(&parsed)
        .map(|(source, parsed)| {
            let values = parsed
                .iter()
                .flatten()
                .filter_map(|d| d.as_ref().ok())
                .map(|d| (d.index, &d.value))
                .collect();
            (source.name.as_str(), values)
        })
        .collect();
    loader.set_skips(&documents);
    // Where each List's items begin, found by the read: the locator needs them for the fields
    // of an item and would otherwise take the List apart again.
    let mut item_starts = std::collections::HashMap::new();
    for (index, read) in parsed.iter_mut().enumerate() {
        for document in read.iter_mut().flatten().flatten() {
            if let Some(starts) = document.item_starts.take() {
                item_starts.insert((index, document.index), starts);
            }
        }
    }
    for (index, (source, parsed)) in sources.iter().zip(parsed).enumerate() {
        let Some(documents) = parsed else {
            loader.source_error(
                &source.name,
                InputError {
                    message: format!(
                        "input is {} bytes, over the limit of {} bytes; not read",
                        source.text.len(),
                        options.max_bytes
                    ),
                    ..InputError::default()
                },
            );
            continue;
        };
        loader.set_source(index);
        for document in documents {
            match document {
                Ok(document) => loader.add_document(
                    &source.name,
                    document.index,
                    Some(document.start_line),
                    document.value,
                ),
                Err(error) => loader.source_error(&source.name, error),
            }
        }
    }
    let mut loaded = loader.finish();
    locate::locate_fields(
        sources,
        options.limits().max_documents,
        item_starts,
        &mut loaded,
    );
    loaded
}

/// Reads one source into its documents as untyped JSON values (with the same bounds and the same
/// located errors as [`load`]), for callers that hand the objects on rather than load them (the
/// what-if service's snapshot). Empty documents are left out.
pub fn read_documents(
    source: &Source,
    options: &LoadOptions,
) -> Result<Vec<serde_json::Value>, Box<InputError>> {
    if source.text.len() > options.max_bytes {
        return Err(Box::new(InputError {
            file: source.name.clone(),
            message: format!(
                "input is {} bytes, over the limit of {} bytes; not read",
                source.text.len(),
                options.max_bytes
            ),
            ..InputError::default()
        }));
    }
    let documents = if raw::looks_like_json(&source.text) {
        raw::parse_json(&source.text, &options.limits())
    } else {
        yaml::parse_documents(&source.text, &options.limits())
    };
    documents
        .into_iter()
        .filter_map(|document| match document {
            Ok(document) if document.value.is_null() => None,
            Ok(document) => Some(Ok(document.value)),
            Err(mut error) => {
                error.file = source.name.clone();
                Some(Err(Box::new(error)))
            }
        })
        .collect()
}

/// [`load`] for objects already parsed (test runners): `origin` names them in messages, and each
/// value's index is its document index. Nesting depth and object count are bounded as for text.
pub fn load_values(origin: &str, values: Vec<serde_json::Value>, options: &LoadOptions) -> Loaded {
    load_objects(
        origin,
        values.into_iter().map(Object::Value).collect(),
        options,
    )
}

/// One object for [`load_objects`]: a document tree, or a Pod already read into its API type.
#[derive(Clone, Debug)]
pub enum Object {
    /// A Kubernetes object (or List) as JSON.
    Value(serde_json::Value),
    /// A Pod parsed straight into the fields scheduling reads, each in its API type
    /// ([`slim::SlimPod`]: the admission policy reads the host's pod list this way, skipping the
    /// document tree; serde_json's recursion limit bounds its depth). Read as a `kind: Pod`
    /// document with these fields would be, except that unknown fields cannot be reported (the
    /// type has dropped them).
    Pod(Box<slim::SlimPod>),
}

/// [`load_values`] for objects some of which are typed Pods ([`Object::Pod`]); each object's
/// index is its document index.
pub fn load_objects(origin: &str, objects: Vec<Object>, options: &LoadOptions) -> Loaded {
    let mut loader = Loader::new(options);
    read_objects(&mut loader, origin, objects, options);
    loader.finish()
}

/// Hands `objects` to `loader`, each value's index its document index.
fn read_objects(
    loader: &mut Loader<'_>,
    origin: &str,
    objects: Vec<Object>,
    options: &LoadOptions,
) {
    for (index, object) in objects.into_iter().enumerate() {
        let value = match object {
            Object::Pod(pod) => {
                loader.add_typed_pod(origin, index, *pod);
                continue;
            }
            Object::Value(value) => value,
        };
        if raw::depth(&value) > options.max_depth {
            loader.source_error(
                origin,
                InputError {
                    document: Some(index),
                    message: raw::too_deep_message(options.max_depth),
                    ..InputError::default()
                },
            );
            continue;
        }
        loader.add_document(origin, index, None, value);
    }
}

/// [`load_objects`] onto a load made before (a cluster read once, many objects judged against
/// it: the admission policy's decisions): `objects` are read as they would be after the base's
/// own in one [`load_objects`], and what they add is appended to `base`; [`Loaded::truncate`]
/// with the returned mark takes it off again. The base must hold no workloads (a cluster read:
/// its revisions and adoptions are resolved once, at its own load), and its LimitRanges and
/// RuntimeClasses do not apply to the new objects (a load keeps them only while reading).
pub fn load_onto(
    base: &mut Loaded,
    origin: &str,
    objects: Vec<Object>,
    options: &LoadOptions,
) -> LoadMark {
    debug_assert!(
        base.workloads.is_empty(),
        "load_onto: the base holds workloads"
    );
    let mark = base.mark();
    let mut loader = Loader::new(options);
    loader.resume(std::mem::take(base));
    read_objects(&mut loader, origin, objects, options);
    *base = loader.finish();
    mark
}

/// How long each list of a [`Loaded`] was, for [`Loaded::truncate`].
#[derive(Clone, Debug)]
pub struct LoadMark {
    workloads: usize,
    warnings: usize,
    errors: usize,
    hpas: usize,
    nodes: usize,
    pods: usize,
    namespaces: usize,
    services: usize,
    controllers: usize,
    pdbs: usize,
    storage: std::sync::Arc<spreadlab_engine::model::Storage>,
}

impl Loaded {
    /// How long each list is now.
    pub fn mark(&self) -> LoadMark {
        let cluster = &self.cluster;
        LoadMark {
            workloads: self.workloads.len(),
            warnings: self.warnings.len(),
            errors: self.errors.len(),
            hpas: self.hpas.len(),
            nodes: cluster.nodes.len(),
            pods: cluster.pods.len(),
            namespaces: cluster.namespaces.len(),
            services: cluster.services.len(),
            controllers: cluster.controllers.len(),
            pdbs: cluster.pdbs.len(),
            storage: cluster.storage.clone(),
        }
    }

    /// Takes off what was appended since `mark` ([`load_onto`]).
    pub fn truncate(&mut self, mark: LoadMark) {
        self.workloads.truncate(mark.workloads);
        self.warnings.truncate(mark.warnings);
        self.errors.truncate(mark.errors);
        self.hpas.truncate(mark.hpas);
        let cluster = &mut self.cluster;
        cluster.nodes.truncate(mark.nodes);
        cluster.pods.truncate(mark.pods);
        if self
            .pod_index
            .as_ref()
            .is_some_and(|index| !index.holds_after_truncate(mark.pods))
        {
            self.pod_index = None;
        }
        cluster.namespaces.truncate(mark.namespaces);
        cluster.services.truncate(mark.services);
        cluster.controllers.truncate(mark.controllers);
        cluster.pdbs.truncate(mark.pdbs);
        cluster.storage = mark.storage;
    }

    /// The controllers appended since `mark` (a loaded Deployment's ReplicaSet, ...).
    pub fn controllers_since(&self, mark: &LoadMark) -> &[spreadlab_engine::model::Controller] {
        self.cluster
            .controllers
            .get(mark.controllers..)
            .unwrap_or_default()
    }

    /// The errors appended since `mark`.
    pub fn errors_since(&self, mark: &LoadMark) -> &[InputError] {
        self.errors.get(mark.errors..).unwrap_or_default()
    }
}
