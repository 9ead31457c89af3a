//! Where `serve`'s cluster comes from: snapshot files ([`Snapshot`]) or a cluster watched through
//! its API server (`spreadlab_cluster::Watched`), and what `/healthz`, `/readyz` and `/metrics`
//! say of it.

use std::sync::Arc;

use serde_json::{Value, json};
use spreadlab_policy::slim::SlimPod;
use spreadlab_policy::snapshot::{ClusterSource, Resource, SourceError};

use super::metrics::ClusterGauges;
use super::model::{Freshness, ModelStatus, StateKey};
use super::service::Answer;
use super::snapshot::Snapshot;

/// Where the cluster comes from.
pub enum Origin {
    /// Snapshot files, reloaded when they change.
    Files(Snapshot),
    /// A cluster watched through its API server (`--kubeconfig`, `--context`, `--in-cluster`).
    Live(spreadlab_cluster::Watched),
}

/// The kinds the policy reads (`spreadlab_policy::snapshot::CONTEXT_AWARE_RESOURCES`): what a
/// live `serve` watches.
pub fn watched_kinds() -> Vec<&'static spreadlab_cluster::Kind> {
    spreadlab_cluster::KINDS
        .iter()
        .filter(|kind| {
            spreadlab_policy::snapshot::CONTEXT_AWARE_RESOURCES
                .iter()
                .any(|r| r.kind == kind.kind && r.api_version == kind.api_version())
        })
        .collect()
}

/// A watched cluster's state as the policy's cluster source.
struct LiveCluster(spreadlab_cluster::View);

impl ClusterSource for LiveCluster {
    fn list(&self, resource: Resource) -> Result<Vec<Value>, SourceError> {
        Ok(self.0.objects(resource.kind).cloned().collect())
    }

    fn list_pods(&self) -> Result<Vec<SlimPod>, SourceError> {
        self.0
            .objects("Pod")
            .map(|pod| {
                SlimPod::from_value(pod).map_err(|error| SourceError {
                    resource: spreadlab_policy::snapshot::POD,
                    message: format!("not a Pod: {error}"),
                })
            })
            .collect()
    }
}

/// The cluster a decision reads now ([`Origin::cluster`]).
pub struct ClusterNow {
    /// Which state of the origin it is.
    pub key: StateKey,
    /// How current the model built from it must be.
    pub freshness: Freshness,
    /// Its objects.
    pub source: Arc<dyn ClusterSource + Send + Sync>,
    /// A watched cluster's view of them, from which the changes since an earlier view are
    /// found (`View::changes_since`).
    pub view: Option<spreadlab_cluster::View>,
}

impl Origin {
    /// The cluster a decision reads now, or the answer saying why there is none yet.
    pub fn cluster(&self) -> Result<ClusterNow, Answer> {
        match self {
            Origin::Files(snapshot) => {
                let current = snapshot.current();
                Ok(ClusterNow {
                    key: (current.generation, 0),
                    freshness: Freshness::Exact,
                    source: current.cluster,
                    view: None,
                })
            }
            Origin::Live(watched) => {
                let view = watched.view();
                if view.synced() {
                    Ok(ClusterNow {
                        key: (view.events, view.relists),
                        freshness: Freshness::Latest,
                        source: Arc::new(LiveCluster(view.clone())),
                        view: Some(view),
                    })
                } else {
                    let kinds: Vec<&str> = view.unsynced.iter().map(|k| k.plural).collect();
                    Err((
                        503,
                        json!({"error": format!(
                            "the cluster is not synced yet: still listing {}{}",
                            kinds.join(", "),
                            view.last_error.map(|e| format!(" (last error: {e})")).unwrap_or_default()
                        )}),
                    ))
                }
            }
        }
    }

    /// `/healthz`: where the cluster comes from and how current it is.
    pub fn health(&self) -> Answer {
        match self {
            Origin::Files(snapshot) => {
                let current = snapshot.current();
                (
                    200,
                    json!({
                        "status": "ok",
                        // How many files, not their paths: anyone who reaches the port may ask.
                        // Rejected reloads are counted; their reasons (which name the files)
                        // go to the server's log.
                        "snapshot": {
                            "files": snapshot.files(),
                            "objects": current.cluster.objects.len(),
                            "generation": current.generation,
                            "ageSeconds": current.age.as_secs(),
                            "settling": current.settling,
                            "rejectedReloads": current.rejections,
                        },
                    }),
                )
            }
            Origin::Live(watched) => {
                let view = watched.view();
                let unsynced: Vec<&str> = view.unsynced.iter().map(|k| k.plural).collect();
                (
                    200,
                    json!({
                        "status": if view.synced() { "ok" } else { "syncing" },
                        "cluster": {
                            "server": watched.server,
                            "context": watched.context,
                            "synced": view.synced(),
                            "unsynced": unsynced,
                            "objects": view.len(),
                            "events": view.events,
                            "relists": view.relists,
                            "watchErrors": view.errors,
                            "lastError": view.last_error,
                            "secondsSinceEvent": view.since_event.map(|d| d.as_secs_f64()),
                        },
                    }),
                )
            }
        }
    }

    /// The cluster's gauges for `/metrics`.
    pub fn gauges(&self) -> ClusterGauges {
        match self {
            Origin::Files(snapshot) => {
                let current = snapshot.current();
                ClusterGauges {
                    events: 0,
                    relists: 0,
                    errors: current.rejections,
                    objects: current.cluster.objects.len(),
                    synced: true,
                    age: Some(current.age),
                    model: ModelStatus::default(),
                }
            }
            Origin::Live(watched) => {
                let view = watched.view();
                ClusterGauges {
                    events: view.events,
                    relists: view.relists,
                    errors: view.errors,
                    objects: view.len(),
                    synced: view.synced(),
                    age: view.since_event,
                    model: ModelStatus::default(),
                }
            }
        }
    }
}
