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

/// Prints `view` as JSON or `table`; `false` (already printed) when it cannot be serialised.
pub fn emit<T: serde::Serialize>(output: Format, view: &T, table: impl FnOnce() -> String) -> bool {
    match output {
        Format::Json => match serde_json::to_string_pretty(view) {
            Ok(json) => println!("{json}"),
            Err(error) => {
                eprintln!("error: cannot serialize the report: {error}");
                return false;
            }
        },
        Format::Table => print!("{}", table()),
    }
    true
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
