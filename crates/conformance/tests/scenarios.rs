//! The seed scenarios (`tests/scenarios/<name>/`) against the real kube-scheduler's decisions,
//! recorded in `expected.jsonl` by `scripts/record-scenarios.sh` (the Go oracle, `tests/oracle`).
//!
//! - `engine_matches_the_oracle`: the engine schedules the pods `spreadlab simulate` would create
//!   and must agree with the oracle pod by pod (chosen node, top-scored nodes, FitError message,
//!   per-node filter verdicts, per-plugin weighted scores; see `scenarios::compare`);
//! - `oracle_inputs_are_current`: `oracle-input.yaml` is what `record-scenarios` writes today;
//! - `expectations_are_the_oracles_own`: with `SPREADLAB_ORACLE=<oracle binary>`, reruns the oracle
//!   and requires its output to equal the committed `expected.jsonl` (skipped without the variable).

use std::process::Command;

use spreadlab_conformance::scenarios::{
    compare, expected_file, json_differences, load_scenario, normalize_oracle_line, oracle_for,
    oracle_input, parse_jsonl, render_oracle_input, run_engine, scenario_dirs,
};
use spreadlab_engine::KubeVersion;

#[test]
fn engine_matches_the_oracle() {
    let dirs = scenario_dirs();
    assert!(!dirs.is_empty(), "no scenarios found");
    let mut problems = Vec::new();
    for dir in &dirs {
        let scenario = match load_scenario(dir) {
            Ok(scenario) => scenario,
            Err(error) => {
                problems.push(error);
                continue;
            }
        };
        // Every release's recording: the default one must exist, the others are checked too.
        for version in KubeVersion::ALL {
            let expected_path = dir.join(expected_file(version));
            if version != spreadlab_conformance::REFERENCE_RELEASE && !expected_path.exists() {
                problems.push(format!(
                    "{} is missing: rerun scripts/record-scenarios.sh",
                    expected_path.display()
                ));
                continue;
            }
            let expected = match std::fs::read_to_string(&expected_path)
                .map_err(|e| e.to_string())
                .and_then(|text| parse_jsonl(&text))
            {
                Ok(expected) => expected,
                Err(error) => {
                    problems.push(format!("{}: {error}", expected_path.display()));
                    continue;
                }
            };
            let decisions = run_engine(&scenario, version);
            let name = format!("{} (Kubernetes {version})", scenario.name);
            let (mismatches, coverage) = compare(&name, &decisions, &expected);
            println!(
                "{name}: {} nodes, {} pods, {} filter verdicts, {} plugin scores compared: {} mismatches",
                scenario.loaded.cluster.nodes.len(),
                coverage.pods,
                coverage.filter_verdicts,
                coverage.scores,
                mismatches.len()
            );
            problems.extend(mismatches);
        }
    }
    assert!(
        problems.is_empty(),
        "spreadlab disagrees with the real kube-scheduler ({} mismatches):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn oracle_inputs_are_current() {
    let mut stale = Vec::new();
    for dir in scenario_dirs() {
        let path = dir.join("oracle-input.yaml");
        let want = load_scenario(&dir)
            .and_then(|scenario| oracle_input(&scenario))
            .map(|input| render_oracle_input(&input));
        match want {
            Ok(want) if std::fs::read_to_string(&path).ok().as_deref() == Some(want.as_str()) => {}
            Ok(_) => stale.push(format!("{} is missing or stale", path.display())),
            Err(error) => stale.push(error),
        }
    }
    assert!(
        stale.is_empty(),
        "rerun scripts/record-scenarios.sh:\n{}",
        stale.join("\n")
    );
}

#[test]
fn expectations_are_the_oracles_own() {
    let Some(oracle) = std::env::var_os("SPREADLAB_ORACLE").filter(|v| !v.is_empty()) else {
        println!(
            "NOT RUN: expectations_are_the_oracles_own needs SPREADLAB_ORACLE=<path to the tests/oracle binary>; \
             expected.jsonl was not checked against the real kube-scheduler"
        );
        return;
    };
    let mut problems = Vec::new();
    let dirs = scenario_dirs();
    // The other releases' oracles sit next to the default one (scripts/test.sh builds them).
    for version in KubeVersion::ALL {
        let oracle = oracle_for(std::path::Path::new(&oracle), version);
        if !oracle.is_file() {
            problems.push(format!(
                "no oracle for Kubernetes {version} at {}",
                oracle.display()
            ));
            continue;
        }
        for dir in &dirs {
            let input = dir.join("oracle-input.yaml");
            let expected_name = expected_file(version);
            let output = match Command::new(&oracle).arg(&input).output() {
                Ok(output) => output,
                Err(error) => panic!(
                    "cannot run the oracle {}: {error}",
                    oracle.to_string_lossy()
                ),
            };
            if !output.status.success() {
                problems.push(format!(
                    "{}: the oracle failed ({}): {}",
                    input.display(),
                    output.status,
                    String::from_utf8_lossy(&output.stderr)
                ));
                continue;
            }
            let fresh = parse_jsonl(&String::from_utf8_lossy(&output.stdout));
            let committed = std::fs::read_to_string(dir.join(&expected_name))
                .map_err(|e| e.to_string())
                .and_then(|text| parse_jsonl(&text));
            match (fresh, committed) {
                (Ok(fresh), Ok(committed)) => {
                    // Reasons whose order is Go-map-random are compared as sets.
                    let fresh: Vec<_> = fresh.iter().map(normalize_oracle_line).collect();
                    let committed: Vec<_> = committed.iter().map(normalize_oracle_line).collect();
                    if fresh.len() != committed.len() {
                        problems.push(format!(
                            "{}: the oracle prints {} lines, {expected_name} has {}",
                            dir.display(),
                            fresh.len(),
                            committed.len()
                        ));
                    }
                    for (index, (fresh, committed)) in fresh.iter().zip(&committed).enumerate() {
                        for difference in json_differences("", committed, fresh) {
                            problems.push(format!(
                            "{}/{expected_name} line {} (committed vs oracle now): {difference}",
                            dir.display(),
                            index + 1
                        ));
                        }
                    }
                }
                (Err(error), _) => {
                    problems.push(format!("{}: oracle output: {error}", dir.display()))
                }
                (_, Err(error)) => {
                    problems.push(format!("{}: {expected_name}: {error}", dir.display()))
                }
            }
        }
    }
    println!(
        "expectations_are_the_oracles_own: ran each release's oracle on {} scenarios",
        dirs.len()
    );
    assert!(
        problems.is_empty(),
        "expected.jsonl is not what the oracle prints (rerun scripts/record-scenarios.sh):\n{}",
        problems.join("\n")
    );
}

/// A placed pod's per-node detail computed on demand (`Settled::explained`, what the playground
/// shows when a pod is selected) is the detail an every-detail settle keeps, on every seed
/// scenario (the oracle judges the latter in `engine_matches_the_oracle`).
#[test]
fn explanations_on_demand_equal_the_eager_ones() {
    use spreadlab_engine::analysis::settle;
    use spreadlab_engine::scheduler::{Detail, Options};
    let mut explained = 0;
    for dir in scenario_dirs() {
        let scenario = load_scenario(&dir).expect("loads");
        let with = |detail| Options {
            detail,
            ..Options::default()
        };
        let eager = settle(scenario.loaded.scenario(), &with(Detail::All));
        let lazy = settle(scenario.loaded.scenario(), &with(Detail::PendingOnly));
        for (index, decision) in eager.simulation.decisions.iter().enumerate() {
            let on_demand = lazy.explained(index, &with(Detail::PendingOnly));
            assert_eq!(
                on_demand.as_ref(),
                Some(decision),
                "{}: decision {index}",
                scenario.name
            );
            explained += usize::from(
                decision.node.is_some() && lazy.simulation.decisions[index].explanation.is_none(),
            );
        }
    }
    assert!(
        explained > 50,
        "only {explained} placed pods explained on demand"
    );
}
