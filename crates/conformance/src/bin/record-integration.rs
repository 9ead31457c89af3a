//! Records what the real kube-scheduler (the Go oracle, `tests/oracle`) decides on every case of
//! the ported integration tests (`tests/integration/**/<TestName>.yaml`), as
//! `<TestName>.oracle.jsonl` beside each table, and checks upstream's assertions on the way: a
//! case whose real answer breaks them is a transcription error and fails the run.
//!
//! Usage: `record-integration [TABLE.yaml...]` (default: every table). The oracle binary is
//! `$SPREADLAB_ORACLE`, else `$HOME/.cache/spreadlab/oracle` (built by `scripts/test.sh`; or
//! `cd tests/oracle && go build -o /tmp/oracle-bin .`).

use std::path::PathBuf;
use std::process::ExitCode;

use spreadlab_conformance::differential::Oracle;
use spreadlab_conformance::integration::{
    ask_oracle, check_upstream, integration_root, load_table, recording_line, tables,
};

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let tables = if args.is_empty() {
        tables()
    } else {
        args.iter()
            .map(|p| load_table(&std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())))
            .collect()
    };
    let tables = match tables {
        Ok(tables) => tables,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let oracle = Oracle {
        path: std::env::var_os("SPREADLAB_ORACLE")
            .map(PathBuf::from)
            .unwrap_or_else(Oracle::default_path),
        args: Vec::new(),
    };
    let mut failed = false;
    for table in &tables {
        let mut out = String::new();
        let (mut recorded, mut skipped) = (0, 0);
        let runnable: Vec<_> = table.cases.iter().filter(|c| c.skip.is_none()).collect();
        skipped += table.cases.len() - runnable.len();
        for (case, answer) in ask_oracle(&oracle, &runnable) {
            match answer {
                Ok((prepared, lines)) => {
                    for problem in check_upstream(&case.expect, &lines) {
                        eprintln!("{}: {}: {problem}", table.file, case.name);
                        failed = true;
                    }
                    out.push_str(&recording_line(&case.name, &prepared.input, &lines).to_string());
                    out.push('\n');
                    recorded += 1;
                }
                Err(error) => {
                    eprintln!("{}: {}: {error}", table.file, case.name);
                    failed = true;
                }
            }
        }
        if let Err(error) = std::fs::write(table.recording(), out) {
            eprintln!("{}: {error}", table.recording().display());
            failed = true;
        }
        println!(
            "{}: {recorded} cases recorded, {skipped} skipped",
            integration_root().join(&table.file).display()
        );
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
