//! The fuzz targets' bodies (`fuzz/`, run by `scripts/fuzz.sh`), here so that every input a
//! fuzzer ever crashed on (`tests/fuzz-regressions/`) is replayed by `cargo test`.
//!
//! - [`load_bytes`]: any bytes as a manifest file, through the loader (text → loaded scenario),
//!   with each field-validation mode.
//! - [`simulate_bytes`]: bytes that load without errors, through the analyses (scenario →
//!   simulation): settle, lint, a zone and a node failure with recovery, a rollout, capacity and
//!   stalemates, each twice to check that the report is the same.
//!
//! Both only return: a panic, an abort, a hang or unbounded memory is the finding.

use spreadlab_engine::analysis::failure::{self, Domain, FailureMode};
use spreadlab_engine::analysis::rollout::{self, Assumptions};
use spreadlab_engine::analysis::{capacity, lint, settle, stalemate};
use spreadlab_engine::model::LABEL_ZONE;
use spreadlab_engine::scheduler::Options;
use spreadlab_k8s::{FieldValidation, LoadOptions, Loaded, Source};

/// Inputs larger than this are not tried (the loader's own byte bound is tested elsewhere; big
/// inputs only slow the fuzzer down).
pub const MAX_INPUT: usize = 64 * 1024;

/// Scenarios past these sizes are loaded but not simulated, so one input stays well under the
/// fuzzer's per-input timeout.
const MAX_NODES: usize = 64;
const MAX_PODS: usize = 256;

fn load_with(data: &[u8], field_validation: FieldValidation) -> Loaded {
    let source = Source {
        name: String::from("fuzz.yaml"),
        text: String::from_utf8_lossy(data).into_owned(),
    };
    let options = LoadOptions {
        field_validation,
        ..LoadOptions::default()
    };
    spreadlab_k8s::load(&[source], &options)
}

/// Loads `data` with strict, warn and ignore field validation. Every error names the file.
///
/// # Panics
/// When an error or warning does not name the file it came from (a finding).
pub fn load_bytes(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    for mode in [
        FieldValidation::Strict,
        FieldValidation::Warn,
        FieldValidation::Ignore,
    ] {
        let loaded = load_with(data, mode);
        for error in &loaded.errors {
            assert_eq!(error.file, "fuzz.yaml", "error without its file: {error:?}");
        }
        for warning in &loaded.warnings {
            assert_eq!(
                warning.file, "fuzz.yaml",
                "warning without its file: {warning:?}"
            );
        }
        let _ = loaded.scenario();
    }
}

/// Loads `data` (warn mode) and, when it loads without errors and is small, runs every analysis
/// on it twice.
///
/// # Panics
/// When an analysis panics, or two runs of one analysis give different reports (a finding).
pub fn simulate_bytes(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let loaded = load_with(data, FieldValidation::Warn);
    if !loaded.errors.is_empty()
        || loaded.cluster.nodes.len() > MAX_NODES
        || loaded.cluster.pods.len() > MAX_PODS
    {
        return;
    }
    let replicas: usize = loaded
        .workloads
        .iter()
        .map(|w| usize::try_from(w.replicas).unwrap_or(0))
        .sum();
    if replicas > MAX_PODS {
        return;
    }
    let first = analyses(&loaded);
    let second = analyses(&loaded);
    assert_eq!(first, second, "the same input gave two different reports");
}

/// Every analysis on `loaded`, as one text (each report's `Debug` form).
fn analyses(loaded: &Loaded) -> String {
    let options = Options::default();
    let settled = settle(loaded.scenario(), &options);
    let mut out = Vec::new();
    out.push(debug(&settled.simulation.decisions));
    out.push(debug(&settled.members));
    out.push(debug(&lint::lint(&settled, &options)));
    let zone = loaded
        .cluster
        .nodes
        .iter()
        .find_map(|node| node.labels.get(LABEL_ZONE).cloned());
    if let Some(zone) = zone {
        let report = failure::fail(
            &settled,
            &Domain::Zone(zone),
            FailureMode::Removed,
            &options,
        );
        out.push(debug(&report));
    }
    if let Some(node) = loaded.cluster.nodes.first() {
        let report = failure::fail(
            &settled,
            &Domain::Node(node.name.clone()),
            FailureMode::Unreachable,
            &options,
        );
        out.push(debug(&report));
    }
    let scenario = loaded.scenario();
    for index in 0..scenario.workloads.len().min(2) {
        if let Some(report) = rollout::rollout(&scenario, index, &Assumptions::default(), &options)
        {
            out.push(debug(&report));
        }
        out.push(debug(&capacity::capacity(&settled, index, 64, &options)));
    }
    out.push(debug(&stalemate::stalemates(&settled, &options)));
    out.join("\n")
}

fn debug(value: &impl core::fmt::Debug) -> String {
    format!("{value:?}")
}
