//! `spreadlab lint`: the rules (`--rules`), checked on the settled scenario; the API server's
//! validation errors are findings too.

use std::process::ExitCode;

use spreadlab_engine::analysis::lint::{self, RULES};
use spreadlab_engine::analysis::settle;
use spreadlab_engine::scheduler::Options;
use spreadlab_k8s::LoadOptions;

use crate::LintFormat;
use crate::analyses;
use crate::input::read_sources;
use crate::output::{EXIT_INPUT_ERROR, EXIT_PENDING, EXIT_PLACED, Format, emit};

/// Runs `lint`.
pub fn run(files: &[String], list_rules: bool, output: LintFormat) -> ExitCode {
    if list_rules {
        for rule in RULES {
            println!(
                "{} ({})\n  {}\n  {}\n  fix: {}\n",
                rule.id,
                rule.severity.as_str(),
                rule.title,
                rule.explanation,
                rule.fix
            );
        }
        return ExitCode::from(EXIT_PLACED);
    }
    let sources = match read_sources(files) {
        Ok(sources) => sources,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(EXIT_INPUT_ERROR);
        }
    };
    // The API server's validation errors are findings here; the other objects are still checked.
    let loaded = spreadlab_k8s::load(&sources, &LoadOptions::default());
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    let validation = lint::rule("kubernetes-validation").map_or("", |r| r.fix);
    let mut views: Vec<analyses::FindingView> = loaded
        .errors
        .iter()
        .map(|e| analyses::FindingView {
            rule: "kubernetes-validation".into(),
            severity: "error",
            workload: e.object.clone(),
            file: Some(e.file.clone()),
            line: e.line,
            column: e.column,
            path: e.path.clone(),
            message: e.message.clone(),
            fix: validation,
        })
        .collect();
    let options = Options::default();
    let settled = settle(loaded.scenario(), &options);
    let findings = lint::lint(&settled, &options);
    for finding in findings {
        let origin = loaded
            .workloads
            .iter()
            .find(|w| w.key() == finding.workload)
            .map(|w| w.origin.file.clone());
        views.push(analyses::FindingView {
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
        LintFormat::Table => {
            print!("{}", analyses::render_lint(&views));
            true
        }
        LintFormat::Json => emit(Format::Json, &views, String::new),
        LintFormat::Sarif => emit(Format::Json, &analyses::sarif(&views), String::new),
    };
    if !printed {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    let errors = views.iter().any(|v| v.severity == "error");
    ExitCode::from(if errors { EXIT_PENDING } else { EXIT_PLACED })
}
