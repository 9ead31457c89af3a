//! The `0/N nodes are available: ...` message (`framework.FitError.Error()` in
//! `pkg/scheduler/framework/types.go`, v1.35).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::status::Status;

/// What went wrong per node, as FitError's `Diagnosis` holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnosis {
    /// Nodes with an explicit failure status, in node order.
    pub node_statuses: Vec<(String, Status)>,
    /// The status of nodes absent from `node_statuses` (PreFilter rejection or narrowing).
    pub absent_nodes_status: Option<Status>,
    /// The PreFilter rejection message, if PreFilter rejected.
    pub pre_filter_msg: Option<String>,
    /// The PostFilter message (DRA note and preemption text), if any.
    pub post_filter_msg: Option<String>,
}

/// The reason histogram: `"<count> <reason>"` strings sorted bytewise (Go `sort.Strings`).
pub fn reason_histogram(num_all_nodes: usize, diagnosis: &Diagnosis) -> Vec<String> {
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, status) in &diagnosis.node_statuses {
        for reason in status.reasons() {
            *reasons.entry(reason.as_ref()).or_insert(0) += 1;
        }
    }
    if diagnosis.node_statuses.len() < num_all_nodes
        && let Some(absent) = &diagnosis.absent_nodes_status
    {
        for reason in absent.reasons() {
            *reasons.entry(reason.as_ref()).or_insert(0) +=
                num_all_nodes - diagnosis.node_statuses.len();
        }
    }
    let mut lines: Vec<String> = reasons
        .into_iter()
        .map(|(reason, count)| format!("{count} {reason}"))
        .collect();
    lines.sort();
    lines
}

/// `FitError.Error()`.
pub fn fit_error_message(num_all_nodes: usize, diagnosis: &Diagnosis) -> String {
    let mut message = format!("0/{num_all_nodes} nodes are available:");
    match &diagnosis.pre_filter_msg {
        Some(pre_filter_msg) if !pre_filter_msg.is_empty() => {
            message.push_str(&format!(" {pre_filter_msg}."));
        }
        _ => {
            let histogram = reason_histogram(num_all_nodes, diagnosis);
            if !histogram.is_empty() {
                message.push_str(&format!(" {}.", histogram.join(", ")));
            }
        }
    }
    if let Some(post_filter_msg) = &diagnosis.post_filter_msg
        && !post_filter_msg.is_empty()
    {
        message.push(' ');
        message.push_str(post_filter_msg);
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framework::Code;

    #[test]
    fn histogram_sorts_as_strings() {
        let diagnosis = Diagnosis {
            node_statuses: alloc::vec![
                (
                    String::from("a"),
                    Status::with_reasons(
                        Code::Unschedulable,
                        alloc::vec![
                            String::from("Insufficient cpu"),
                            String::from("Insufficient memory")
                        ]
                    )
                ),
                (
                    String::from("b"),
                    Status::new(Code::Unschedulable, "Insufficient cpu")
                ),
                (
                    String::from("c"),
                    Status::new(
                        Code::UnschedulableAndUnresolvable,
                        "node(s) had untolerated taint(s)"
                    )
                ),
            ],
            post_filter_msg: Some(String::from(
                "no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
            )),
            ..Diagnosis::default()
        };
        // The worked example of scheduler-framework.md section 7.2.
        assert_eq!(
            fit_error_message(3, &diagnosis),
            "0/3 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
        );
    }
}
