//! The server's shared state, its router, and serving it.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{delete, get, post};
use tongcheng_core::record::Verifier;
use tongcheng_core::rules::RuleSet;

use crate::metrics::{self, Metrics};
use crate::play::{Lobby, OnlineConfig};
use crate::ratelimit::{LimitConfig, RateLimits};
use crate::routes;
use crate::store::Store;

/// What a server accepts and how long its secrets live.
#[derive(Clone, Debug)]
pub struct Config {
    /// The rule-set presets whose records this server verifies and keeps.
    pub accepted_rules: Vec<String>,
    pub challenge_ttl_secs: i64,
    pub session_ttl_secs: i64,
    pub link_code_ttl_secs: i64,
    /// Records per upload batch.
    pub max_batch: usize,
    /// Records per pull page.
    pub max_pull: u32,
    /// Request bodies larger than this are refused (413).
    pub body_limit: usize,
    pub limits: LimitConfig,
    /// Online tables: timers of the table host, abuse limits.
    pub online: OnlineConfig,
    /// The bearer token of the admin endpoints; `None`: they are refused (403).
    pub admin_token: Option<String>,
    /// The base URL players reach this node at (room and queue answers name it, and other
    /// nodes send players here); `None`: `http://` and the address it listens on.
    pub public_url: Option<String>,
    /// This node's name in logs; `None`: a random one.
    pub node_id: Option<String>,
    /// Several nodes: the NATS server (`nats://host:4222`) where nodes learn which of them
    /// are alive and tables keep their checkpoints, so another node finishes the matches of
    /// one that stops. Needs the PostgreSQL store. `None`: a table dies with its node.
    pub nats_url: Option<String>,
    /// Names this deployment's subjects and bucket on NATS (several deployments, or tests,
    /// may share one NATS server).
    pub nats_prefix: String,
    /// How often a node looks for tables of stopped nodes to take over.
    pub sweep_ms: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            accepted_rules: RuleSet::preset_names()
                .iter()
                .map(|s| s.to_string())
                .collect(),
            challenge_ttl_secs: 60,
            session_ttl_secs: 30 * 24 * 3600,
            link_code_ttl_secs: 300,
            max_batch: 100,
            max_pull: 200,
            body_limit: 4 << 20,
            limits: LimitConfig::default(),
            online: OnlineConfig::default(),
            admin_token: None,
            public_url: None,
            node_id: None,
            nats_url: None,
            nats_prefix: "tongcheng".into(),
            sweep_ms: 5_000,
        }
    }
}

/// Everything the handlers share.
pub struct Shared {
    pub store: Arc<dyn Store>,
    pub verifier: Verifier,
    pub metrics: Metrics,
    pub limits: RateLimits,
    pub config: Config,
    /// The online tables being played.
    pub lobby: Lobby,
    /// Which node this is.
    pub node: Node,
    /// This node's NATS connection, when several nodes share NATS (set when serving starts).
    pub cluster: std::sync::OnceLock<Arc<crate::cluster::Cluster>>,
}

/// A server node's identity among several sharing one PostgreSQL store.
#[derive(Debug)]
pub struct Node {
    pub id: String,
    /// Set once, when the node starts serving (the listening port may be chosen then).
    url: std::sync::OnceLock<String>,
}

impl Node {
    /// The base URL players reach this node at.
    pub fn url(&self) -> &str {
        self.url.get().map_or("", String::as_str)
    }
}

pub type AppState = Arc<Shared>;

impl Shared {
    /// Whether other nodes may share this store (PostgreSQL): tables then note their home
    /// node, and the queue is the store's rather than this node's. With SQLite the server is
    /// one node.
    pub fn several_nodes(&self) -> bool {
        self.store.backend() == "postgres"
    }

    /// The state over `store`; an accepted rule set that is not a preset is an error.
    pub fn new(store: Arc<dyn Store>, config: Config) -> Result<AppState, String> {
        let names: Vec<&str> = config.accepted_rules.iter().map(String::as_str).collect();
        let verifier = Verifier::presets(&names)?;
        let url = std::sync::OnceLock::new();
        if let Some(u) = &config.public_url {
            let _ = url.set(u.trim_end_matches('/').to_string());
        }
        let node = Node {
            id: config.node_id.clone().unwrap_or_else(crate::play::table_id),
            url,
        };
        Ok(Arc::new(Shared {
            node,
            store,
            verifier,
            metrics: Metrics::default(),
            limits: RateLimits::new(&config.limits),
            config,
            lobby: Lobby::default(),
            cluster: std::sync::OnceLock::new(),
        }))
    }
}

/// The HTTP API. Every route here is listed in [`routes::ROUTES`] and documented in the
/// OpenAPI document (a test checks both).
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(routes::health))
        .route("/metrics", get(metrics::serve))
        .route("/v1/openapi.json", get(crate::openapi::serve))
        .route("/v1/auth/challenge", post(routes::auth::challenge))
        .route("/v1/auth/login", post(routes::auth::login))
        .route("/v1/auth/logout", post(routes::auth::logout))
        .route("/v1/account", get(routes::auth::account))
        .route("/v1/link", post(routes::auth::create_link))
        .route("/v1/devices", get(routes::devices::list))
        .route("/v1/devices/{id}", delete(routes::devices::revoke))
        .route("/v1/sync/upload", post(routes::sync::upload))
        .route("/v1/sync/pull", get(routes::sync::pull))
        .route("/v1/play", get(crate::play::play))
        .route("/v1/queue", post(crate::play::queue))
        .route("/v1/ratings", get(crate::play::ratings))
        .route("/v1/rooms", post(crate::play::rooms::create))
        .route("/v1/rooms/{code}", get(crate::play::rooms::show))
        .route("/v1/rooms/{code}/join", post(crate::play::rooms::join))
        .route("/v1/admin/collusion", get(routes::admin::collusion))
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed)
        .layer(DefaultBodyLimit::max(state.config.body_limit))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            metrics::track,
        ))
        .with_state(state)
}

/// Connects this node to NATS: it answers liveness requests and sweeps for tables of
/// stopped nodes from now on.
async fn join_cluster(state: &AppState, url: &str) -> std::io::Result<()> {
    let fail = |m: String| std::io::Error::other(m);
    if !state.several_nodes() {
        return Err(fail(
            "NATS joins nodes that share a PostgreSQL store; pass --database postgres://...".into(),
        ));
    }
    let cluster = crate::cluster::Cluster::connect(url, &state.config.nats_prefix)
        .await
        .map_err(|e| fail(e.to_string()))?;
    cluster
        .answer_liveness(state.node.url())
        .await
        .map_err(|e| fail(e.to_string()))?;
    let _ = state.cluster.set(Arc::new(cluster));
    tokio::spawn(crate::play::moved::sweep(
        state.clone(),
        std::time::Duration::from_millis(state.config.sweep_ms.max(100)),
    ));
    Ok(())
}

/// Serves until `shutdown` completes, with each connection's address known to the handlers
/// (rate limits per IP). Nagle's algorithm is off: an online table's frames are small and
/// must go out at once (with it, every answer waited ~40 ms for the peer's delayed ACK).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    if let Ok(addr) = listener.local_addr() {
        let _ = state.node.url.set(format!("http://{addr}"));
    }
    if let Some(url) = state.config.nats_url.clone() {
        join_cluster(&state, &url).await?;
    }
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(
        listener,
        router(state).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}
