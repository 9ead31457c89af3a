//! The cluster snapshot `serve` answers from, replaced only by a complete, valid, settled
//! version of its files. `kubectl get … -o yaml > snap.yaml` rewrites a file in place, and a
//! prefix of it can parse: answering from a prefix flips verdicts. So a changed file is read only
//! once no file was modified for the settle period (`--reload-settle`, by modification time),
//! it must read whole (every document a complete object with `apiVersion` and `kind`, every List
//! with its `items`; kubectl writes a List's `kind` last, so a cut List has none), and it must not
//! change while read. Until then, and after a rejected reload, the last good snapshot answers.
//! Replacing the file atomically (write a temporary file, then rename it) needs no settling.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use spreadlab_k8s::{LoadOptions, Source};
use spreadlab_policy::snapshot::FixtureCluster;

/// Modification time and length of every file.
type Stamps = Vec<(Option<SystemTime>, u64)>;

/// The snapshot files and the last good snapshot read from them.
pub struct Snapshot {
    files: Vec<PathBuf>,
    settle: Duration,
    state: Mutex<State>,
}

struct State {
    good: Good,
    /// Changed stamps, and when they were first seen (settling).
    seen: Option<(Stamps, Instant)>,
    /// Stamps whose files were read and rejected (not read again until they change).
    rejected: Option<Stamps>,
    /// Reloads rejected so far.
    rejections: u64,
}

struct Good {
    stamps: Stamps,
    cluster: Arc<FixtureCluster>,
    generation: u64,
    read_at: Instant,
}

/// What a request is answered from.
pub struct Current {
    /// The objects.
    pub cluster: Arc<FixtureCluster>,
    /// Reloads so far (1 after the first read).
    pub generation: u64,
    /// Time since the snapshot was read.
    pub age: Duration,
    /// Whether changed files are waiting to settle.
    pub settling: bool,
    /// Reloads rejected so far (their reasons go to the server's log, not to clients).
    pub rejections: u64,
}

impl Snapshot {
    /// Reads `files` once; they must read whole now.
    pub fn open(files: Vec<PathBuf>, settle: Duration) -> Result<Snapshot, String> {
        if files.is_empty() {
            return Err(String::from("no snapshot file (--snapshot)"));
        }
        let stamps = stamps(&files);
        let objects = read_complete(&files)?;
        Ok(Snapshot {
            settle,
            state: Mutex::new(State {
                good: Good {
                    stamps,
                    cluster: Arc::new(FixtureCluster::new(objects)),
                    generation: 1,
                    read_at: Instant::now(),
                },
                seen: None,
                rejected: None,
                rejections: 0,
            }),
            files,
        })
    }

    /// How many files.
    pub fn files(&self) -> usize {
        self.files.len()
    }

    /// The snapshot to answer from: the last good one, replaced first when the files changed,
    /// settled and read whole.
    pub fn current(&self) -> Current {
        let now_stamps = stamps(&self.files);
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if now_stamps != state.good.stamps && state.rejected.as_ref() != Some(&now_stamps) {
            // Settled: no file modified within the settle period (by its modification time,
            // or, should that be in the future, since these stamps were first seen).
            let quiet = now_stamps.iter().all(|(modified, _)| {
                modified
                    .and_then(|m| SystemTime::now().duration_since(m).ok())
                    .is_some_and(|age| age >= self.settle)
            });
            let settled = match &state.seen {
                Some((seen, at)) if *seen == now_stamps => quiet || at.elapsed() >= self.settle,
                _ => {
                    state.seen = Some((now_stamps.clone(), Instant::now()));
                    quiet || self.settle.is_zero()
                }
            };
            if settled {
                self.reload(&mut state, now_stamps);
            }
        }
        Current {
            cluster: Arc::clone(&state.good.cluster),
            generation: state.good.generation,
            age: state.good.read_at.elapsed(),
            settling: state.seen.is_some(),
            rejections: state.rejections,
        }
    }

    fn reload(&self, state: &mut State, before: Stamps) {
        let read = read_complete(&self.files);
        let after = stamps(&self.files);
        if after != before {
            // Written to while read: settle again.
            state.seen = Some((after, Instant::now()));
            return;
        }
        state.seen = None;
        match read {
            Ok(objects) => {
                state.good = Good {
                    stamps: after,
                    cluster: Arc::new(FixtureCluster::new(objects)),
                    generation: state.good.generation + 1,
                    read_at: Instant::now(),
                };
                state.rejected = None;
            }
            Err(error) => {
                state.rejections += 1;
                state.rejected = Some(after);
                super::log(&format!(
                    "snapshot reload rejected, still answering from generation {}: {error}",
                    state.good.generation
                ));
            }
        }
    }
}

fn stamps(files: &[PathBuf]) -> Stamps {
    files
        .iter()
        .map(|f| match std::fs::metadata(f) {
            Ok(m) => (m.modified().ok(), m.len()),
            Err(_) => (None, 0),
        })
        .collect()
}

/// Every object of every file, or why they do not form a whole snapshot.
fn read_complete(files: &[PathBuf]) -> Result<Vec<Value>, String> {
    let mut objects = Vec::new();
    let mut left = crate::input::MAX_TOTAL_INPUT_BYTES;
    for file in files {
        let text = crate::input::read_path(file, &mut left)?;
        let source = Source {
            name: file.display().to_string(),
            text,
        };
        let values = spreadlab_k8s::read_documents(&source, &LoadOptions::default())
            .map_err(|e| e.to_string())?;
        if values.is_empty() {
            return Err(format!("{}: no object", source.name));
        }
        for (index, value) in values.iter().enumerate() {
            whole(value).map_err(|e| format!("{}: document {index}: {e}", source.name))?;
        }
        objects.extend(values);
    }
    Ok(objects)
}

/// Whether a document is a whole object: `apiVersion` and `kind`, and for a List an `items`
/// sequence of whole objects.
fn whole(value: &Value) -> Result<(), String> {
    let field = |name: &str| value.get(name).and_then(Value::as_str).unwrap_or("");
    if field("apiVersion").is_empty() || field("kind").is_empty() {
        return Err(String::from(
            "not a whole object (no apiVersion or kind): a file cut short?",
        ));
    }
    if field("kind").ends_with("List") {
        let items = value
            .get("items")
            .and_then(Value::as_array)
            .ok_or("a List without items")?;
        for (index, item) in items.iter().enumerate() {
            whole(item).map_err(|e| format!("items[{index}]: {e}"))?;
        }
    }
    Ok(())
}
