//! The lobby: the tables this node runs, its open connections, and its queues.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::oneshot;
use tongcheng_api::play::Seated;

use super::queue::Queue;
use super::table::Tables;

/// The queues, by rule set name and ranked or not; a seated player is told on his channel.
type Queues = HashMap<(String, bool), Queue<oneshot::Sender<Seated>>>;

/// The lobby: tables by id, connection ids, and the queues by rule set and kind.
#[derive(Default)]
pub struct Lobby {
    pub(super) tables: Arc<Mutex<Tables>>,
    next_conn: AtomicU64,
    /// Open `GET /v1/play` connections (a gauge for `/metrics` and load runs).
    open_conns: AtomicU64,
    pub(super) queues: Mutex<Queues>,
    /// When this node last ran the shared queue's matcher, per rule set and kind (several
    /// nodes: one run per tick per node, however many requests wait here).
    pub(super) shared_runs: Mutex<HashMap<(String, bool), Instant>>,
    /// Requests waiting here in the shared queue (several nodes).
    pub(super) shared_waiting: AtomicU64,
    /// Held while this node takes a stopped node's table over (one at a time).
    pub(super) taking: tokio::sync::Mutex<()>,
}

impl Lobby {
    pub fn tables(&self) -> usize {
        self.tables.lock().map(|t| t.len()).unwrap_or(0)
    }

    pub fn connections(&self) -> usize {
        self.open_conns.load(Ordering::Relaxed) as usize
    }

    /// Players waiting in every queue (with several nodes: those whose request waits here).
    pub fn waiting(&self) -> usize {
        self.queues
            .lock()
            .map(|q| q.values().map(Queue::len).sum())
            .unwrap_or(0)
            + self.shared_waiting.load(Ordering::Relaxed) as usize
    }

    /// A new connection's id, and its count among the open ones while the guard lives.
    pub fn open_connection(&self) -> (u64, OpenConn<'_>) {
        self.open_conns.fetch_add(1, Ordering::Relaxed);
        (
            self.next_conn.fetch_add(1, Ordering::Relaxed),
            OpenConn(&self.open_conns),
        )
    }
}

/// Counts an open connection while it lives.
#[derive(Debug)]
pub struct OpenConn<'a>(&'a AtomicU64);

impl Drop for OpenConn<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}
