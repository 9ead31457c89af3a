//! The cluster as decisions read it: a `spreadlab_policy::Prepared` (read, loaded and turned into
//! the engine's snapshot once, shared by every decision) per state of the origin. Snapshot files
//! are answered exactly: the first decision after a reload builds the new one. A watched cluster
//! moves on with every event: the pods, nodes and namespaces that changed (added and deleted
//! alike) since the model's view are applied to it in place (`Prepared::advance`, by the next
//! request or the refresher thread), which leaves it as a fresh read would be. Changes it cannot
//! apply so (a PriorityClass or Service changed, thousands at once) build it again in the
//! background (one build at a time) while decisions answer from the last one; `/healthz` and
//! `/metrics` say how far behind it is.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use spreadlab_engine::KubeVersion;
use spreadlab_policy::Prepared;
use spreadlab_policy::decide::Problem;
use spreadlab_policy::prepared::{Change, ChangedKind};
use spreadlab_policy::snapshot::ClusterSource;

use super::origin::ClusterNow;

/// Most changes applied in place at once; past it the model is built again (the changes' cost
/// nears a build's: about 0.1 ms each against 1 s for 5,000 nodes and 50,000 pods).
const MAX_CHANGES: usize = 5_000;

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
    /// Models built so far (the first one included).
    builds: AtomicU64,
    /// Exact builds, one at a time (concurrent decisions after a reload share one).
    exact: Mutex<()>,
    /// Changes applied in place, one batch at a time; with how many so far and how long the
    /// last batch took.
    advancing: Mutex<(u64, Option<Duration>)>,
    version: KubeVersion,
}

/// One model and where it came from.
#[derive(Clone)]
struct Built {
    key: StateKey,
    /// The watched cluster's view it stands for (changes are found against it).
    view: Option<spreadlab_cluster::View>,
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
    /// Pod and node changes applied to models in place so far.
    pub changes: u64,
    /// How long the last batch of changes took to apply.
    pub last_changes: Option<Duration>,
    /// Models built so far, the first one included (each change not applied in place builds
    /// one).
    pub builds: u64,
}

impl Model {
    /// No model yet; snapshots are built for `version`'s scheduler first.
    pub fn new(version: KubeVersion) -> Model {
        Model {
            latest: Mutex::new(None),
            building: AtomicBool::new(false),
            builds: AtomicU64::new(0),
            exact: Mutex::new(()),
            advancing: Mutex::new((0, None)),
            version,
        }
    }

    /// The model to decide on for the origin's state `now`, built from it when it must be (see
    /// [`Freshness`]).
    pub fn prepared(self: &Arc<Self>, now: ClusterNow) -> Result<Arc<Prepared>, Problem> {
        let ClusterNow {
            key,
            freshness,
            source,
            view,
        } = now;
        let latest = self.latest();
        match latest {
            Some(built) if built.key == key => Ok(built.prepared),
            Some(built) if freshness == Freshness::Latest => {
                if let Some(view) = view.as_ref()
                    && let Some(prepared) = self.advance(key, view, &source)
                {
                    return Ok(prepared);
                }
                // At most half a core on builds while the cluster keeps changing.
                if built.at.elapsed() >= built.took {
                    self.build_in_background(key, view, source);
                }
                Ok(built.prepared)
            }
            _ => {
                let _one = self.exact.lock().unwrap_or_else(PoisonError::into_inner);
                // Another decision may have built it while this one waited.
                if let Some(built) = self.latest().filter(|b| b.key == key) {
                    return Ok(built.prepared);
                }
                Ok(self.build(key, view, source)?.prepared)
            }
        }
    }

    /// Applies the changes from the latest model's view to `view` in place, and returns the
    /// model, now of `key`; `None` when they cannot be applied so.
    fn advance(
        &self,
        key: StateKey,
        view: &spreadlab_cluster::View,
        source: &Arc<dyn ClusterSource + Send + Sync>,
    ) -> Option<Arc<Prepared>> {
        let mut advancing = self
            .advancing
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // Another request may have applied them while this one waited.
        let built = self.latest()?;
        if built.key == key {
            return Some(built.prepared);
        }
        let started = Instant::now();
        let changes: Vec<Change> = view
            .changes_since(built.view.as_ref()?, MAX_CHANGES)?
            .into_iter()
            .map(|changed| {
                let kind = match changed.kind.kind {
                    "Pod" => ChangedKind::Pod,
                    "Node" => ChangedKind::Node,
                    "Namespace" => ChangedKind::Namespace,
                    _ => return None,
                };
                Some(Change {
                    kind,
                    old: changed.old,
                    new: changed.new,
                })
            })
            .collect::<Option<_>>()?;
        if !built.prepared.advance(Arc::clone(source), &changes) {
            return None;
        }
        advancing.0 += changes.len() as u64;
        advancing.1 = Some(started.elapsed());
        let prepared = Arc::clone(&built.prepared);
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(Built {
            key,
            view: Some(view.clone()),
            at: Instant::now(),
            ..built
        });
        Some(prepared)
    }

    /// What the model is now, against the origin's state `key`.
    pub fn status(&self, key: Option<StateKey>) -> ModelStatus {
        let (changes, last_changes) = *self
            .advancing
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match self.latest() {
            None => ModelStatus::default(),
            Some(built) => ModelStatus {
                current: Some(built.key) == key,
                age: Some(built.at.elapsed()),
                took: Some(built.took),
                changes,
                last_changes,
                builds: self.builds.load(Ordering::SeqCst),
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
        view: Option<spreadlab_cluster::View>,
        source: Arc<dyn ClusterSource + Send + Sync>,
    ) -> Result<Built, Problem> {
        let started = Instant::now();
        let prepared = Prepared::new(source)?;
        prepared.warm(self.version);
        self.builds.fetch_add(1, Ordering::SeqCst);
        let built = Built {
            key,
            view,
            prepared: Arc::new(prepared),
            at: Instant::now(),
            took: started.elapsed(),
        };
        let mut latest = self.latest.lock().unwrap_or_else(PoisonError::into_inner);
        // Not over a model changes were applied to beyond this one's state meanwhile (the
        // count of events only grows).
        if latest.as_ref().is_none_or(|current| current.key.0 <= key.0) {
            *latest = Some(built.clone());
        }
        Ok(built)
    }

    /// Starts building the model of `key` unless a build runs.
    fn build_in_background(
        self: &Arc<Self>,
        key: StateKey,
        view: Option<spreadlab_cluster::View>,
        source: Arc<dyn ClusterSource + Send + Sync>,
    ) {
        if self.building.swap(true, Ordering::SeqCst) {
            return;
        }
        let model = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name(String::from("model"))
            .spawn(move || {
                if let Err(problem) = model.build(key, view, source) {
                    super::log(&format!("cannot build the cluster model: {problem}"));
                }
                model.building.store(false, Ordering::SeqCst);
            });
        if spawned.is_err() {
            self.building.store(false, Ordering::SeqCst);
        }
    }
}
