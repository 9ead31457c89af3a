//! The CLI's input side: reading files (or stdin) and loading them through `spreadlab-k8s`, with
//! every warning and error printed where the user sees it.

use std::io::Read;
use std::process::ExitCode;

use spreadlab_engine::KubeVersion;
use spreadlab_k8s::{FieldValidation, LoadOptions, Loaded, Source};

use crate::output::EXIT_INPUT_ERROR;

/// `--validate`, set once by `main` before any input is read.
static FIELD_VALIDATION: std::sync::OnceLock<FieldValidation> = std::sync::OnceLock::new();

/// Sets `--validate` for every load of this process (the first call wins).
pub fn set_field_validation(validation: FieldValidation) {
    let _ = FIELD_VALIDATION.set(validation);
}

/// `--percentage-of-nodes-to-score`, set once by `main` (0: the adaptive default).
static PERCENTAGE_OF_NODES_TO_SCORE: std::sync::OnceLock<i32> = std::sync::OnceLock::new();

/// Sets `--percentage-of-nodes-to-score` for every simulation of this process.
pub fn set_percentage_of_nodes_to_score(percentage: i32) {
    let _ = PERCENTAGE_OF_NODES_TO_SCORE.set(percentage);
}

static KUBERNETES_VERSION: std::sync::OnceLock<KubeVersion> = std::sync::OnceLock::new();

/// Sets `--kubernetes-version` for every simulation of this process.
pub fn set_kubernetes_version(version: KubeVersion) {
    let _ = KUBERNETES_VERSION.set(version);
}

/// The release chosen with `--kubernetes-version` (the default release otherwise).
pub fn kubernetes_version() -> KubeVersion {
    KUBERNETES_VERSION.get().copied().unwrap_or_default()
}

/// The scheduler options every CLI command starts from: the default profile of
/// `--kubernetes-version` with `--percentage-of-nodes-to-score`.
pub fn scheduler_options() -> spreadlab_engine::scheduler::Options {
    let mut options = spreadlab_engine::scheduler::Options::for_version(kubernetes_version());
    options.profile.percentage_of_nodes_to_score = PERCENTAGE_OF_NODES_TO_SCORE
        .get()
        .copied()
        .filter(|&percentage| percentage != 0);
    options
}

/// The options every CLI load uses: the defaults with `--validate`.
pub fn load_options() -> LoadOptions {
    LoadOptions {
        field_validation: FIELD_VALIDATION.get().copied().unwrap_or_default(),
        kubernetes_version: Some(kubernetes_version()),
        ..LoadOptions::default()
    }
}

/// All inputs of one command together, in bytes (each one also at most
/// [`LoadOptions::max_bytes`], 64 MiB): 256 MiB.
pub const MAX_TOTAL_INPUT_BYTES: u64 = 256 * 1024 * 1024;

/// Reads every file (`-`: standard input) as a named source, never more than the limits: a file
/// over 64 MiB, or inputs over [`MAX_TOTAL_INPUT_BYTES`] together, are an error before they are
/// read whole (a multi-gigabyte file or `/dev/zero` does not exhaust memory).
pub fn read_sources(files: &[String]) -> Result<Vec<Source>, String> {
    let mut sources = Vec::with_capacity(files.len());
    let mut left = MAX_TOTAL_INPUT_BYTES;
    for file in files {
        let text = if file == "-" {
            read_bounded(file, std::io::stdin().lock(), &mut left)?
        } else {
            read_path(std::path::Path::new(file), &mut left)?
        };
        sources.push(Source {
            name: file.clone(),
            text,
        });
    }
    Ok(sources)
}

/// A file as UTF-8 text, within the same limits as [`read_bounded`] (named by its path).
pub fn read_path(path: &std::path::Path, left: &mut u64) -> Result<String, String> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| format!("{name}: {e}"))?;
    read_bounded(&name, file, left)
}

/// One file or stream as UTF-8 text, at most 64 MiB and at most `left` bytes (which it
/// lowers).
pub fn read_bounded(name: &str, reader: impl Read, left: &mut u64) -> Result<String, String> {
    let per_file = LoadOptions::default().max_bytes as u64;
    let limit = per_file.min(*left);
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name}: cannot read: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(if limit == per_file {
            format!("{name}: input is over the limit of {per_file} bytes; not read")
        } else {
            format!(
                "{name}: the inputs together are over the limit of {MAX_TOTAL_INPUT_BYTES} bytes; not read"
            )
        });
    }
    *left -= bytes.len() as u64;
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(format!(
            "{name}: the text is UTF-16 (PowerShell's `>` writes it); convert it to UTF-8, e.g. \
             `iconv -f UTF-16 -t UTF-8 {name}` or `Out-File -Encoding utf8`"
        ));
    }
    String::from_utf8(bytes).map_err(|e| format!("{name}: not UTF-8 text: {e}"))
}

/// `--kubeconfig`, `--context`, `--in-cluster`: the cluster every command reads first, set once
/// by `main`.
static CLUSTER: std::sync::OnceLock<spreadlab_cluster::Target> = std::sync::OnceLock::new();

/// Sets the cluster every load of this process reads (the first call wins).
pub fn set_cluster(target: spreadlab_cluster::Target) {
    let _ = CLUSTER.set(target);
}

/// The cluster the flags name, if any.
pub fn cluster() -> Option<&'static spreadlab_cluster::Target> {
    CLUSTER.get()
}

/// Reads `target` with a progress line on a terminal (standard error) and one summary line;
/// `Err` (already printed) when it cannot.
pub fn read_cluster(
    target: &spreadlab_cluster::Target,
) -> Result<spreadlab_cluster::ClusterRead, ExitCode> {
    use std::io::{IsTerminal, Write};
    let started = std::time::Instant::now();
    let failed = |error: spreadlab_cluster::ReadError| {
        eprintln!("error: {error}");
        ExitCode::from(EXIT_INPUT_ERROR)
    };
    let cluster = spreadlab_cluster::Cluster::connect(target).map_err(failed)?;
    let terminal = std::io::stderr().is_terminal();
    let mut progress = |p: spreadlab_cluster::Progress| {
        if terminal {
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r\x1b[Kreading {} (context \"{}\"): {} {} [{}/{}]",
                cluster.server,
                cluster.context,
                p.items,
                p.kind.plural,
                p.kinds_done + 1,
                p.kinds
            );
            let _ = err.flush();
        }
    };
    let read = cluster.read(&mut progress);
    if terminal {
        eprint!("\r\x1b[K");
    }
    let read = read.map_err(failed)?;
    for warning in &read.warnings {
        eprintln!("warning: {warning}");
    }
    eprintln!(
        "read {} objects of {} kinds from {} (context \"{}\") in {:.1} s",
        read.objects(),
        spreadlab_cluster::KINDS.len() - read.warnings.len(),
        read.server,
        read.context,
        started.elapsed().as_secs_f64()
    );
    Ok(read)
}

/// The scenario of the cluster the flags name (if any) with `files` on top, loaded and checked:
/// warnings printed, `Err` (already printed) on any input error.
pub fn load_files(files: &[String]) -> Result<Loaded, ExitCode> {
    let mut sources = match cluster() {
        Some(target) => read_cluster(target)?.sources(),
        None => Vec::new(),
    };
    match read_sources(files) {
        Ok(files) => sources.extend(files),
        Err(error) => {
            eprintln!("error: {error}");
            return Err(ExitCode::from(EXIT_INPUT_ERROR));
        }
    }
    let loaded = spreadlab_k8s::load(&sources, &load_options());
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
