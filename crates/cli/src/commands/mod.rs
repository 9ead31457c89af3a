//! One module per command: each loads its inputs, settles the scenario once (where it needs
//! one), asks the engine and prints the report. No scheduling logic lives here.

pub mod capacity;
pub mod lint;
pub mod risk;
pub mod rollout;
pub mod serve;
pub mod simulate;
pub mod snapshot;
pub mod stalemate;
pub mod whatif;
