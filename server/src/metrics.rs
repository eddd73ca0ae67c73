//! Prometheus metrics through the `metrics` facade: requests by route and status, a latency
//! histogram, sync batches and records accepted, already held and rejected, logins and
//! rate-limit refusals, and the online gauges. Rendered by `metrics-exporter-prometheus` on
//! `GET /metrics`.
//!
//! Each server state has a recorder of its own rather than the process-wide one: tests run
//! several servers in one process, and each must count only its own requests.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use metrics::{Counter, Gauge, Key, Label, Metadata, Recorder};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusRecorder};

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];

const REQUESTS: &str = "tongcheng_http_requests_total";
const REFUSED: &str = "tongcheng_quota_refused_total";
const LATENCY: &str = "tongcheng_http_request_duration_seconds";

/// How often histogram samples are folded into their buckets when nobody scrapes.
pub const UPKEEP_EVERY: Duration = Duration::from_secs(5);

static METADATA: Metadata<'static> =
    Metadata::new(module_path!(), metrics::Level::INFO, Some(module_path!()));

pub struct Metrics {
    recorder: PrometheusRecorder,
    pub sync_batches: Counter,
    pub records_accepted: Counter,
    pub records_already: Counter,
    pub records_rejected: Counter,
    pub records_pulled: Counter,
    pub logins: Counter,
    pub accounts_created: Counter,
    pub rate_limited: Counter,
    pub connections_refused: Counter,
    pub online_tables: Gauge,
    pub online_connections: Gauge,
    pub queue_waiting: Gauge,
}

impl Default for Metrics {
    fn default() -> Metrics {
        // The buckets are a non-empty constant, the builder's only reason to refuse them.
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(LATENCY.into()), &BUCKETS)
            .unwrap_or_else(|_| PrometheusBuilder::new())
            .build_recorder();
        let r = &recorder;
        r.describe_counter(
            REQUESTS.into(),
            None,
            "HTTP requests by method, route and status.".into(),
        );
        r.describe_counter(
            REFUSED.into(),
            None,
            "Requests refused by a rate limit or quota, by quota.".into(),
        );
        r.describe_histogram(LATENCY.into(), None, "Time to answer a request.".into());
        let counter = |name: &'static str, help: &'static str| {
            r.describe_counter(name.into(), None, help.into());
            r.register_counter(&Key::from_static_name(name), &METADATA)
        };
        let gauge = |name: &'static str, help: &'static str| {
            r.describe_gauge(name.into(), None, help.into());
            r.register_gauge(&Key::from_static_name(name), &METADATA)
        };
        Metrics {
            sync_batches: counter("tongcheng_sync_batches_total", "Upload batches processed."),
            records_accepted: counter(
                "tongcheng_records_accepted_total",
                "Uploaded records verified and stored.",
            ),
            records_already: counter(
                "tongcheng_records_already_total",
                "Uploaded records the account already had.",
            ),
            records_rejected: counter(
                "tongcheng_records_rejected_total",
                "Uploaded records refused (unreadable or not verifying).",
            ),
            records_pulled: counter(
                "tongcheng_records_pulled_total",
                "Records sent to devices by pulls.",
            ),
            logins: counter("tongcheng_logins_total", "Successful logins."),
            accounts_created: counter(
                "tongcheng_accounts_created_total",
                "Accounts created by a first login.",
            ),
            rate_limited: counter(
                "tongcheng_rate_limited_total",
                "Requests refused by a rate limit.",
            ),
            connections_refused: counter(
                "tongcheng_connections_refused_total",
                "Connections closed at once: their address held its most at once.",
            ),
            online_tables: gauge(
                "tongcheng_online_tables",
                "Online tables running on this node.",
            ),
            online_connections: gauge(
                "tongcheng_online_connections",
                "Open table connections (WebSockets) on this node.",
            ),
            queue_waiting: gauge(
                "tongcheng_queue_waiting",
                "Players waiting in this node's matchmaking queues.",
            ),
            recorder,
        }
    }
}

impl Metrics {
    /// Counts one answered request and its latency.
    pub fn observe(&self, method: &str, route: &str, status: u16, took: Duration) {
        let labels = vec![
            Label::new("method", method.to_owned()),
            Label::new("route", route.to_owned()),
            Label::new("status", status.to_string()),
        ];
        self.recorder
            .register_counter(&Key::from_parts(REQUESTS, labels), &METADATA)
            .increment(1);
        self.recorder
            .register_histogram(&Key::from_static_name(LATENCY), &METADATA)
            .record(took.as_secs_f64());
    }

    /// Counts a request refused by quota `name` (the total, and by quota).
    pub fn refused(&self, name: &'static str) {
        self.rate_limited.increment(1);
        self.recorder
            .register_counter(
                &Key::from_parts(REFUSED, vec![Label::new("quota", name)]),
                &METADATA,
            )
            .increment(1);
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        self.recorder.handle().render()
    }

    /// Folds histogram samples into their buckets, so they do not pile up between scrapes.
    pub fn upkeep(&self) {
        self.recorder.handle().run_upkeep();
    }
}

/// Middleware: counts every request by its route pattern (not its path, which would let a
/// client create unbounded label values) and times it.
pub async fn track(State(metrics): State<Arc<Metrics>>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".into());
    let method = req.method().as_str().to_owned();
    let start = Instant::now();
    let resp = next.run(req).await;
    metrics.observe(&method, &route, resp.status().as_u16(), start.elapsed());
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_requests_and_the_histogram_render_under_their_names() {
        let m = Metrics::default();
        m.logins.increment(2);
        m.online_tables.set(3.0);
        m.observe("GET", "/healthz", 200, Duration::from_millis(3));
        m.refused("room_codes");
        let text = m.render();
        for line in [
            "tongcheng_logins_total 2",
            "tongcheng_rate_limited_total 1",
            "tongcheng_quota_refused_total{quota=\"room_codes\"} 1",
            "tongcheng_connections_refused_total 0",
            "tongcheng_online_tables 3",
            "tongcheng_http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"} 1",
            "tongcheng_http_request_duration_seconds_bucket{le=\"0.005\"} 1",
            "tongcheng_http_request_duration_seconds_count 1",
        ] {
            assert!(text.contains(line), "{line} missing from\n{text}");
        }
    }
}
