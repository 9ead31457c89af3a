//! Built-in examples: the seed situations of issue 5, embedded from the shared fixtures under
//! `tests/` (the same files the engine's conformance tests and the CLI tests read).

/// One built-in example: a cluster snapshot and the workloads to place, shown as one text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Example {
    /// Stable id (the fixture's folder or file name); used in URLs and tests.
    pub id: &'static str,
    /// Menu title.
    pub title: &'static str,
    /// One sentence on what to look at.
    pub hint: &'static str,
    /// Whether it is a seed scenario (`tests/scenarios`), whose placements are recorded from the
    /// real kube-scheduler; else an analysis fixture (`tests/analyses`).
    pub recorded: bool,
    /// The parts, joined with `---` document separators.
    parts: &'static [&'static str],
}

impl Example {
    /// The editor text: every part, separated by `---` lines.
    pub fn text(&self) -> String {
        join_documents(self.parts)
    }
}

/// `parts` as one YAML stream: each part's trailing blank lines dropped, separated by `---`.
pub fn join_documents(parts: &[&str]) -> String {
    let mut text = String::new();
    for (index, part) in parts.iter().enumerate() {
        if index > 0 {
            text.push_str("---\n");
        }
        text.push_str(part.trim_end());
        text.push('\n');
    }
    text
}

macro_rules! scenario {
    ($name:literal) => {
        &[
            include_str!(concat!("../../../tests/scenarios/", $name, "/cluster.yaml")),
            include_str!(concat!(
                "../../../tests/scenarios/",
                $name,
                "/workload.yaml"
            )),
        ]
    };
}

/// Every built-in example, in menu order.
pub const EXAMPLES: &[Example] = &[
    Example {
        id: "gpu-three-zones-one-full",
        title: "GPU replicas across three zones, one zone full",
        hint: "The third replica is Pending: zone-c's only GPU is taken. Click it to see why.",
        recorded: true,
        parts: scenario!("gpu-three-zones-one-full"),
    },
    Example {
        id: "control-plane-only-zone",
        title: "A zone with only a tainted control-plane node",
        hint: "nodeTaintsPolicy Ignore counts zone-c as an empty domain. Try Honor.",
        recorded: true,
        parts: scenario!("control-plane-only-zone"),
    },
    Example {
        id: "min-domains-match-label-keys",
        title: "minDomains and matchLabelKeys during a rollout",
        hint: "The hostname constraint asks for 5 domains but only 4 hosts are eligible. Lower minDomains.",
        recorded: true,
        parts: scenario!("min-domains-match-label-keys"),
    },
    Example {
        id: "vllm-eight-two-zones",
        title: "Eight vLLM replicas over two zones",
        hint: "Hard zone spread plus a soft hostname spread: four per zone.",
        recorded: true,
        parts: scenario!("vllm-eight-two-zones"),
    },
    Example {
        id: "anti-affinity-too-few-nodes",
        title: "Anti-affinity with too few nodes",
        hint: "Four replicas that each need their own node, on three nodes.",
        recorded: true,
        parts: scenario!("anti-affinity-too-few-nodes"),
    },
    Example {
        id: "rollout-gpu-busy",
        title: "A rollout with every GPU busy",
        hint: "Open What-if → Rollout and step through: the surge pod has no GPU.",
        recorded: false,
        parts: &[include_str!(
            "../../../tests/analyses/rollout-gpu-busy.yaml"
        )],
    },
    Example {
        id: "spread-three-zones",
        title: "Three zones, one replica each (fail a zone)",
        hint: "Open What-if and fail a zone: where do the replacements go?",
        recorded: false,
        parts: &[include_str!(
            "../../../tests/analyses/spread-three-zones.yaml"
        )],
    },
    Example {
        id: "statefulset-zonal-volumes",
        title: "A StatefulSet whose disks are zonal",
        hint: "web-0's disk is in the full zone: it cannot move. Click it, then fail zone-b.",
        recorded: true,
        parts: scenario!("statefulset-zonal-volumes"),
    },
    Example {
        id: "large-120-nodes-zone-spread",
        title: "120 nodes, 30 pods, zone spread",
        hint: "A larger cluster: the ninth GPU replica fits nowhere.",
        recorded: true,
        parts: scenario!("large-120-nodes-zone-spread"),
    },
    Example {
        id: "version-node-declared-features",
        title: "Kubernetes 1.36: a node must declare a feature",
        hint: "On 1.35 the trainer lands on the emptier node-b. Switch kube-scheduler to 1.36: node-b does not declare the feature its restart rule needs.",
        recorded: true,
        parts: scenario!("version-node-declared-features"),
    },
    Example {
        id: "version-namespace-selector-notin",
        title: "Kubernetes 1.37: a NotIn namespaceSelector",
        hint: "Pending up to 1.36 (the selector matched every namespace); switch kube-scheduler to 1.37 and it is placed.",
        recorded: true,
        parts: scenario!("version-namespace-selector-notin"),
    },
    Example {
        id: "version-resize",
        title: "Kubernetes 1.36 and 1.37: pods being resized in place",
        hint: "On 1.37 the batch replica lands on node-a (the trainer counts its largest total, 3 CPU). On 1.36 it stays Pending (the trainer counts 4, the server its pod-level status, 3); on 1.35 it lands on node-b (the server counts its spec, 1).",
        recorded: true,
        parts: scenario!("version-resize"),
    },
];

/// The example with this id.
pub fn by_id(id: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.id == id)
}
