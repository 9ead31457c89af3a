//! The What-if pictures as SVG: a rollout timeline, capacity per zone, the tie-break outcomes and
//! a failure before and after, each drawn from `crate::pictures` (geometry only, no scheduling
//! logic). Each picture is focusable, names itself to screen readers (`role="img"` with a
//! summary) and has its numbers as a table underneath.

use yew::prelude::*;

use crate::handles::Dispatch;
use crate::pictures::{CapacityPicture, FailurePicture, Histogram, RiskPicture, RolloutPicture};
use crate::state::Action;

/// Width of every picture's coordinate system (it scales to its box).
const WIDTH: f64 = 480.0;
/// Left margin, for row labels (zone names) and the vertical axis.
const LEFT: f64 = 84.0;
/// Right margin.
const RIGHT: f64 = 8.0;

/// A number for an SVG attribute (one decimal is enough at this size).
fn n(value: f64) -> String {
    format!("{value:.1}")
}

/// `text` cut to `max` characters with an ellipsis (row labels; the full name is in the table).
fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// The frame shared by every picture: caption, the SVG (focusable, summarised), the legend and a
/// table of the same numbers.
fn figure(
    id: &str,
    caption: String,
    summary: String,
    height: f64,
    body: Html,
    legend: &[(&'static str, &'static str)],
    table: Html,
) -> Html {
    let title = format!("{id}-title");
    let desc = format!("{id}-desc");
    html! {
        <figure class="picture" id={id.to_string()}>
            <figcaption id={title.clone()}>{ caption }</figcaption>
            <svg class="chart" viewBox={format!("0 0 {WIDTH} {}", n(height))} role="img" tabindex="0"
                aria-labelledby={format!("{title} {desc}")} preserveAspectRatio="xMinYMin meet">
                <desc id={desc}>{ summary }</desc>
                { body }
            </svg>
            <ul class="chart-legend">
                { for legend.iter().map(|(class, label)| html! {
                    <li><span class={classes!("swatch", *class)} aria-hidden="true"></span>{ *label }</li>
                }) }
            </ul>
            <details class="numbers">
                <summary>{ "The numbers" }</summary>
                { table }
            </details>
        </figure>
    }
}

/// A rectangle with a hover title.
fn bar(class: &'static str, x: f64, y: f64, width: f64, height: f64) -> Html {
    if height <= 0.0 || width <= 0.0 {
        return Html::default();
    }
    html! { <rect class={class} x={n(x)} y={n(y)} width={n(width)} height={n(height)} /> }
}

/// A label.
fn label(class: &'static str, x: f64, y: f64, anchor: &'static str, text: String) -> Html {
    html! { <text class={class} x={n(x)} y={n(y)} text-anchor={anchor}>{ text }</text> }
}

/// The rollout timeline: per step, available and unavailable replicas up to the desired count
/// and the surge above it (dashed line: desired), the stall marked with the scheduler's message;
/// underneath, per zone and step, the new (filled) and old (outlined) revision's running pods.
/// Clicking a column moves the timeline to that step (`dispatch`, with the `current` step; an
/// alternative's timeline has neither). `id` names the figure.
pub fn rollout(
    id: &str,
    picture: &RolloutPicture,
    current: Option<usize>,
    dispatch: Option<&Dispatch>,
) -> Html {
    let columns = picture.columns.len().max(1) as f64;
    let plot = 120.0;
    let top = 14.0;
    let row = 18.0;
    let grid_top = top + plot + 22.0;
    let height = grid_top + row * picture.zones.len() as f64 + 6.0;
    let step_width = (WIDTH - LEFT - RIGHT) / columns;
    let bar_width = (step_width * 0.7).min(28.0);
    let unit = plot / picture.scale as f64;
    let base = top + plot;
    let y = |count: usize| base - count as f64 * unit;
    let mut body = vec![
        label(
            "axis",
            LEFT - 6.0,
            y(picture.desired) + 3.0,
            "end",
            format!("{} desired", picture.desired),
        ),
        html! { <line class="desired" x1={n(LEFT)} x2={n(WIDTH - RIGHT)} y1={n(y(picture.desired))} y2={n(y(picture.desired))} /> },
        label("axis", LEFT - 6.0, base + 3.0, "end", "0".into()),
    ];
    for (i, column) in picture.columns.iter().enumerate() {
        let x = LEFT + i as f64 * step_width + (step_width - bar_width) / 2.0;
        let stalled = picture
            .stall
            .as_ref()
            .is_some_and(|(s, _)| *s == column.step);
        let title = format!(
            "Step {} (t = {} s): {} available, {} unavailable, {} surge, {} Pending",
            column.step + 1,
            column.time,
            column.available,
            column.unavailable,
            column.surge,
            column.pending
        );
        let available_top = y(column.available);
        let unavailable_top = y(column.available + column.unavailable);
        let surge_top = y(column.available + column.unavailable + column.surge);
        let onclick = dispatch.map(|dispatch| {
            let dispatch = dispatch.clone();
            let step = i;
            Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::RolloutStep(step)))
        });
        body.push(html! {
            <g class={classes!("column", (Some(i) == current).then_some("current"), stalled.then_some("stalled"), onclick.is_some().then_some("clickable"))}
                data-step={i.to_string()} onclick={onclick}>
                <title>{ title }</title>
                <rect class="hit" x={n(LEFT + i as f64 * step_width)} y={n(top)} width={n(step_width)} height={n(plot)} />
                { bar("available", x, available_top, bar_width, base - available_top) }
                { bar("unavailable", x, unavailable_top, bar_width, available_top - unavailable_top) }
                { bar("surge", x, surge_top, bar_width, unavailable_top - surge_top) }
                if column.pending > 0 {
                    { label("pending-count", x + bar_width / 2.0, surge_top - 3.0, "middle", format!("{}⏳", column.pending)) }
                }
            </g>
        });
        for (z, (new, old)) in column.zones.iter().enumerate() {
            let cell_top = grid_top + z as f64 * row;
            let cell = row - 4.0;
            let half = bar_width / 2.0;
            let h = |count: usize| cell * count as f64 / picture.zone_scale as f64;
            body.push(html! {
                <g class="zone-cell">
                    <title>{ format!("{} at step {}: {new} new, {old} old running", picture.zones[z], column.step + 1) }</title>
                    <rect class="cell" x={n(x)} y={n(cell_top)} width={n(bar_width)} height={n(cell)} />
                    { bar("new", x, cell_top + cell - h(*new), half, h(*new)) }
                    { bar("old", x + half, cell_top + cell - h(*old), half, h(*old)) }
                </g>
            });
        }
    }
    for (z, zone) in picture.zones.iter().enumerate() {
        body.push(label(
            "axis",
            LEFT - 6.0,
            grid_top + z as f64 * row + row / 2.0 + 2.0,
            "end",
            short(zone, 14),
        ));
    }
    if let Some((step, message)) = &picture.stall {
        let x = LEFT + (*step as f64 + 0.5) * step_width;
        body.push(html! {
            <g class="stall">
                <title>{ format!("Stalls at step {}: {message}", step + 1) }</title>
                <line x1={n(x)} x2={n(x)} y1={n(top - 10.0)} y2={n(height - 4.0)} />
                { label("stall-label", x, top - 3.0, "middle", "stalls".into()) }
            </g>
        });
    }
    let zone_heads = picture
        .zones
        .iter()
        .map(|z| html! { <th scope="col">{ format!("{z} new/old") }</th> });
    let table = html! {
        <table class="numbers-table">
            <thead><tr>
                <th scope="col">{ "Step" }</th><th scope="col">{ "t (s)" }</th><th scope="col">{ "Available" }</th>
                <th scope="col">{ "Unavailable" }</th><th scope="col">{ "Surge" }</th><th scope="col">{ "Pending" }</th>
                { for zone_heads }
            </tr></thead>
            <tbody>
            { for picture.columns.iter().map(|c| html! {
                <tr>
                    <th scope="row">{ c.step + 1 }</th><td>{ c.time }</td><td>{ c.available }</td>
                    <td>{ c.unavailable }</td><td>{ c.surge }</td><td>{ c.pending }</td>
                    { for c.zones.iter().map(|(new, old)| html! { <td>{ format!("{new}/{old}") }</td> }) }
                </tr>
            }) }
            </tbody>
        </table>
    };
    let fewest = picture
        .columns
        .iter()
        .map(|c| c.available)
        .min()
        .unwrap_or(0);
    let summary = match &picture.stall {
        Some((step, message)) => format!(
            "{} steps; at least {fewest} of {} available throughout; stalls at step {}: {message}",
            picture.columns.len(),
            picture.desired,
            step + 1
        ),
        None => format!(
            "{} steps; at least {fewest} of {} available throughout; completes",
            picture.columns.len(),
            picture.desired
        ),
    };
    figure(
        id,
        format!("{}: replicas per step", picture.workload),
        summary,
        height,
        body.into_iter().collect::<Html>(),
        &[
            ("available", "available"),
            ("unavailable", "unavailable"),
            ("surge", "surge (above desired)"),
            ("new", "new revision per zone"),
            ("old", "old revision per zone"),
        ],
        table,
    )
}

/// Capacity per zone: the workload's running replicas and the extra ones that fit there.
pub fn capacity(picture: &CapacityPicture, index: usize) -> Html {
    let row = 20.0;
    let top = 6.0;
    let height = top + row * picture.zones.len() as f64 + 6.0;
    let unit = (WIDTH - LEFT - RIGHT - 44.0) / picture.scale as f64;
    let mut body = Vec::new();
    for (i, zone) in picture.zones.iter().enumerate() {
        let y = top + i as f64 * row;
        let running = zone.running as f64 * unit;
        let additional = zone.additional as f64 * unit;
        body.push(html! {
            <g class="zone-row" data-zone={zone.zone.clone()}>
                <title>{ format!("{}: {} running, {} more fit", zone.zone, zone.running, zone.additional) }</title>
                { label("axis", LEFT - 6.0, y + row / 2.0 + 2.0, "end", short(&zone.zone, 14)) }
                { bar("running", LEFT, y + 3.0, running, row - 6.0) }
                { bar("additional", LEFT + running, y + 3.0, additional, row - 6.0) }
                { label("value", LEFT + running + additional + 4.0, y + row / 2.0 + 3.0, "start", format!("{} + {}", zone.running, zone.additional)) }
            </g>
        });
    }
    let limit = match (picture.bounded, picture.limit) {
        (Some(bound), _) => format!("the search stopped at {bound} more"),
        (None, Some(limit)) => format!("the next replica is stopped by {limit}"),
        (None, None) => String::from("nothing stops the next replica"),
    };
    let total: usize = picture.zones.iter().map(|z| z.additional).sum();
    let summary = format!(
        "{total} more replicas fit: {}; {limit}",
        picture
            .zones
            .iter()
            .map(|z| format!("{} {} running + {} more", z.zone, z.running, z.additional))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let table = html! {
        <table class="numbers-table">
            <thead><tr><th scope="col">{ "Zone" }</th><th scope="col">{ "Running" }</th><th scope="col">{ "More that fit" }</th></tr></thead>
            <tbody>
            { for picture.zones.iter().map(|z| html! {
                <tr><th scope="row">{ z.zone.clone() }</th><td>{ z.running }</td><td>{ z.additional }</td></tr>
            }) }
            </tbody>
        </table>
    };
    html! {
        <>
            { figure(
                &format!("capacity-picture-{index}"),
                format!("{}: capacity per zone", picture.workload),
                summary,
                height,
                body.into_iter().collect::<Html>(),
                &[("running", "running"), ("additional", "more that fit")],
                table,
            ) }
            if !picture.rejections.is_empty() {
                <p class="rejections">{ format!("Then: {limit}; nodes rejecting it, by plugin: {}",
                    picture.rejections.iter().map(|(plugin, nodes)| format!("{plugin} {nodes}")).collect::<Vec<_>>().join(", ")) }</p>
            }
        </>
    }
}

/// One histogram of the tie-break picture, at `x` of width `width`.
fn histogram(
    histogram: &Histogram,
    stacks: impl Fn(usize) -> bool,
    x: f64,
    width: f64,
    title: &str,
    plot: f64,
) -> Html {
    let top = 26.0;
    let bars = histogram.bars.len().max(1) as f64;
    let slot = width / bars;
    let bar_width = (slot * 0.75).min(30.0);
    let unit = plot / histogram.scale as f64;
    html! {
        <g class="histogram">
            { label("axis", x + width / 2.0, 10.0, "middle", title.to_string()) }
            { for histogram.bars.iter().enumerate().map(|(i, (k, runs))| {
                let left = x + i as f64 * slot + (slot - bar_width) / 2.0;
                let height = *runs as f64 * unit;
                let class = if stacks(*k) { "stacks" } else { "spread" };
                html! {
                    <g class="bin" data-k={k.to_string()}>
                        <title>{ format!("{runs} run(s) with {k} replica(s) in the busiest one") }</title>
                        { bar(class, left, top + plot - height, bar_width, height) }
                        { label("axis", left + bar_width / 2.0, top + plot + 11.0, "middle", k.to_string()) }
                        if *runs > 0 { { label("value", left + bar_width / 2.0, top + plot - height - 2.0, "middle", runs.to_string()) } }
                    </g>
                }
            }) }
        </g>
    }
}

/// The tie-break outcomes: how many runs put k replicas on their busiest node (left) and zone
/// (right); red bars hold more than half of the replicas.
pub fn risk(picture: &RiskPicture, index: usize) -> Html {
    let plot = 90.0;
    let height = plot + 44.0;
    let half = (WIDTH - 2.0 * RIGHT - 16.0) / 2.0;
    let stacks = |k: usize| picture.stacks(k);
    let share = |count: usize| {
        if picture.runs == 0 {
            0.0
        } else {
            count as f64 * 100.0 / picture.runs as f64
        }
    };
    let summary = format!(
        "{} runs: {} ({:.0}%) put more than half of the {} replicas on one node, {} ({:.0}%) in one zone; {} with a Pending replica",
        picture.runs,
        picture.per_node.stacking,
        share(picture.per_node.stacking),
        picture.desired,
        picture.per_zone.stacking,
        share(picture.per_zone.stacking),
        picture.runs_with_pending
    );
    let rows = |h: &Histogram, what: &str| {
        h.bars
            .iter()
            .map(|(k, runs)| html! { <tr><th scope="row">{ format!("{k} on the busiest {what}") }</th><td>{ runs }</td></tr> })
            .collect::<Html>()
    };
    let table = html! {
        <table class="numbers-table">
            <thead><tr><th scope="col">{ "Replicas" }</th><th scope="col">{ "Runs" }</th></tr></thead>
            <tbody>{ rows(&picture.per_node, "node") }{ rows(&picture.per_zone, "zone") }</tbody>
        </table>
    };
    figure(
        &format!("risk-picture-{index}"),
        format!(
            "{}: busiest node and zone over {} runs",
            picture.workload, picture.runs
        ),
        summary,
        height,
        html! {
            <>
                { histogram(&picture.per_node, stacks, RIGHT, half, "replicas on the busiest node", plot) }
                { histogram(&picture.per_zone, stacks, RIGHT + half + 16.0, half, "replicas in the busiest zone", plot) }
            </>
        },
        &[
            ("spread", "runs"),
            ("stacks", "runs with over half in one place"),
        ],
        table,
    )
}

/// A workload before and after a failure, per zone; failed zones are hatched.
pub fn failure(picture: &FailurePicture, index: usize) -> Html {
    let row = 26.0;
    let top = 4.0;
    let height = top + row * picture.zones.len() as f64 + 6.0;
    let unit = (WIDTH - LEFT - RIGHT - 40.0) / picture.scale as f64;
    let body = picture.zones.iter().enumerate().map(|(i, zone)| {
        let y = top + i as f64 * row;
        html! {
            <g class={classes!("zone-row", zone.failed.then_some("failed"))} data-zone={zone.zone.clone()}>
                <title>{ format!("{}{}: {} before, {} after", zone.zone, if zone.failed { " (failed)" } else { "" }, zone.before, zone.after) }</title>
                if zone.failed { <rect class="failed-band" x="0" y={n(y)} width={n(WIDTH)} height={n(row - 2.0)} /> }
                { label("axis", LEFT - 6.0, y + row / 2.0 + 2.0, "end", short(&zone.zone, 14)) }
                { bar("before", LEFT, y + 3.0, zone.before as f64 * unit, 9.0) }
                { bar("after", LEFT, y + 13.0, zone.after as f64 * unit, 9.0) }
                { label("value", LEFT + zone.before.max(zone.after) as f64 * unit + 4.0, y + row / 2.0 + 3.0, "start", format!("{} → {}", zone.before, zone.after)) }
            </g>
        }
    });
    let summary = format!(
        "{} lost, {} replaced, {} Pending; per zone before → after: {}",
        picture.lost,
        picture.replaced,
        picture.pending,
        picture
            .zones
            .iter()
            .map(|z| format!(
                "{}{} {} → {}",
                z.zone,
                if z.failed { " (failed)" } else { "" },
                z.before,
                z.after
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let table = html! {
        <table class="numbers-table">
            <thead><tr><th scope="col">{ "Zone" }</th><th scope="col">{ "Before" }</th><th scope="col">{ "After" }</th></tr></thead>
            <tbody>
            { for picture.zones.iter().map(|z| html! {
                <tr><th scope="row">{ format!("{}{}", z.zone, if z.failed { " (failed)" } else { "" }) }</th><td>{ z.before }</td><td>{ z.after }</td></tr>
            }) }
            </tbody>
        </table>
    };
    figure(
        &format!("failure-picture-{index}"),
        format!(
            "{}: {} lost, {} replaced, {} Pending",
            picture.workload, picture.lost, picture.replaced, picture.pending
        ),
        summary,
        height,
        body.into_iter().collect::<Html>(),
        &[
            ("before", "before"),
            ("after", "after the replacements"),
            ("failed-band", "failed zone"),
        ],
        table,
    )
}
