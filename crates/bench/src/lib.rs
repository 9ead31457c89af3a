//! The benchmark inputs: the synthetic scenarios of `spreadlab_conformance::synthetic` (upstream
//! `scheduler_perf` shapes: 5,000 nodes in three zones; pods with hard zone spread or required
//! hostname anti-affinity), loaded once through the same path as every other input, so that
//! `cargo bench` measures scheduling (not parsing) on exactly what `cargo xtask speed` gives the
//! real scheduler.

use spreadlab_conformance::differential::prepare;
use spreadlab_conformance::synthetic::{Shape, scenario};
use spreadlab_engine::model::{Cluster, Pod};

/// The cluster and the pods to schedule of the synthetic scenario `shape` with `nodes` nodes and
/// `pods` pods.
pub fn load(shape: Shape, nodes: usize, pods: usize) -> (Cluster, Vec<Pod>) {
    let prepared = prepare(&scenario(shape, nodes, pods))
        .unwrap_or_else(|error| panic!("the synthetic scenario does not load: {error}"));
    (prepared.cluster, prepared.pods)
}
