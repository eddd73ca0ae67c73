//! Logs: `tracing` events on stderr (stdout's first line is the listening address, which
//! tests and scripts read), filtered by `RUST_LOG` (default `info`), as text or JSON lines;
//! and the parts of the HTTP trace layer: request ids, each request's span, and its one
//! line when answered.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::MatchedPath;
use axum::http::{HeaderValue, Request, Response};
use tower_http::request_id::{MakeRequestId, RequestId};
use tracing::Span;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

/// Installs the process's subscriber: `RUST_LOG` directives (an unreadable one is skipped),
/// `info` where it says nothing; JSON lines when `json`. A second call (tests start several
/// servers in one process) leaves the first subscriber in place.
pub fn init(json: bool) {
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::INFO.into())
        .from_env_lossy();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = if json {
        builder.json().try_init()
    } else {
        builder
            .with_ansi(std::io::stderr().is_terminal())
            .try_init()
    };
}

/// Request ids unique on this node and across nodes: the node's name and a counter
/// (`node-17`), shorter to grep for than a UUID and naming the node that answered.
#[derive(Clone)]
pub struct NodeRequestIds {
    node: Arc<str>,
    next: Arc<AtomicU64>,
}

impl NodeRequestIds {
    pub fn new(node: &str) -> NodeRequestIds {
        NodeRequestIds {
            node: node.into(),
            next: Arc::new(AtomicU64::new(1)),
        }
    }
}

impl MakeRequestId for NodeRequestIds {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n}", self.node))
            .ok()
            .map(RequestId::new)
    }
}

/// The longest request id logged: a client may send its own, bounded only by header limits.
const MAX_ID: usize = 64;

/// A request's span: its id (set by the request-id layer, which runs first), method and
/// route pattern, and the account once a session is checked ([`record_account`]). The
/// pattern, not the path, so tokens and codes in paths stay out of logs.
pub fn request_span<B>(req: &Request<B>) -> Span {
    let id = req
        .extensions()
        .get::<RequestId>()
        .and_then(|id| id.header_value().to_str().ok())
        .map_or("-", |id| &id[..id.len().min(MAX_ID)]);
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", MatchedPath::as_str);
    tracing::info_span!(
        "request",
        id = %id,
        method = %req.method(),
        route = %route,
        account = tracing::field::Empty
    )
}

/// Puts the session's account in the current request's span, so its line says whose it was.
pub fn record_account(account: i64) {
    Span::current().record("account", account);
}

/// The request's one line at INFO: status and latency (the span adds id, method and route).
pub fn on_response<B>(res: &Response<B>, latency: Duration, _: &Span) {
    let ms = (latency.as_secs_f64() * 1e6).round() / 1e3;
    tracing::info!(status = res.status().as_u16(), latency_ms = ms, "answered");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_name_the_node_and_count() {
        let mut ids = NodeRequestIds::new("n1");
        let mut copy = ids.clone();
        let req = Request::new(());
        let id = |m: &mut NodeRequestIds| {
            m.make_request_id(&req)
                .map(|r| r.header_value().to_str().unwrap().to_string())
        };
        assert_eq!(id(&mut ids).as_deref(), Some("n1-1"));
        assert_eq!(
            id(&mut copy).as_deref(),
            Some("n1-2"),
            "clones share the counter"
        );
    }
}
