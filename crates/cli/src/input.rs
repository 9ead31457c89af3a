//! The CLI's input side: reading files (or stdin) and loading them through `spreadlab-k8s`, with
//! every warning and error printed where the user sees it.

use std::io::Read;
use std::process::ExitCode;

use spreadlab_k8s::{LoadOptions, Loaded, Source};

use crate::output::EXIT_INPUT_ERROR;

/// Reads every file (`-`: standard input) as a named source.
pub fn read_sources(files: &[String]) -> Result<Vec<Source>, String> {
    let mut sources = Vec::with_capacity(files.len());
    for file in files {
        let text = if file == "-" {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("-: cannot read stdin: {e}"))?;
            text
        } else {
            std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?
        };
        sources.push(Source {
            name: file.clone(),
            text,
        });
    }
    Ok(sources)
}

/// The scenario of `files`, loaded and checked: warnings printed, `Err` (already printed) on any
/// input error.
pub fn load_files(files: &[String]) -> Result<Loaded, ExitCode> {
    let sources = match read_sources(files) {
        Ok(sources) => sources,
        Err(error) => {
            eprintln!("error: {error}");
            return Err(ExitCode::from(EXIT_INPUT_ERROR));
        }
    };
    let loaded = spreadlab_k8s::load(&sources, &LoadOptions::default());
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    if !loaded.errors.is_empty() {
        for error in &loaded.errors {
            eprintln!("error: {error}");
        }
        return Err(ExitCode::from(EXIT_INPUT_ERROR));
    }
    Ok(loaded)
}

/// Whether `--workload only` names `workload` (its `Kind/namespace/name` or its name); every
/// workload when not given.
pub fn named(only: Option<&str>, workload: &spreadlab_k8s::Workload) -> bool {
    only.is_none_or(|o| o == workload.key() || o == workload.name)
}
