//! The matchmaking queue shared by several nodes over one PostgreSQL store.
//!
//! Waiting players are rows of the store's `queue` table, whatever node they queued on. Each
//! waiting request polls its own row every `queue_tick_ms` and offers to run the matcher; a
//! node runs it at most once a tick per rule set and kind. A run takes, in one transaction,
//! the waiting rows no other node's run holds (`FOR UPDATE SKIP LOCKED`), groups them with
//! the same pure matcher as one node's queue ([`super::queue::Queue`]), opens the tables here
//! and marks the grouped rows seated with the table and this node's URL. Each player's own
//! request (on its own node) then finds its row seated and answers with the table and node.
//! A row is claimed by one run only, so no player is ever seated twice.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tongcheng_api::play::Seated;
use tongcheng_core::rules::RuleSet;

use super::queue::{Candidate, Queue};
use super::{Online, lock, queue_replaced, queue_timeout};
use crate::auth::random_id;
use crate::blocking::blocking;
use crate::error::ApiError;
use crate::store::{QueueClaim, QueueEntry, QueueState};

/// Unix time in milliseconds: queue times must agree across nodes, so they are wall-clock.
pub use tongcheng_core::clock::unix_millis as now_ms;

/// A waiting request that goes away (its client hung up) takes its row with it.
struct Leave {
    online: Arc<Online>,
    account: i64,
    ticket: String,
    armed: bool,
}

impl Drop for Leave {
    fn drop(&mut self) {
        self.online
            .lobby
            .shared_waiting
            .fetch_sub(1, Ordering::Relaxed);
        if self.armed {
            let store = self.online.store.clone();
            let (account, ticket) = (self.account, std::mem::take(&mut self.ticket));
            tokio::task::spawn_blocking(move || {
                let _ = store.queue_leave(account, &ticket);
            });
        }
    }
}

/// `POST /v1/queue` on a node of several: waits until some node seats the player.
pub async fn wait(
    online: &Arc<Online>,
    who: Candidate,
    rules: RuleSet,
    ranked: bool,
) -> Result<Seated, ApiError> {
    let config = &online.config;
    let tick = Duration::from_millis(config.queue_tick_ms.max(1));
    let give_up = Instant::now() + config.queue_wait_limit();
    let entry = QueueEntry {
        account_id: who.account,
        ticket: random_id(),
        rules: rules.name.clone(),
        ranked,
        rating: who.rating,
        devices: who.devices,
        ip: who.ip.map(|a| a.to_string()),
        since_ms: now_ms(),
    };
    online.lobby.shared_waiting.fetch_add(1, Ordering::Relaxed);
    let mut leave = Leave {
        online: online.clone(),
        account: entry.account_id,
        ticket: entry.ticket.clone(),
        armed: true,
    };
    let store = online.store.clone();
    let put = entry.clone();
    blocking(move || Ok(store.queue_put(&put, now_ms())?)).await?;
    loop {
        tokio::time::sleep(tick).await;
        let store = online.store.clone();
        let (account, ticket) = (entry.account_id, entry.ticket.clone());
        match blocking(move || Ok(store.queue_poll(account, &ticket, now_ms())?)).await? {
            QueueState::Seated {
                table_id,
                node_url,
                people,
            } => {
                leave.armed = false;
                return Ok(Seated {
                    table: table_id,
                    rules: rules.name.clone(),
                    ranked,
                    people,
                    bots: 4 - people,
                    server: node_url,
                });
            }
            QueueState::Replaced => {
                leave.armed = false;
                return Err(queue_replaced());
            }
            QueueState::Gone => {
                leave.armed = false;
                return Err(queue_timeout());
            }
            QueueState::Waiting => {}
        }
        if Instant::now() >= give_up {
            return Err(queue_timeout());
        }
        run_matcher(online, &rules, ranked).await?;
    }
}

/// One run of the shared matcher for `rules`/`ranked` on this node, unless it ran here within
/// half a tick. Tables for the groups it seats are opened on this node.
pub async fn run_matcher(
    online: &Arc<Online>,
    rules: &RuleSet,
    ranked: bool,
) -> Result<Vec<QueueClaim>, ApiError> {
    let every = Duration::from_millis(online.config.queue_tick_ms.max(1));
    {
        let mut runs = lock(&online.lobby.shared_runs)?;
        let key = (rules.name.clone(), ranked);
        let now = Instant::now();
        if runs
            .get(&key)
            .is_some_and(|t| now.saturating_duration_since(*t) < every / 2)
        {
            return Ok(Vec::new());
        }
        runs.insert(key, now);
    }
    let online = online.clone();
    let rules = rules.clone();
    blocking(move || claim(&online, &rules, ranked)).await
}

/// The matcher run itself, on the blocking pool (the store is synchronous).
fn claim(online: &Online, rules: &RuleSet, ranked: bool) -> Result<Vec<QueueClaim>, ApiError> {
    let config = &online.config;
    // A request polls every tick: a row unseen for several ticks is a request that is gone.
    let stale_ms = (config.queue_tick_ms.saturating_mul(8)).max(2_000) as i64;
    let stale_before = now_ms() - stale_ms;
    let node = online.node.url().to_string();
    let mut choose = |waiting: Vec<QueueEntry>| -> Vec<QueueClaim> {
        let now = Instant::now();
        let now_wall = now_ms();
        let mut queue: Queue<i64> = Queue::new(config.queue.clone(), ranked);
        for e in waiting {
            let waited = Duration::from_millis((now_wall - e.since_ms).max(0) as u64);
            queue.push(
                Candidate {
                    account: e.account_id,
                    devices: e.devices,
                    ip: e.ip.and_then(|a| a.parse().ok()),
                    rating: e.rating,
                },
                e.account_id,
                now.checked_sub(waited).unwrap_or(now),
            );
        }
        let Ok(mut tables) = lock(&online.lobby.tables) else {
            return Vec::new();
        };
        let mut claims = Vec::new();
        for seating in queue.tick(now) {
            if tables.len() >= config.max_tables {
                // They stay in the queue for another node (or a later run) to seat.
                break;
            }
            let accounts: Vec<i64> = seating.players.iter().map(|p| p.1).collect();
            let id = random_id();
            // The table is up before the players can learn of it (the claim commits after).
            online.open_queue_table(&mut tables, &id, rules, accounts.clone(), ranked);
            claims.push(QueueClaim {
                table_id: id,
                node_url: node.clone(),
                accounts,
            });
        }
        claims
    };
    Ok(online
        .store
        .queue_claim(&rules.name, ranked, stale_before, &mut choose)?)
}
