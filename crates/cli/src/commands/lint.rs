//! `spreadlab lint`: the rules (`--rules`), checked on the settled scenario; the API server's
//! validation errors are findings too.

use std::process::ExitCode;

use spreadlab_engine::analysis::lint::{self, RULES};
use spreadlab_engine::analysis::settle;

use std::fmt::Write;

use crate::LintFormat;
use crate::input::read_sources;
use crate::output::{
    EXIT_INPUT_ERROR, EXIT_PENDING, EXIT_PLACED, Format, emit, out, release_footer, stated_each,
};
use serde::Serialize;

/// Runs `lint`.
pub fn run(files: &[String], list_rules: bool, output: LintFormat) -> ExitCode {
    if list_rules {
        let text: String = RULES
            .iter()
            .map(|rule| {
                format!(
                    "{} ({})\n  {}\n  {}\n  fix: {}\n\n",
                    rule.id,
                    rule.severity.as_str(),
                    rule.title,
                    rule.explanation,
                    rule.fix
                )
            })
            .collect();
        return ExitCode::from(if out(&text) {
            EXIT_PLACED
        } else {
            EXIT_INPUT_ERROR
        });
    }
    let sources = match read_sources(files) {
        Ok(sources) => sources,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(EXIT_INPUT_ERROR);
        }
    };
    // The API server's validation errors are findings here; the other objects are still checked.
    let loaded = spreadlab_k8s::load(&sources, &crate::input::load_options());
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    // An error about an object (it names one) is the API server's validation; one about a
    // document or a file is text that cannot be read at all.
    let rule_of = |e: &spreadlab_k8s::InputError| {
        if e.object.is_some() {
            "kubernetes-validation"
        } else {
            "input-unreadable"
        }
    };
    let mut views: Vec<FindingView> = loaded
        .errors
        .iter()
        .map(|e| FindingView {
            rule: rule_of(e).into(),
            severity: "error",
            workload: e.object.clone(),
            file: Some(e.file.clone()),
            line: e.line,
            column: e.column,
            path: e.path.clone(),
            message: e.message.clone(),
            fix: lint::rule(rule_of(e)).map_or("", |r| r.fix),
        })
        .collect();
    let options = crate::input::scheduler_options();
    let settled = settle(loaded.scenario(), &options);
    let findings = lint::lint(&settled, &options);
    for finding in findings {
        let origin = loaded
            .workloads
            .iter()
            .find(|w| w.key() == finding.workload)
            .map(|w| w.origin.file.clone());
        views.push(FindingView {
            rule: finding.rule.into(),
            severity: finding.severity.as_str(),
            workload: Some(finding.workload),
            file: origin,
            line: None,
            column: None,
            path: finding.path,
            message: finding.message,
            fix: lint::rule(finding.rule).map_or("", |r| r.fix),
        });
    }
    let printed = match output {
        LintFormat::Table => out(&(render_lint(&views) + &release_footer())),
        LintFormat::Json => emit(Format::Json, &stated_each(&views), String::new),
        LintFormat::Sarif => emit(Format::Json, &sarif(&views), String::new),
    };
    if !printed {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    let errors = views.iter().any(|v| v.severity == "error");
    ExitCode::from(if errors { EXIT_PENDING } else { EXIT_PLACED })
}

/// One `lint` finding in JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FindingView {
    /// Rule ID.
    pub rule: String,
    /// `error`, `warning` or `note`.
    pub severity: &'static str,
    /// `Kind/namespace/name`, or the object the API server would reject.
    pub workload: Option<String>,
    /// The file it was read from.
    pub file: Option<String>,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// Field path.
    pub path: Option<String>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub fix: &'static str,
}

/// Renders `lint` as text.
pub fn render_lint(findings: &[FindingView]) -> String {
    let mut out = String::new();
    for f in findings {
        let location = match (&f.file, f.line) {
            (Some(file), Some(line)) => format!("{file}:{line}: "),
            (Some(file), None) => format!("{file}: "),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{location}{} [{}] {}{}: {}",
            f.severity,
            f.rule,
            f.workload.as_deref().unwrap_or("-"),
            f.path
                .as_deref()
                .map(|p| format!(" {p}"))
                .unwrap_or_default(),
            f.message
        );
        let _ = writeln!(out, "    fix: {}", f.fix);
    }
    let errors = findings.iter().filter(|f| f.severity == "error").count();
    let _ = writeln!(
        out,
        "{} finding(s): {errors} error(s), {} warning(s)",
        findings.len(),
        findings.iter().filter(|f| f.severity == "warning").count()
    );
    out
}

/// The findings as a SARIF 2.1.0 log (every rule described in the driver).
pub fn sarif(findings: &[FindingView]) -> serde_json::Value {
    use spreadlab_engine::analysis::lint::RULES;
    let rules: Vec<serde_json::Value> = RULES
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r.id,
                "shortDescription": {"text": r.title},
                "fullDescription": {"text": r.explanation},
                "help": {"text": r.fix},
                "defaultConfiguration": {"level": r.severity.as_str()},
            })
        })
        .collect();
    let results: Vec<serde_json::Value> = findings
        .iter()
        .map(|f| {
            let mut location = serde_json::json!({});
            if let Some(file) = &f.file {
                let mut physical = serde_json::json!({"artifactLocation": {"uri": file}});
                if let Some(line) = f.line {
                    physical["region"] = serde_json::json!({"startLine": line});
                    if let Some(column) = f.column {
                        physical["region"]["startColumn"] = serde_json::json!(column);
                    }
                }
                location["physicalLocation"] = physical;
            }
            let name = [f.workload.as_deref(), f.path.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            if !name.is_empty() {
                location["logicalLocations"] = serde_json::json!([{"fullyQualifiedName": name}]);
            }
            serde_json::json!({
                "ruleId": f.rule,
                "ruleIndex": RULES.iter().position(|r| r.id == f.rule),
                "level": f.severity,
                "message": {"text": f.message},
                "locations": [location],
            })
        })
        .collect();
    serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "spreadlab",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://example.invalid/spreadlab",
                "rules": rules,
            }},
            "results": results,
            // The kube-scheduler release the findings are for (SARIF run property bag).
            "properties": {
                "kubernetesVersion": format!("v{}", crate::input::kubernetes_version()),
            },
        }],
    })
}
