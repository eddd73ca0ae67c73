//! What a server is configured with, and the state its handlers share.

use std::sync::Arc;
use std::time::Duration;

use tongcheng_core::record::Verifier;
use tongcheng_core::rules::RuleSet;

use crate::listen::ConnLimits;
use crate::metrics::Metrics;
use crate::play::config::OnlineConfig;
use crate::play::{Node, Online};
use crate::ratelimit::{LimitConfig, RateLimits};
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
    /// A request not answered in this time gets a `timeout` error (503); the queue's long
    /// poll has its own bound.
    pub request_timeout: Duration,
    /// Longest wait for a request body's next bytes.
    pub body_timeout: Duration,
    /// Header-read timeout (also the idle keep-alive one) and connections per address.
    pub conn: ConnLimits,
    pub limits: LimitConfig,
    /// Online tables: timers of the table host, abuse limits.
    pub online: OnlineConfig,
    /// The bearer token of the admin endpoints; `None`: they are refused (403).
    pub admin_token: Option<String>,
    /// The base URL players reach this node at (room and queue answers name it, and other
    /// nodes send players here); `None`: `http://` and the address it listens on.
    pub public_url: Option<String>,
    /// The browser face's built files (`web/dist`), served at `/`; `None`: no face.
    pub web_dir: Option<std::path::PathBuf>,
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
            request_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(10),
            conn: ConnLimits::default(),
            limits: LimitConfig::default(),
            online: OnlineConfig::default(),
            admin_token: None,
            public_url: None,
            web_dir: None,
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
    pub metrics: Arc<Metrics>,
    pub limits: RateLimits,
    pub config: Config,
    /// The online tables this node runs, its queues and its place among several nodes.
    pub online: Arc<Online>,
}

pub type AppState = Arc<Shared>;

impl Shared {
    /// The state over `store`; an accepted rule set that is not a preset is an error.
    pub fn new(store: Arc<dyn Store>, config: Config) -> Result<AppState, String> {
        let names: Vec<&str> = config.accepted_rules.iter().map(String::as_str).collect();
        // A hand of a short match (a room's own hand count, `--match-hands`) is checked as
        // its preset's: the server's own tables make such records, and phones upload them.
        let verifier = Verifier::presets(&names)?.any_match_length();
        let node = Node::new(config.node_id.clone(), config.public_url.as_deref());
        let online = Online::new(
            config.online.clone(),
            config.accepted_rules.clone(),
            store.clone(),
            node,
        );
        Ok(Arc::new(Shared {
            store,
            verifier,
            metrics: Arc::default(),
            limits: RateLimits::new(&config.limits),
            config,
            online: Arc::new(online),
        }))
    }
}
