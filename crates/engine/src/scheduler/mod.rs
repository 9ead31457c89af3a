//! One scheduling cycle per pod, in sequence, with a full explanation of every decision.
//! Mirrors kubernetes v1.35 `pkg/scheduler/schedule_one.go` (`schedulePod`, `findNodesThatFitPod`,
//! `prioritizeNodes`, `selectHost`) and the PostFilter step of `schedulingCycle`.
//!
//! Where kube-scheduler is nondeterministic the engine is not: node sampling walks the node tree
//! as one worker would (the report says when sampling decided), and among nodes with the top score
//! the first in node input order is chosen (the real one picks any; the report lists them).

//!
//! Files: `schedule_one.rs` (the cycle), `cycle_error.rs` (cycles that fail with an error),
//! `types.rs` (options and decisions), `explain.rs` (explanations), `tie.rs` (tie handling).

mod cycle_error;
mod explain;
mod queue;
mod schedule_one;
#[cfg(feature = "serde")]
mod serialize;
#[cfg(test)]
mod tests;
mod tie;
mod types;

pub use explain::{affinity_explanations, soft_spread_explanations, spread_explanations};
pub use queue::{enqueue_waiting, queue_order};
pub use schedule_one::{
    TIED_NODES_KEPT_WITHOUT_DETAIL, schedule_and_bind, schedule_one, simulate, simulate_on,
};
pub use tie::TieBreak;
pub use types::*;
