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
    /// Open `GET /v1/play` connections (a gauge for `/metrics` and load runs), and each
    /// account's.
    open: Arc<OpenConns>,
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
        self.open.total.load(Ordering::Relaxed) as usize
    }

    /// Players waiting in every queue (with several nodes: those whose request waits here).
    pub fn waiting(&self) -> usize {
        self.queues
            .lock()
            .map(|q| q.values().map(Queue::len).sum())
            .unwrap_or(0)
            + self.shared_waiting.load(Ordering::Relaxed) as usize
    }

    /// A new connection's id, and its count among the open ones (its account's too) while
    /// the guard lives; `None` when the account holds `per_account` already (one account at
    /// fifty tables at once is a bot farm, not a player: a person has a phone and a tablet).
    pub fn open_connection(&self, account: i64, per_account: usize) -> Option<(u64, OpenConn)> {
        {
            let mut m = self.open.by_account.lock().ok()?;
            let n = m.entry(account).or_insert(0);
            if *n >= per_account {
                return None;
            }
            *n += 1;
        }
        self.open.total.fetch_add(1, Ordering::Relaxed);
        Some((
            self.next_conn.fetch_add(1, Ordering::Relaxed),
            OpenConn {
                account,
                open: self.open.clone(),
            },
        ))
    }
}

#[derive(Default)]
struct OpenConns {
    total: AtomicU64,
    by_account: Mutex<HashMap<i64, usize>>,
}

/// Counts an open connection while it lives.
pub struct OpenConn {
    account: i64,
    open: Arc<OpenConns>,
}

impl Drop for OpenConn {
    fn drop(&mut self) {
        self.open.total.fetch_sub(1, Ordering::Relaxed);
        if let Ok(mut m) = self.open.by_account.lock()
            && let Some(n) = m.get_mut(&self.account)
        {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.account);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_holds_at_most_its_connections() {
        let lobby = Lobby::default();
        let a = lobby.open_connection(1, 2).unwrap();
        let b = lobby.open_connection(1, 2).unwrap();
        assert_ne!(a.0, b.0, "ids differ");
        assert!(lobby.open_connection(1, 2).is_none());
        let other = lobby.open_connection(2, 2).unwrap();
        assert_eq!(lobby.connections(), 3);
        drop(a);
        assert!(lobby.open_connection(1, 2).is_some(), "a slot came back");
        drop((b, other));
        assert_eq!(lobby.connections(), 0);
        assert!(lobby.open.by_account.lock().unwrap().is_empty());
    }
}
