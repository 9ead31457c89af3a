//! The ported scheduler integration tests (`tests/integration/`), whole-scheduler scenarios.
//!
//! - `engine_matches_the_recorded_oracle`: spreadlab agrees pod by pod with the real scheduler's
//!   recorded answer (`<TestName>.oracle.jsonl`), and that answer satisfies upstream's assertions;
//!   a table edited since its recording fails (rerun `record-integration`);
//! - `cases_agree_with_the_live_oracle`: with `SPREADLAB_ORACLE=<oracle binary>` (set by
//!   `scripts/test.sh`), the same against the oracle run now (skipped without the variable).

use spreadlab_conformance::differential::{
    Oracle, finish, judge_following, prepare, run_spreadlab,
};
use spreadlab_conformance::integration::{
    ask_oracle, check_upstream, fingerprint, read_recording, tables,
};

#[test]
fn engine_matches_the_recorded_oracle() {
    let tables = tables().expect("tables load");
    assert!(!tables.is_empty(), "no integration tables");
    let (mut checked, mut skipped, mut problems) = (0, 0, Vec::new());
    for table in &tables {
        let recording = match read_recording(table) {
            Ok(recording) => recording,
            Err(error) => {
                problems.push(error);
                continue;
            }
        };
        let runnable: Vec<_> = table.cases.iter().filter(|c| c.skip.is_none()).collect();
        skipped += table.cases.len() - runnable.len();
        if recording.len() != runnable.len() {
            problems.push(format!(
                "{}: {} cases recorded, {} to run: rerun record-integration",
                table.file,
                recording.len(),
                runnable.len()
            ));
        }
        for case in runnable {
            let at = format!("{}: {}", table.file, case.name);
            let Some((_, input, lines)) = recording.iter().find(|(name, _, _)| *name == case.name)
            else {
                problems.push(format!("{at}: not recorded"));
                continue;
            };
            let prepared = match prepare(&case.scenario) {
                Ok(prepared) => prepared,
                Err(error) => {
                    problems.push(format!("{at}: {error}"));
                    continue;
                }
            };
            if fingerprint(&prepared.input) != *input {
                problems.push(format!(
                    "{at}: edited since recorded: rerun record-integration"
                ));
                continue;
            }
            problems.extend(
                check_upstream(&case.expect, lines)
                    .into_iter()
                    .map(|p| format!("{at}: recorded oracle: {p}")),
            );
            let decisions = run_spreadlab(&prepared);
            let (mismatches, _, _) = judge_following(&prepared, &decisions, lines);
            problems.extend(mismatches.iter().map(|m| format!("{at}: {m}")));
            checked += 1;
        }
    }
    println!(
        "integration tables: {} files, {checked} cases agree with the recorded oracle, {skipped} skipped",
        tables.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn cases_agree_with_the_live_oracle() {
    let Some(path) = std::env::var_os("SPREADLAB_ORACLE") else {
        println!("SPREADLAB_ORACLE is not set: the live oracle check is skipped");
        return;
    };
    let oracle = Oracle {
        path: path.into(),
        args: Vec::new(),
    };
    let (mut checked, mut problems) = (0, Vec::new());
    for table in tables().expect("tables load") {
        let runnable: Vec<_> = table.cases.iter().filter(|c| c.skip.is_none()).collect();
        for (case, answer) in ask_oracle(&oracle, &runnable) {
            let at = format!("{}: {}", table.file, case.name);
            let (prepared, lines) = match answer {
                Ok(answer) => answer,
                Err(error) => {
                    problems.push(format!("{at}: {error}"));
                    continue;
                }
            };
            problems.extend(
                check_upstream(&case.expect, &lines)
                    .into_iter()
                    .map(|p| format!("{at}: live oracle: {p}")),
            );
            let decisions = run_spreadlab(&prepared);
            let outcome = finish(&prepared, &decisions, Ok(lines), &oracle, 3);
            problems.extend(outcome.mismatches.iter().map(|m| format!("{at}: {m}")));
            checked += 1;
        }
    }
    println!("integration tables: {checked} cases agree with the live oracle");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
