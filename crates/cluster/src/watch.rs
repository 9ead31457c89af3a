//! A cluster kept in memory, as kube-scheduler's own cache is: one list and watch per kind
//! (kube-runtime's `watcher`: resource versions, a fresh list when the server answers `410 Gone`,
//! backoff on errors), each event applied to a persistent map of slimmed objects ([`slim`]).
//! [`Watched::view`] takes a consistent copy of every map in O(kinds) (the maps share their
//! structure), so a decision reads one state of the cluster while events keep arriving.

use std::pin::pin;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use imbl::OrdMap;
use imbl::ordmap::DiffItem;
use kube::api::{Api, ApiResource, DynamicObject};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use kube::{Client, ResourceExt};
use serde_json::Value;

use crate::error::ReadError;
use crate::kinds::Kind;
use crate::read::{Target, client_for};
use crate::slim::slim;

/// The objects of one kind, by `namespace/name`.
pub type Objects = OrdMap<String, Arc<Value>>;

/// A cluster watched in the background (a thread of its own runs the watches).
pub struct Watched {
    shared: Arc<Shared>,
    /// The server's URL.
    pub server: String,
    /// The context used.
    pub context: String,
}

/// The watched state, and the signal of each event that changed it.
struct Shared {
    state: Mutex<State>,
    /// Notified after every event ([`Watched::wait_for_event`]).
    changed: Condvar,
}

struct State {
    kinds: Vec<KindState>,
    events: u64,
    relists: u64,
    errors: u64,
    last_error: Option<String>,
    last_event: Option<Instant>,
}

struct KindState {
    kind: &'static Kind,
    synced: bool,
    objects: Objects,
    /// Objects of a list in progress (the first one, or a relist), swapped in when it is done.
    listing: Option<Objects>,
    lists: u64,
}

/// One object that changed between two views ([`View::changes_since`]).
#[derive(Clone, Debug)]
pub struct Changed {
    /// Its kind.
    pub kind: &'static Kind,
    /// Before (`None`: added).
    pub old: Option<Arc<Value>>,
    /// After (`None`: deleted).
    pub new: Option<Arc<Value>>,
}

/// One consistent state of the watched cluster.
#[derive(Clone)]
pub struct View {
    /// Every kind watched with its objects.
    pub kinds: Vec<(&'static Kind, Objects)>,
    /// Kinds whose first list has not completed (their objects are not known yet).
    pub unsynced: Vec<&'static Kind>,
    /// Events applied so far (list items included).
    pub events: u64,
    /// Lists after the first one of a kind (a watch that could not resume: `410 Gone`, a
    /// restarted server).
    pub relists: u64,
    /// Errors of the watches so far (each retried with backoff).
    pub errors: u64,
    /// The last error, naming its kind.
    pub last_error: Option<String>,
    /// Time since the last event.
    pub since_event: Option<Duration>,
}

impl View {
    /// Whether every kind has been listed once: only then are answers about the cluster.
    pub fn synced(&self) -> bool {
        self.unsynced.is_empty()
    }

    /// The objects of `kind` (`Pod`), in `namespace/name` order.
    pub fn objects<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.kinds
            .iter()
            .filter(move |(k, _)| k.kind == kind)
            .flat_map(|(_, objects)| objects.values().map(|o| o.as_ref()))
    }

    /// What changed from `earlier` (a view of the same watches) to this view, kind by kind in
    /// key order; `None` when more than `limit` objects did, or the views are not of the same
    /// kinds. Subtrees the two views share are skipped, so this costs the changes, not the
    /// cluster.
    pub fn changes_since(&self, earlier: &View, limit: usize) -> Option<Vec<Changed>> {
        if self.kinds.len() != earlier.kinds.len() {
            return None;
        }
        let mut changes = Vec::new();
        for ((kind, now), (earlier_kind, before)) in self.kinds.iter().zip(&earlier.kinds) {
            if kind != earlier_kind {
                return None;
            }
            for item in before.diff(now) {
                if changes.len() == limit {
                    return None;
                }
                let (old, new) = match item {
                    DiffItem::Add(_, new) => (None, Some(Arc::clone(new))),
                    DiffItem::Update { old, new } => {
                        (Some(Arc::clone(old.1)), Some(Arc::clone(new.1)))
                    }
                    DiffItem::Remove(_, old) => (Some(Arc::clone(old)), None),
                };
                changes.push(Changed { kind, old, new });
            }
        }
        Some(changes)
    }

    /// Objects of every kind.
    pub fn len(&self) -> usize {
        self.kinds.iter().map(|(_, objects)| objects.len()).sum()
    }

    /// Whether no object is known.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Watched {
    /// Connects to the cluster `target` names and starts watching `kinds` (a thread runs the
    /// watches for the life of the process); returns once the client is configured, before
    /// anything is listed (see [`View::synced`]).
    pub fn start(target: &Target, kinds: Vec<&'static Kind>) -> Result<Watched, ReadError> {
        let state = Mutex::new(State {
            kinds: kinds
                .iter()
                .map(|&kind| KindState {
                    kind,
                    synced: false,
                    objects: OrdMap::new(),
                    listing: None,
                    lists: 0,
                })
                .collect(),
            events: 0,
            relists: 0,
            errors: 0,
            last_error: None,
            last_event: None,
        });
        let shared = Arc::new(Shared {
            state,
            changed: Condvar::new(),
        });
        let (ready, configured) = std::sync::mpsc::channel::<Result<(String, String), ReadError>>();
        let (target, state) = (target.clone(), Arc::clone(&shared));
        std::thread::Builder::new()
            .name("spreadlab-watch".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        let _ = ready.send(Err(ReadError::Config(format!(
                            "cannot start the client's runtime: {e}"
                        ))));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let (client, server, context) = match client_for(&target, None).await {
                        Ok(found) => found,
                        Err(error) => {
                            let _ = ready.send(Err(error));
                            return;
                        }
                    };
                    let _ = ready.send(Ok((server, context)));
                    let page = target.chunk_size;
                    let mut watches = tokio::task::JoinSet::new();
                    for (index, kind) in kinds.into_iter().enumerate() {
                        watches.spawn(watch(client.clone(), index, kind, page, Arc::clone(&state)));
                    }
                    while watches.join_next().await.is_some() {}
                });
            })
            .map_err(|e| ReadError::Config(format!("cannot start the watch thread: {e}")))?;
        let (server, context) = configured
            .recv()
            .map_err(|_| ReadError::Config("the watch thread ended".into()))??;
        Ok(Watched {
            shared,
            server,
            context,
        })
    }

    /// How many events the watches have taken in (a view's `events`).
    pub fn events(&self) -> u64 {
        self.shared
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .events
    }

    /// Waits until more than `seen` events were taken in ([`Watched::events`]), at most
    /// `timeout`; `true` when they were.
    pub fn wait_for_event(&self, seen: u64, timeout: Duration) -> bool {
        let state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        let (state, _) = self
            .shared
            .changed
            .wait_timeout_while(state, timeout, |state| state.events <= seen)
            .unwrap_or_else(|e| e.into_inner());
        state.events > seen
    }

    /// The cluster as watched now.
    pub fn view(&self) -> View {
        let state = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        View {
            kinds: state
                .kinds
                .iter()
                .map(|k| (k.kind, k.objects.clone()))
                .collect(),
            unsynced: state
                .kinds
                .iter()
                .filter(|k| !k.synced)
                .map(|k| k.kind)
                .collect(),
            events: state.events,
            relists: state.relists,
            errors: state.errors,
            last_error: state.last_error.clone(),
            since_event: state.last_event.map(|at| at.elapsed()),
        }
    }
}

/// The wait before a failed watch or list is tried again: from 200 ms, doubling with jitter, at
/// most 5 s, back to 200 ms after a minute without errors. client-go's reflector waits 0.8 to 30 s;
/// an admission webhook answering from a stale model after an API server restart should catch up
/// sooner, and two replicas of it are no herd.
fn backoff() -> kube::runtime::utils::ResetTimerBackoff<watcher::ExponentialBackoff> {
    let exponential = backon::ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(200))
        .with_max_delay(Duration::from_secs(5))
        .with_factor(2.0)
        .with_jitter()
        .without_max_times();
    kube::runtime::utils::ResetTimerBackoff::new(exponential.into(), Duration::from_secs(60))
}

/// `namespace/name` (`name` for cluster-scoped objects).
fn key(object: &DynamicObject) -> String {
    match object.namespace() {
        Some(namespace) => format!("{namespace}/{}", object.name_any()),
        None => object.name_any(),
    }
}

/// Lists and watches `kind` forever, applying each event to its map.
async fn watch(client: Client, index: usize, kind: &'static Kind, page: u32, shared: Arc<Shared>) {
    let resource = ApiResource {
        group: kind.group.into(),
        version: kind.version.into(),
        api_version: kind.api_version(),
        kind: kind.kind.into(),
        plural: kind.plural.into(),
    };
    let api: Api<DynamicObject> = Api::all_with(client, &resource);
    let mut config = watcher::Config::default();
    if page > 0 {
        config = config.page_size(page);
    }
    let mut events = pin!(watcher::watcher(api, config).backoff(backoff()));
    while let Some(event) = events.next().await {
        // Converted before taking the lock: the lock is held for a map update only.
        let slimmed = |object: DynamicObject| {
            let key = key(&object);
            let value = serde_json::to_value(&object).unwrap_or(Value::Null);
            (key, Arc::new(slim(kind, value)))
        };
        let event = event.map(|event| match event {
            Event::Apply(o) => Applied::Apply(slimmed(o)),
            Event::Delete(o) => Applied::Delete(key(&o)),
            Event::Init => Applied::Init,
            Event::InitApply(o) => Applied::InitApply(slimmed(o)),
            Event::InitDone => Applied::InitDone,
        });
        let mut guard = shared.state.lock().unwrap_or_else(|e| e.into_inner());
        let state = &mut *guard;
        state.events += 1;
        state.last_event = Some(Instant::now());
        let watched = &mut state.kinds[index];
        match event {
            Ok(Applied::Apply((key, value))) => {
                watched.objects.insert(key, value);
            }
            Ok(Applied::Delete(key)) => {
                watched.objects.remove(&key);
            }
            Ok(Applied::Init) => {
                watched.listing = Some(OrdMap::new());
                watched.lists += 1;
                if watched.lists > 1 {
                    state.relists += 1;
                }
            }
            Ok(Applied::InitApply((key, value))) => {
                watched
                    .listing
                    .get_or_insert_with(OrdMap::new)
                    .insert(key, value);
            }
            Ok(Applied::InitDone) => {
                watched.objects = watched.listing.take().unwrap_or_default();
                watched.synced = true;
            }
            Err(error) => {
                state.errors += 1;
                state.last_error = Some(format!(
                    "{} (`{}`): {}",
                    kind.plural,
                    kind.path(),
                    crate::error::chain(&error)
                ));
            }
        }
        drop(guard);
        shared.changed.notify_all();
    }
}

/// An event, its object already slimmed.
enum Applied {
    Apply((String, Arc<Value>)),
    Delete(String),
    Init,
    InitApply((String, Arc<Value>)),
    InitDone,
}
