//! The cluster as decisions read it: a `spreadlab_policy::Prepared` (read, loaded and turned into
//! the engine's snapshot once, shared by every decision) per state of the origin. Snapshot files
//! are answered exactly: the first decision after a reload builds the new one. A watched cluster
//! moves on with every event, so its model is built again in the background (one build at a
//! time, started by the next request or the refresher thread) while decisions answer from the
//! last one built; `/healthz` and `/metrics` say how far behind it is.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use spreadlab_engine::KubeVersion;
use spreadlab_policy::Prepared;
use spreadlab_policy::decide::Problem;
use spreadlab_policy::snapshot::ClusterSource;

/// Which state of the origin a model was built from (a snapshot's generation; a watched
/// cluster's events and relists so far).
pub type StateKey = (u64, u64);

/// How current a decision's model must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Built from the origin's state now (snapshot files).
    Exact,
    /// The last one built; a newer one is built in the background (a watched cluster).
    Latest,
}

/// The models built so far.
pub struct Model {
    latest: Mutex<Option<Built>>,
    /// Set while a background build runs.
    building: AtomicBool,
    /// Exact builds, one at a time (concurrent decisions after a reload share one).
    exact: Mutex<()>,
    version: KubeVersion,
}

/// One model and where it came from.
#[derive(Clone)]
struct Built {
    key: StateKey,
    prepared: Arc<Prepared>,
    at: Instant,
    took: Duration,
}

/// What `/healthz` and `/metrics` say of the model.
#[derive(Clone, Copy, Debug, Default)]
pub struct ModelStatus {
    /// Built from the origin's current state.
    pub current: bool,
    /// Since it was built; `None` before the first is.
    pub age: Option<Duration>,
    /// How long its build took; `None` before the first is built.
    pub took: Option<Duration>,
}

impl Model {
    /// No model yet; snapshots are built for `version`'s scheduler first.
    pub fn new(version: KubeVersion) -> Model {
        Model {
            latest: Mutex::new(None),
            building: AtomicBool::new(false),
            exact: Mutex::new(()),
            version,
        }
    }

    /// The model to decide on for the origin's state `key`, read from `source` when it must be
    /// built (see [`Freshness`]).
    pub fn prepared(
        self: &Arc<Self>,
        key: StateKey,
        source: Arc<dyn ClusterSource + Send + Sync>,
        freshness: Freshness,
    ) -> Result<Arc<Prepared>, Problem> {
        let latest = self.latest();
        match latest {
            Some(built) if built.key == key => Ok(built.prepared),
            Some(built) if freshness == Freshness::Latest => {
                // At most half a core on builds while the cluster keeps changing.
                if built.at.elapsed() >= built.took {
                    self.build_in_background(key, source);
                }
                Ok(built.prepared)
            }
            _ => {
                let _one = self.exact.lock().unwrap_or_else(PoisonError::into_inner);
                // Another decision may have built it while this one waited.
                if let Some(built) = self.latest().filter(|b| b.key == key) {
                    return Ok(built.prepared);
                }
                Ok(self.build(key, source)?.prepared)
            }
        }
    }

    /// What the model is now, against the origin's state `key`.
    pub fn status(&self, key: Option<StateKey>) -> ModelStatus {
        match self.latest() {
            None => ModelStatus::default(),
            Some(built) => ModelStatus {
                current: Some(built.key) == key,
                age: Some(built.at.elapsed()),
                took: Some(built.took),
            },
        }
    }

    fn latest(&self) -> Option<Built> {
        self.latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn build(
        &self,
        key: StateKey,
        source: Arc<dyn ClusterSource + Send + Sync>,
    ) -> Result<Built, Problem> {
        let started = Instant::now();
        let prepared = Prepared::new(source)?;
        prepared.warm(self.version);
        let built = Built {
            key,
            prepared: Arc::new(prepared),
            at: Instant::now(),
            took: started.elapsed(),
        };
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(built.clone());
        Ok(built)
    }

    /// Starts building the model of `key` unless a build runs.
    fn build_in_background(
        self: &Arc<Self>,
        key: StateKey,
        source: Arc<dyn ClusterSource + Send + Sync>,
    ) {
        if self.building.swap(true, Ordering::SeqCst) {
            return;
        }
        let model = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name(String::from("model"))
            .spawn(move || {
                if let Err(problem) = model.build(key, source) {
                    super::log(&format!("cannot build the cluster model: {problem}"));
                }
                model.building.store(false, Ordering::SeqCst);
            });
        if spawned.is_err() {
            self.building.store(false, Ordering::SeqCst);
        }
    }
}
