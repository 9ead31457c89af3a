//! `spreadlab snapshot`: the cluster read through its API server, written as one slimmed JSON
//! List (`spreadlab_cluster::ClusterRead::write_snapshot`).

use std::io::Write;
use std::process::ExitCode;

use crate::input;
use crate::output::{EXIT_INPUT_ERROR, EXIT_USAGE};

/// Reads the cluster named by the global flags and writes it to `file` (standard output when
/// `None`).
pub fn run(file: Option<&std::path::Path>) -> ExitCode {
    let Some(target) = input::cluster() else {
        eprintln!(
            "error: `snapshot` reads a cluster: give --kubeconfig PATH, --context NAME or --in-cluster"
        );
        return ExitCode::from(EXIT_USAGE);
    };
    let read = match input::read_cluster(target) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let written = match file {
        Some(path) => std::fs::File::create(path)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|file| {
                let mut out = std::io::BufWriter::new(file);
                read.write_snapshot(&mut out)
                    .and_then(|()| out.flush())
                    .map_err(|e| format!("{}: {e}", path.display()))
            }),
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            read.write_snapshot(&mut out)
                .and_then(|()| out.flush())
                .map_err(|e| format!("standard output: {e}"))
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(EXIT_INPUT_ERROR)
        }
    }
}
