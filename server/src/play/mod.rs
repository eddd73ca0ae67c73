//! Online tables: the tables this node runs, the matchmaking queue that seats players at
//! them, private rooms, and tables that outlive their node. The HTTP and WebSocket handlers
//! live in `routes`; this module is what they call.
//!
//! Each table is one task ([`table::TableTask`]); a connection only forwards its messages
//! there and writes out what the table sends, so a hostile client can at worst lose its own
//! seat. By concern: `config` (timers and limits), `lobby` (this node's tables, connections
//! and queues), `join` (finding or making a table and taking a seat), `queue` (the pure
//! matcher), `matching` (one node's queue), `shared` (the queue of several nodes), `rooms`,
//! `checkpoint` and `moved` (taking over a stopped node's tables), `table`.

pub mod checkpoint;
pub mod clock;
pub mod config;
pub mod join;
pub mod lobby;
pub mod matching;
pub mod moved;
pub mod queue;
pub mod rooms;
pub mod shared;
pub mod table;
pub mod tournament;

use std::sync::{Arc, Mutex, OnceLock};

use tokio::sync::mpsc;
use tongcheng_api::play::Seated;
use tongcheng_core::protocol::ErrorCode;
use tongcheng_core::rules::RuleSet;

use crate::cluster::Cluster;
use crate::error::ApiError;
use crate::store::Store;
pub use config::OnlineConfig;
use lobby::Lobby;
use queue::Candidate;
use table::{Cmd, TableTask, Tables};

/// A server node's identity among several sharing one PostgreSQL store.
#[derive(Debug)]
pub struct Node {
    pub id: String,
    /// Set once, when the node starts serving (the listening port may be chosen then).
    url: OnceLock<String>,
}

impl Node {
    /// A node named `id` (a random name when `None`), reached at `public_url` when given.
    pub fn new(id: Option<String>, public_url: Option<&str>) -> Node {
        let url = OnceLock::new();
        if let Some(u) = public_url {
            let _ = url.set(u.trim_end_matches('/').to_string());
        }
        Node {
            id: id.unwrap_or_else(crate::auth::random_id),
            url,
        }
    }

    /// The base URL players reach this node at.
    pub fn url(&self) -> &str {
        self.url.get().map_or("", String::as_str)
    }

    /// Sets the URL once serving starts, unless one was configured.
    pub fn serving_at(&self, url: String) {
        let _ = self.url.set(url);
    }
}

/// Online play on this node: its tables and queues, what they are configured with, the store
/// they keep hands and ratings in, and the node's place among several.
pub struct Online {
    pub config: OnlineConfig,
    /// The presets a table may be asked to play.
    pub accepted_rules: Vec<String>,
    pub store: Arc<dyn Store>,
    pub lobby: Lobby,
    pub node: Node,
    /// This node's NATS connection, when several nodes share NATS (set when serving starts).
    pub cluster: OnceLock<Arc<Cluster>>,
    /// The tournaments this node runs.
    pub tournaments: tournament::Registry,
}

/// A table's command queue: joins, messages, its saver's answers.
pub(crate) const TABLE_QUEUE: usize = 1024;

impl Online {
    pub fn new(
        config: OnlineConfig,
        accepted_rules: Vec<String>,
        store: Arc<dyn Store>,
        node: Node,
    ) -> Online {
        Online {
            config,
            accepted_rules,
            store,
            lobby: Lobby::default(),
            node,
            cluster: OnceLock::new(),
            tournaments: tournament::Registry::default(),
        }
    }

    /// Whether other nodes may share this store (PostgreSQL): tables then note their home
    /// node, and the queue is the store's rather than this node's. With SQLite the server is
    /// one node.
    /// Table `id` runs on this node now.
    pub(crate) fn runs_table(&self, id: &str) -> bool {
        lock(&self.lobby.tables).is_ok_and(|t| t.get(id).is_some_and(|tx| !tx.is_closed()))
    }

    pub fn several_nodes(&self) -> bool {
        self.store.backend() == "postgres"
    }

    /// The rules a new table plays: the test override, else the named preset if this server
    /// accepts it, else the default.
    pub fn rules_for(&self, name: Option<String>) -> Result<RuleSet, (ErrorCode, String)> {
        let mut rules = match (&self.config.rules, name) {
            (Some(r), _) => return Ok(r.clone()),
            (None, None) => RuleSet::default(),
            (None, Some(name)) => {
                // A Tongcheng preset played with 飘 before every hand is that preset's.
                let base = name.strip_suffix("-piao").unwrap_or(&name);
                if !self.accepted_rules.iter().any(|a| a == base) {
                    return Err((
                        ErrorCode::RulesNotAccepted,
                        format!("rules '{}' are not played here", crate::error::clip(&name)),
                    ));
                }
                RuleSet::preset(&name)
                    .ok_or_else(|| (ErrorCode::RulesNotAccepted, "no such preset".to_string()))?
            }
        };
        if let Some(hands) = self.config.match_hands {
            rules.rounds = 1;
            rules.hands_per_round = hands.max(1);
        }
        Ok(rules)
    }

    /// [`Online::rules_for`] for an HTTP request.
    pub fn rules_for_request(&self, name: Option<String>) -> Result<RuleSet, ApiError> {
        self.rules_for(name)
            .map_err(|(_, m)| ApiError::new(tongcheng_api::ErrorCode::RulesNotAccepted, m))
    }

    /// Waits in the queue of `rules` (ranked or casual) until seated: this node's queue, or
    /// the store's when several nodes share it.
    pub async fn queue(
        self: &Arc<Self>,
        who: Candidate,
        rules: RuleSet,
        ranked: bool,
    ) -> Result<Seated, ApiError> {
        if self.several_nodes() {
            shared::wait(self, who, rules, ranked).await
        } else {
            matching::wait(self, who, rules, ranked).await
        }
    }

    /// Tells every table on this node that a sanction on `account` (on one of its devices:
    /// only the seat taken from it) came into force (`Some`: the frame his answers get) or
    /// that none bars him any more (`None`).
    pub fn bar(&self, account: i64, device: Option<i64>, refusal: Option<(ErrorCode, String)>) {
        let Ok(tables) = self.lobby.tables.lock() else {
            return;
        };
        for tx in tables.values() {
            let _ = tx.try_send(Cmd::Bar {
                account,
                device,
                refusal: refusal.clone(),
            });
        }
    }

    /// The name `account` plays under.
    pub async fn display_name(&self, account: i64) -> Result<String, ApiError> {
        let store = self.store.clone();
        let found = crate::blocking::blocking(move || Ok(store.account(account)?)).await?;
        Ok(found.map_or_else(|| format!("player {account}"), |a| a.display_name))
    }

    /// Starts a table's task under `id` in the lobby (whose lock the caller holds); it leaves
    /// the lobby when its match is over.
    pub(crate) fn spawn_table(
        &self,
        tables: &mut Tables,
        id: &str,
        task: impl FnOnce(mpsc::Receiver<Cmd>) -> TableTask,
    ) -> mpsc::Sender<Cmd> {
        let (tx, rx) = mpsc::channel(TABLE_QUEUE);
        let task = task(rx);
        self.spawn_built(tables, id, tx.clone(), task);
        tx
    }

    /// Opens the table of a group the queue seated: its seats kept for `accounts`, bots in
    /// the others, rated when `ranked`.
    pub(crate) fn open_queue_table(
        &self,
        tables: &mut Tables,
        id: &str,
        rules: &RuleSet,
        accounts: Vec<i64>,
        ranked: bool,
    ) {
        let task = |rx| {
            let t = TableTask::new(
                id.to_string(),
                self.config.clone(),
                rules.clone(),
                accounts.len() as u8,
                self.store.clone(),
                rx,
            )
            .reserved_for(accounts);
            if ranked { t.ranked() } else { t }
        };
        self.spawn_table(tables, id, task);
    }

    /// [`Online::spawn_table`] for a task already made on the channel `tx` feeds.
    pub(crate) fn spawn_built(
        &self,
        tables: &mut Tables,
        id: &str,
        tx: mpsc::Sender<Cmd>,
        task: TableTask,
    ) {
        let lobby = self.lobby.tables.clone();
        let closing = id.to_string();
        let mine = tx.clone();
        let store = self.store.clone();
        let cluster = self
            .cluster
            .get()
            .map(|c| (c.clone(), self.node.url().to_string()));
        let task = task.in_cluster(cluster, tx.downgrade());
        tokio::spawn(task.run(Box::new(move |forget| {
            if let Ok(mut t) = lobby.lock()
                && t.get(&closing).is_some_and(|s| s.same_channel(&mine))
            {
                t.remove(&closing);
                if !forget {
                    // Another node runs the table now: its rows are that node's.
                    return;
                }
                // Its room's code is free again, and no node sends players here for it.
                tokio::task::spawn_blocking(move || {
                    if let Err(e) = store.drop_table(&closing) {
                        tracing::error!(table = %closing, error = %e, "cannot forget the table in the store");
                    }
                });
            }
        })));
        tables.insert(id.to_string(), tx);
        if self.several_nodes() {
            let (store, id, node) = (
                self.store.clone(),
                id.to_string(),
                self.node.url().to_string(),
            );
            tokio::task::spawn_blocking(move || {
                if let Err(e) = store.put_table_home(&id, &node, crate::now()) {
                    tracing::error!(table = %id, error = %e, "cannot note the table's node in the store");
                }
            });
        }
    }
}

/// A task stopped when its handle is dropped (with its owner: a sweep, a connection).
pub(crate) struct AbortOnDrop(pub tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> Result<std::sync::MutexGuard<'_, T>, ApiError> {
    m.lock()
        .map_err(|_| ApiError::internal("the lobby is unavailable"))
}

/// A newer queue request of the same account took this one's place.
pub(crate) fn queue_replaced() -> ApiError {
    ApiError::new(
        tongcheng_api::ErrorCode::QueueReplaced,
        "another request of this account took its place in the queue",
    )
}

/// The queue gave up on a request.
pub(crate) fn queue_timeout() -> ApiError {
    ApiError::new(
        tongcheng_api::ErrorCode::QueueTimeout,
        "no table could be made in time",
    )
}
