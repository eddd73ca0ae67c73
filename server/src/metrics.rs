//! Prometheus metrics, in memory: requests by route and status, a latency histogram, sync
//! batches and records accepted, already held and rejected, logins and rate-limit refusals.
//! Hand-rolled text format: a few counters need no metrics framework.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];

#[derive(Default)]
pub struct Metrics {
    /// (method, route, status) → count.
    requests: Mutex<BTreeMap<(String, String, u16), u64>>,
    latency: [AtomicU64; BUCKETS.len() + 1],
    latency_sum_micros: AtomicU64,
    latency_count: AtomicU64,
    pub sync_batches: AtomicU64,
    pub records_accepted: AtomicU64,
    pub records_already: AtomicU64,
    pub records_rejected: AtomicU64,
    pub records_pulled: AtomicU64,
    pub logins: AtomicU64,
    pub accounts_created: AtomicU64,
    pub rate_limited: AtomicU64,
}

impl Metrics {
    pub fn observe(&self, method: &str, route: &str, status: u16, took: Duration) {
        *self
            .requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry((method.to_string(), route.to_string(), status))
            .or_insert(0) += 1;
        let secs = took.as_secs_f64();
        let i = BUCKETS
            .iter()
            .position(|b| secs <= *b)
            .unwrap_or(BUCKETS.len());
        self.latency[i].fetch_add(1, Relaxed);
        self.latency_sum_micros
            .fetch_add(took.as_micros().min(u128::from(u64::MAX)) as u64, Relaxed);
        self.latency_count.fetch_add(1, Relaxed);
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        let mut s = String::new();
        s.push_str(
            "# HELP tongcheng_http_requests_total HTTP requests by method, route and status.\n",
        );
        s.push_str("# TYPE tongcheng_http_requests_total counter\n");
        for ((m, r, st), n) in self
            .requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
        {
            let _ = writeln!(
                s,
                "tongcheng_http_requests_total{{method=\"{m}\",route=\"{}\",status=\"{st}\"}} {n}",
                r.replace('\\', "\\\\").replace('"', "\\\"")
            );
        }
        s.push_str("# HELP tongcheng_http_request_duration_seconds Time to answer a request.\n");
        s.push_str("# TYPE tongcheng_http_request_duration_seconds histogram\n");
        let mut cumulative = 0;
        for (i, b) in BUCKETS.iter().enumerate() {
            cumulative += self.latency[i].load(Relaxed);
            let _ = writeln!(
                s,
                "tongcheng_http_request_duration_seconds_bucket{{le=\"{b}\"}} {cumulative}"
            );
        }
        cumulative += self.latency[BUCKETS.len()].load(Relaxed);
        let _ = writeln!(
            s,
            "tongcheng_http_request_duration_seconds_bucket{{le=\"+Inf\"}} {cumulative}"
        );
        let _ = writeln!(
            s,
            "tongcheng_http_request_duration_seconds_sum {}",
            self.latency_sum_micros.load(Relaxed) as f64 / 1e6
        );
        let _ = writeln!(
            s,
            "tongcheng_http_request_duration_seconds_count {}",
            self.latency_count.load(Relaxed)
        );
        let counters: [(&str, &str, &AtomicU64); 8] = [
            (
                "tongcheng_sync_batches_total",
                "Upload batches processed.",
                &self.sync_batches,
            ),
            (
                "tongcheng_records_accepted_total",
                "Uploaded records verified and stored.",
                &self.records_accepted,
            ),
            (
                "tongcheng_records_already_total",
                "Uploaded records the account already had.",
                &self.records_already,
            ),
            (
                "tongcheng_records_rejected_total",
                "Uploaded records refused (unreadable or not verifying).",
                &self.records_rejected,
            ),
            (
                "tongcheng_records_pulled_total",
                "Records sent to devices by pulls.",
                &self.records_pulled,
            ),
            ("tongcheng_logins_total", "Successful logins.", &self.logins),
            (
                "tongcheng_accounts_created_total",
                "Accounts created by a first login.",
                &self.accounts_created,
            ),
            (
                "tongcheng_rate_limited_total",
                "Requests refused by a rate limit.",
                &self.rate_limited,
            ),
        ];
        for (name, help, v) in counters {
            let _ = writeln!(
                s,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
                v.load(Relaxed)
            );
        }
        s
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
