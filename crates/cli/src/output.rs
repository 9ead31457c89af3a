//! The CLI's output side, shared by every command: exit codes, output formats, printing a report
//! as JSON or a table, and the few display conventions every table uses (one zone label, one
//! percent).

use clap::ValueEnum;

/// Every replica was placed (`whatif`: back to desired after every failure; `capacity`: every
/// HPA maxReplicas reachable; `rollout`: completes; `stalemate`: none found; `lint`: no error).
pub const EXIT_PLACED: u8 = 0;
/// At least one replica stays Pending (or the command's negative verdict, as above).
pub const EXIT_PENDING: u8 = 1;
/// A usage error (clap's own errors exit 2 too).
pub const EXIT_USAGE: u8 = 2;
/// The input could not be read or parsed.
pub const EXIT_INPUT_ERROR: u8 = 3;

/// `-o` of the report commands.
#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// A readable table.
    Table,
    /// The JSON report (docs/json-schema.md).
    Json,
}

/// Prints `view` as JSON or `table`; `false` (the error already printed) when it cannot be
/// serialised or written ([`out`]).
pub fn emit<T: serde::Serialize>(output: Format, view: &T, table: impl FnOnce() -> String) -> bool {
    match output {
        Format::Json => match serde_json::to_string_pretty(view) {
            Ok(mut json) => {
                json.push('\n');
                out(&json)
            }
            Err(error) => {
                eprintln!("error: cannot serialize the report: {error}");
                false
            }
        },
        Format::Table => out(&table()),
    }
}

/// A report with the kube-scheduler release it mirrors, first (`"kubernetesVersion": "v1.37"`, as
/// `simulate` states it): every JSON report, or every entry of a report that is a list, says which
/// release's scheduler its answer is for.
#[derive(serde::Serialize)]
pub struct Stated<'a, T: ?Sized> {
    #[serde(rename = "kubernetesVersion")]
    kubernetes_version: String,
    #[serde(flatten)]
    report: &'a T,
}

/// `report` with the release of `--kubernetes-version` ([`Stated`]).
pub fn stated<T: ?Sized>(report: &T) -> Stated<'_, T> {
    Stated {
        kubernetes_version: format!("v{}", crate::input::kubernetes_version()),
        report,
    }
}

/// Every entry of a list report [`stated`].
pub fn stated_each<T>(reports: &[T]) -> Vec<Stated<'_, T>> {
    reports.iter().map(|report| stated(report)).collect()
}

/// The last line of every table but `simulate`'s (whose first line says it): the release the
/// answer is for.
pub fn release_footer() -> String {
    format!(
        "(kube-scheduler v{} semantics; --kubernetes-version 1.34|1.35|1.36|1.37)\n",
        crate::input::kubernetes_version()
    )
}

/// Writes `text` to standard output. When the reader has gone (`spreadlab … | head`: a broken
/// pipe), the rest is dropped quietly and the command still exits with its verdict's code;
/// any other write error (a full disk) is printed and returns `false` (exit 3). `print!` would
/// panic (exit 101) in both cases.
pub fn out(text: &str) -> bool {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => true,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => true,
        Err(error) => {
            eprintln!("error: cannot write the output: {error}");
            false
        }
    }
}

/// A zone as every table shows it: the engine's label, `(no zone)` for nodes without
/// `topology.kubernetes.io/zone` ([`spreadlab_engine::analysis::NO_ZONE`]). The JSON of
/// `simulate` keeps its documented `<none>` key (docs/json-schema.md), mapped here.
pub fn zone_label(zone: &str) -> &str {
    if zone == JSON_NO_ZONE {
        spreadlab_engine::analysis::NO_ZONE
    } else {
        zone
    }
}

/// The `perZone` key of `simulate`'s JSON for nodes without a zone (schema version 1).
pub const JSON_NO_ZONE: &str = "<none>";
