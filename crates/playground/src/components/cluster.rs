//! The cluster: zones as columns, nodes as cards with CPU, memory and GPU usage, pods as chips
//! coloured by workload (outlined when of an older revision), and the Pending tray.

use std::rc::Rc;

use yew::prelude::*;

use super::workload_class;
use crate::handles::Dispatch;
use crate::handles::Shared;
use crate::model::{
    self, CHIPS_PER_NODE, GROUP_NODES_SHOWN, LEGEND_SHOWN, NodeGroup, NodeView, PENDING_SHOWN,
    PodChip, Usage, format_bytes, format_cpu,
};
use crate::state::{Action, FailTarget, Panel};

/// Props of [`ClusterView`].
#[derive(Properties, PartialEq)]
pub struct ClusterProps {
    /// The analysis.
    pub analysis: Shared,
    /// Selected pod.
    pub selected_pod: Option<String>,
    /// Selected node.
    pub selected_node: Option<String>,
    /// The failed zone or node (What-if), drawn struck out.
    pub fail: Option<FailTarget>,
    /// Dispatch.
    pub dispatch: Dispatch,
}

fn bar(label: &str, usage: Usage, text: String) -> Html {
    html! {
        <div class="usage" title={format!("{label}: {text}")}>
            <span class="usage-label">{ label.to_string() }</span>
            <span class="usage-track" role="meter" aria-label={label.to_string()}
                aria-valuenow={usage.percent().to_string()} aria-valuemin="0" aria-valuemax="100">
                <span class="usage-fill" style={format!("width:{}%", usage.percent())}></span>
            </span>
            <span class="usage-text">{ text }</span>
        </div>
    }
}

/// A pod chip (a button: keyboard and screen-reader reachable).
pub fn chip(
    pod: &PodChip,
    selected: bool,
    revision_of: &[Option<String>],
    dispatch: &Dispatch,
) -> Html {
    let key = pod.key.clone();
    let dispatch = dispatch.clone();
    // Older revision: the pod's revision differs from the one the workload creates now.
    let old = pod.workload.is_some_and(|w| {
        pod.revision.is_some()
            && revision_of.get(w).cloned().flatten().is_some()
            && revision_of.get(w).cloned().flatten() != pod.revision
    });
    let name = pod.key.rsplit('/').next().unwrap_or(&pod.key).to_string();
    html! {
        <button class={classes!("chip", workload_class(pod.workload), pod.new.then_some("new"),
                old.then_some("old"), selected.then_some("selected"))}
            title={pod.key.clone()} data-pod={pod.key.clone()} aria-pressed={selected.to_string()}
            onclick={Callback::from(move |_| dispatch.dispatch(Action::SelectPod(Some(key.clone()))))}>
            { name }
        </button>
    }
}

/// A small toggle that fails a zone or node (or brings it back) and opens the What-if panel.
fn fail_button(target: FailTarget, failed: bool, dispatch: &Dispatch) -> Html {
    let name = match &target {
        FailTarget::Zone(zone) => format!("zone {zone}"),
        FailTarget::Node(node) => format!("node {node}"),
    };
    let dispatch = dispatch.clone();
    let onclick = Callback::from(move |_| {
        dispatch.dispatch(Action::Fail((!failed).then(|| target.clone())));
        dispatch.dispatch(Action::ShowPanel(Panel::WhatIf));
    });
    html! {
        <button class={classes!("fail-toggle", failed.then_some("active"))} {onclick}
            aria-pressed={failed.to_string()}
            aria-label={if failed { format!("Bring back {name}") } else { format!("Fail {name}") }}
            title={if failed { format!("Bring back {name}") } else { format!("Fail {name} (What-if)") }}>
            { if failed { "↺" } else { "✕" } }
        </button>
    }
}

/// Props of [`NodeCard`]: compared by value, so after a re-simulation only the cards whose node
/// changed render again.
#[derive(Properties, PartialEq)]
pub struct NodeCardProps {
    /// The node as drawn.
    pub node: NodeView,
    /// Whether it is the selected node.
    pub selected: bool,
    /// Whether it is failed in the What-if panel.
    pub failed: bool,
    /// The selected pod, when it is on this node.
    pub selected_pod: Option<String>,
    /// The revision each workload creates now (older ones are outlined).
    pub revision_of: Rc<Vec<Option<String>>>,
    /// Dispatch.
    pub dispatch: Dispatch,
}

/// One node card.
#[function_component(NodeCard)]
pub fn node_card(props: &NodeCardProps) -> Html {
    let node = &props.node;
    let selected = props.selected;
    let failed = props.failed;
    let dispatch = props.dispatch.clone();
    let name = node.name.clone();
    let toggle = Callback::from(move |_| dispatch.dispatch(Action::ToggleNode(name.clone())));
    html! {
        <article class={classes!("node", selected.then_some("selected"), failed.then_some("failed"),
                (!node.taints.is_empty()).then_some("tainted"))}
            data-node={node.name.clone()}>
            <button class="node-name link" onclick={toggle} aria-pressed={selected.to_string()}>
                { node.name.clone() }
            </button>
            { fail_button(FailTarget::Node(node.name.clone()), failed, &props.dispatch) }
            if node.unschedulable { <span class="badge">{ "cordoned" }</span> }
            { for node.taints.iter().map(|t| html! { <span class="badge taint" title={t.clone()}>{ "taint" }</span> }) }
            { bar("CPU", node.cpu, format!("{}/{}", format_cpu(node.cpu.requested), format_cpu(node.cpu.allocatable))) }
            { bar("Mem", node.memory, format!("{}/{}", format_bytes(node.memory.requested), format_bytes(node.memory.allocatable))) }
            if let Some((_, gpu)) = &node.gpu {
                <div class="gpu" title="GPU slots">
                    <span class="usage-label">{ "GPU" }</span>
                    { for (0..gpu.allocatable.clamp(0, 16)).map(|slot| html! {
                        <span class={classes!("slot", (slot < gpu.requested).then_some("used"))}></span>
                    }) }
                    <span class="usage-text">{ format!("{}/{}", gpu.requested, gpu.allocatable) }</span>
                </div>
            }
            <div class="chips">
                { for node.pods.iter().take(model::bounded(node.pods.len(), CHIPS_PER_NODE).0).map(|p| chip(p, props.selected_pod.as_deref() == Some(p.key.as_str()), &props.revision_of, &props.dispatch)) }
                { more(model::bounded(node.pods.len(), CHIPS_PER_NODE).1, "pod") }
            </div>
        </article>
    }
}

/// "+N more" for a bounded list (nothing when nothing is left out).
fn more(hidden: usize, what: &str) -> Html {
    if hidden == 0 {
        return html! {};
    }
    html! { <span class="more" title={format!("{hidden} more {what}(s) not drawn")}>{ format!("+{hidden} more") }</span> }
}

fn group_card(group: &NodeGroup, workloads: &[String], dispatch: &Dispatch) -> Html {
    let (shown, hidden) = model::bounded(group.nodes.len(), GROUP_NODES_SHOWN);
    html! {
        <article class="node group" tabindex="0" aria-label={format!("{} nodes of {}", group.count, group.shape)}>
            <strong>{ format!("{} × {}", group.count, group.shape) }</strong>
            { bar("CPU", group.cpu, format!("{}/{}", format_cpu(group.cpu.requested), format_cpu(group.cpu.allocatable))) }
            { bar("Mem", group.memory, format!("{}/{}", format_bytes(group.memory.requested), format_bytes(group.memory.allocatable))) }
            if let Some(gpu) = group.gpu {
                { bar("GPU", gpu, format!("{}/{}", gpu.requested, gpu.allocatable)) }
            }
            <details class="group-nodes">
                <summary>{ "Nodes" }</summary>
                <ul>
                    { for group.nodes.iter().take(shown).map(|n| {
                        let dispatch = dispatch.clone();
                        let name = n.clone();
                        html! { <li><button class="link" data-node={n.clone()}
                            onclick={Callback::from(move |_| dispatch.dispatch(Action::ToggleNode(name.clone())))}>{ n.clone() }</button></li> }
                    }) }
                    if hidden > 0 { <li>{ more(hidden, "node") }</li> }
                </ul>
            </details>
            <ul class="group-pods">
                { for group.pods_per_workload.iter().map(|(w, n)| html! {
                    <li><span class={classes!("dot", workload_class(*w))}></span>
                        { format!("{} {}", n, w.and_then(|i| workloads.get(i)).map_or("other pods", |k| k.as_str())) }</li>
                }) }
            </ul>
        </article>
    }
}

/// The cluster column.
#[function_component(ClusterView)]
pub fn cluster_view(props: &ClusterProps) -> Html {
    let analysis = &props.analysis.0;
    // The revision each workload creates now: that of its created pods.
    let revision_of: Rc<Vec<Option<String>>> = Rc::new(
        (0..analysis.workloads.len())
            .map(|w| {
                analysis
                    .zones
                    .iter()
                    .flat_map(|z| z.nodes.iter())
                    .flat_map(|n| n.pods.iter())
                    .chain(analysis.pending.iter())
                    .find(|p| p.new && p.workload == Some(w))
                    .and_then(|p| p.revision.clone())
            })
            .collect(),
    );
    let workload_keys: Vec<String> = analysis.workloads.iter().map(|w| w.key.clone()).collect();
    let (pending_shown, pending_hidden) = model::bounded(analysis.pending.len(), PENDING_SHOWN);
    html! {
        <div class="cluster">
            <ul class="legend" aria-label="Workloads">
                { for analysis.workloads.iter().enumerate().take(model::bounded(analysis.workloads.len(), LEGEND_SHOWN).0).map(|(i, w)| html! {
                    <li><span class={classes!("dot", workload_class(Some(i)))}></span>
                        { format!("{} — {} desired: {} running, {} placed, {} Pending",
                            w.key, w.desired, w.running, w.placed, w.pending) }
                        if w.not_built > 0 {
                            <span class="muted">{ format!(" ({} of them counted, not simulated: more than could ever fit these nodes)", w.not_built) }</span>
                        }</li>
                }) }
                if model::bounded(analysis.workloads.len(), LEGEND_SHOWN).1 > 0 {
                    <li>{ more(model::bounded(analysis.workloads.len(), LEGEND_SHOWN).1, "workload") }</li>
                }
            </ul>
            <div class="pending-tray" id="pending" aria-label="Pending pods">
                <h2>{ format!("Pending ({})", analysis.pending.len()) }</h2>
                if analysis.pending.is_empty() {
                    <p class="muted">{ "Every replica is placed." }</p>
                } else {
                    <div class="chips">
                        { for analysis.pending.iter().take(pending_shown).map(|p| chip(p, props.selected_pod.as_deref() == Some(p.key.as_str()), &revision_of, &props.dispatch)) }
                    </div>
                    if pending_hidden > 0 {
                        // The rest on request, in a box of bounded height.
                        <details class="more-pending">
                            <summary>{ format!("+{pending_hidden} more Pending") }</summary>
                            <div class="chips scroll">
                                { for analysis.pending.iter().skip(pending_shown).map(|p| chip(p, props.selected_pod.as_deref() == Some(p.key.as_str()), &revision_of, &props.dispatch)) }
                            </div>
                        </details>
                    }
                }
            </div>
            <div class="zones" style={format!("--zones:{}", analysis.zones.len().max(1))}>
                { for analysis.zones.iter().map(|zone| {
                    let zone_failed = props.fail == Some(FailTarget::Zone(zone.name.clone()));
                    html! {
                        <section class={classes!("zone", zone_failed.then_some("failed"))} data-zone={zone.name.clone()}
                            aria-label={format!("zone {}", zone.name)}>
                            <h3 tabindex="0">{ format!("{} ({} node{})", zone.name, zone.node_count, if zone.node_count == 1 { "" } else { "s" }) }
                                { fail_button(FailTarget::Zone(zone.name.clone()), zone_failed, &props.dispatch) }
                            </h3>
                            <div class="nodes">
                                { for zone.nodes.iter().map(|n| {
                                    let failed = zone_failed || props.fail == Some(FailTarget::Node(n.name.clone()));
                                    let selected_pod = props.selected_pod.clone()
                                        .filter(|key| n.pods.iter().any(|p| &p.key == key));
                                    html! {
                                        <NodeCard key={n.name.clone()} node={n.clone()}
                                            selected={props.selected_node.as_deref() == Some(n.name.as_str())}
                                            {failed} {selected_pod} revision_of={revision_of.clone()}
                                            dispatch={props.dispatch.clone()} />
                                    }
                                }) }
                                { for zone.groups.iter().map(|g| group_card(g, &workload_keys, &props.dispatch)) }
                            </div>
                        </section>
                    }
                }) }
            </div>
        </div>
    }
}
