//! `GET /metrics`: what `serve` has decided and how fast, and how current a watched cluster is,
//! in Prometheus' text format (the `prometheus-client` crate).

use std::sync::Mutex;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// The `Content-Type` of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Decision latency buckets in seconds: a webhook's budget is a few seconds, the target 10 ms.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DecisionLabels {
    endpoint: String,
    verdict: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EndpointLabels {
    endpoint: String,
}

/// The service's metrics.
pub struct Metrics {
    registry: Mutex<Registry>,
    decisions: Family<DecisionLabels, Counter>,
    latency: Family<EndpointLabels, Histogram>,
    watch_events: Gauge,
    watch_relists: Gauge,
    watch_errors: Gauge,
    objects: Gauge,
    synced: Gauge,
    cache_age: Gauge<f64, std::sync::atomic::AtomicU64>,
    model_current: Gauge,
    model_age: Gauge<f64, std::sync::atomic::AtomicU64>,
    model_build: Gauge<f64, std::sync::atomic::AtomicU64>,
    model_changes: Gauge,
    model_builds: Gauge,
    model_changes_seconds: Gauge<f64, std::sync::atomic::AtomicU64>,
}

/// How a watched (or snapshot) cluster stands, set before each scrape.
pub struct ClusterGauges {
    /// Events applied.
    pub events: u64,
    /// Relists after the first list of a kind.
    pub relists: u64,
    /// Watch errors.
    pub errors: u64,
    /// Objects known.
    pub objects: usize,
    /// Every kind listed once.
    pub synced: bool,
    /// Seconds since the last event (or since the snapshot was read).
    pub age: Option<Duration>,
    /// The decisions' model of the cluster.
    pub model: super::model::ModelStatus,
}

impl Default for Metrics {
    fn default() -> Self {
        let metrics = Metrics {
            registry: Mutex::new(Registry::with_prefix("spreadlab")),
            decisions: Family::default(),
            latency: Family::new_with_constructor(|| Histogram::new(BUCKETS)),
            watch_events: Gauge::default(),
            watch_relists: Gauge::default(),
            watch_errors: Gauge::default(),
            objects: Gauge::default(),
            synced: Gauge::default(),
            cache_age: Gauge::default(),
            model_current: Gauge::default(),
            model_age: Gauge::default(),
            model_build: Gauge::default(),
            model_changes: Gauge::default(),
            model_builds: Gauge::default(),
            model_changes_seconds: Gauge::default(),
        };
        {
            // Each registered metric is a handle on the same value as the struct's field.
            let mut registry = metrics.registry.lock().unwrap_or_else(|e| e.into_inner());
            registry.register(
                "decisions",
                "Decisions by endpoint and verdict (allowed, denied, error, unavailable, timeout, busy)",
                metrics.decisions.clone(),
            );
            registry.register(
                "decision_duration_seconds",
                "Time to answer a decision request",
                metrics.latency.clone(),
            );
            for (name, help, gauge) in [
                (
                    "watch_events",
                    "Watch events applied to the in-memory cluster (list items included)",
                    &metrics.watch_events,
                ),
                (
                    "watch_relists",
                    "Lists after a kind's first one (a watch that could not resume)",
                    &metrics.watch_relists,
                ),
                (
                    "watch_errors",
                    "Watch errors (each retried with backoff)",
                    &metrics.watch_errors,
                ),
                (
                    "cluster_objects",
                    "Objects of the cluster answers are computed from",
                    &metrics.objects,
                ),
                (
                    "cluster_synced",
                    "1 once every kind is listed (answers are about the cluster), else 0",
                    &metrics.synced,
                ),
                (
                    "model_current",
                    "1 when the decisions' model is built from the cluster's current state, else 0 (one is being built)",
                    &metrics.model_current,
                ),
                (
                    "model_changes",
                    "Pod and node changes applied to the decisions' model in place (not rebuilt)",
                    &metrics.model_changes,
                ),
                (
                    "model_builds",
                    "Decisions' models built from the whole cluster, the first one included (changes not applied in place build one)",
                    &metrics.model_builds,
                ),
            ] {
                registry.register(name, help, gauge.clone());
            }
            for (name, help, gauge) in [
                (
                    "cluster_age_seconds",
                    "Seconds since the last watch event, or since the snapshot files were read",
                    &metrics.cache_age,
                ),
                (
                    "model_age_seconds",
                    "Seconds since the decisions' model of the cluster was built",
                    &metrics.model_age,
                ),
                (
                    "model_build_seconds",
                    "How long building the decisions' model of the cluster took (read, load, snapshot)",
                    &metrics.model_build,
                ),
                (
                    "model_changes_seconds",
                    "How long applying the last batch of changes to the decisions' model took",
                    &metrics.model_changes_seconds,
                ),
            ] {
                registry.register(name, help, gauge.clone());
            }
        }
        metrics
    }
}

impl Metrics {
    /// Counts one verdict of `endpoint`.
    pub fn verdict(&self, endpoint: &str, verdict: &str) {
        self.decisions
            .get_or_create(&DecisionLabels {
                endpoint: endpoint.to_owned(),
                verdict: verdict.to_owned(),
            })
            .inc();
    }

    /// Records how long a request of `endpoint` took.
    pub fn latency(&self, endpoint: &str, took: Duration) {
        self.latency
            .get_or_create(&EndpointLabels {
                endpoint: endpoint.to_owned(),
            })
            .observe(took.as_secs_f64());
    }

    /// The text format, with the cluster's gauges as of now.
    pub fn render(&self, cluster: &ClusterGauges) -> String {
        let gauge = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
        self.watch_events.set(gauge(cluster.events));
        self.watch_relists.set(gauge(cluster.relists));
        self.watch_errors.set(gauge(cluster.errors));
        self.objects.set(gauge(cluster.objects as u64));
        self.synced.set(i64::from(cluster.synced));
        // Seconds, or NaN for what has not happened yet.
        let seconds = |time: Option<Duration>| time.map_or(f64::NAN, |t| t.as_secs_f64());
        self.cache_age.set(seconds(cluster.age));
        self.model_current.set(i64::from(cluster.model.current));
        self.model_age.set(seconds(cluster.model.age));
        self.model_build.set(seconds(cluster.model.took));
        self.model_changes.set(gauge(cluster.model.changes));
        self.model_builds.set(gauge(cluster.model.builds));
        self.model_changes_seconds
            .set(seconds(cluster.model.last_changes));
        let mut text = String::new();
        let registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        // Writing into a String cannot fail.
        let _ = encode(&mut text, &registry);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_latency_and_cluster_gauges_are_rendered() {
        let metrics = Metrics::default();
        metrics.verdict("validate", "denied");
        metrics.verdict("validate", "denied");
        metrics.verdict("gatekeeper", "allowed");
        metrics.latency("validate", Duration::from_millis(3));
        let text = metrics.render(&ClusterGauges {
            events: 42,
            relists: 1,
            errors: 0,
            objects: 7,
            synced: true,
            age: Some(Duration::from_secs(2)),
            model: super::super::model::ModelStatus {
                current: true,
                age: Some(Duration::from_secs(1)),
                took: Some(Duration::from_millis(250)),
                changes: 12,
                last_changes: Some(Duration::from_micros(500)),
                builds: 3,
            },
        });
        assert!(
            text.contains("spreadlab_decisions_total{endpoint=\"validate\",verdict=\"denied\"} 2"),
            "{text}"
        );
        assert!(
            text.contains(
                "spreadlab_decisions_total{endpoint=\"gatekeeper\",verdict=\"allowed\"} 1"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "spreadlab_decision_duration_seconds_bucket{le=\"0.005\",endpoint=\"validate\"} 1"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "spreadlab_decision_duration_seconds_bucket{le=\"0.0025\",endpoint=\"validate\"} 0"
            ),
            "{text}"
        );
        assert!(text.contains("spreadlab_watch_events 42"), "{text}");
        assert!(text.contains("spreadlab_cluster_synced 1"), "{text}");
        assert!(text.contains("spreadlab_cluster_age_seconds 2.0"), "{text}");
        assert!(text.contains("spreadlab_model_current 1"), "{text}");
        assert!(text.contains("spreadlab_model_changes 12"), "{text}");
        assert!(text.contains("spreadlab_model_builds 3"), "{text}");
        assert!(
            text.contains("spreadlab_model_changes_seconds 0.0005"),
            "{text}"
        );
        assert!(
            text.contains("spreadlab_model_build_seconds 0.25"),
            "{text}"
        );
    }
}
