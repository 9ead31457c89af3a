//! The views: each renders part of the state and the current analysis, and dispatches actions.

pub mod cluster;
pub mod compare;
pub mod editor;
pub mod explain;
pub mod gallery;
pub mod lessons;
pub mod pictures;
pub mod welcome;
pub mod whatif;

/// A workload's colour class (`w0`..`w7`; `wx` for pods of no loaded workload).
pub fn workload_class(workload: Option<usize>) -> String {
    match workload {
        Some(index) => format!("w{}", index % 8),
        None => "wx".into(),
    }
}
