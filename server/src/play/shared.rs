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

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::http::StatusCode;

use super::queue::{Candidate, Queue};
use super::table::TableTask;
use super::{Seated, lock, spawn_table, table_id};
use crate::app::AppState;
use crate::error::ApiError;
use crate::routes::blocking;
use crate::store::{QueueClaim, QueueEntry, QueueState};
use tongcheng_core::rules::RuleSet;

/// Unix time in milliseconds: queue times must agree across nodes, so they are wall-clock.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A waiting request that goes away (its client hung up) takes its row with it.
struct Leave {
    state: AppState,
    account: i64,
    ticket: String,
    armed: bool,
}

impl Drop for Leave {
    fn drop(&mut self) {
        self.state
            .lobby
            .shared_waiting
            .fetch_sub(1, Ordering::Relaxed);
        if self.armed {
            let store = self.state.store.clone();
            let (account, ticket) = (self.account, std::mem::take(&mut self.ticket));
            tokio::task::spawn_blocking(move || {
                let _ = store.queue_leave(account, &ticket);
            });
        }
    }
}

/// `POST /v1/queue` on a node of several: waits until some node seats the player.
pub async fn wait(
    state: &AppState,
    who: Candidate,
    rules: RuleSet,
    ranked: bool,
) -> Result<Seated, ApiError> {
    let online = &state.config.online;
    let tick = Duration::from_millis(online.queue_tick_ms.max(1));
    let give_up = Instant::now() + Duration::from_millis(online.queue.bot_fill_ms + 30_000);
    let entry = QueueEntry {
        account_id: who.account,
        ticket: table_id(),
        rules: rules.name.clone(),
        ranked,
        rating: who.rating,
        devices: who.devices,
        ip: who.ip.map(|a| a.to_string()),
        since_ms: now_ms(),
    };
    state.lobby.shared_waiting.fetch_add(1, Ordering::Relaxed);
    let mut leave = Leave {
        state: state.clone(),
        account: entry.account_id,
        ticket: entry.ticket.clone(),
        armed: true,
    };
    let store = state.store.clone();
    let put = entry.clone();
    blocking(move || Ok(store.queue_put(&put, now_ms())?)).await?;
    loop {
        tokio::time::sleep(tick).await;
        let store = state.store.clone();
        let (account, ticket) = (entry.account_id, entry.ticket.clone());
        match blocking(move || Ok(store.queue_poll(account, &ticket, now_ms())?)).await? {
            QueueState::Seated {
                table_id,
                node_url,
                people,
            } => {
                leave.armed = false;
                let people = usize::from(people);
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
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "queue_replaced",
                    "another request of this account took its place in the queue",
                ));
            }
            QueueState::Gone => {
                leave.armed = false;
                return Err(timeout());
            }
            QueueState::Waiting => {}
        }
        if Instant::now() >= give_up {
            return Err(timeout());
        }
        run_matcher(state, &rules, ranked).await?;
    }
}

fn timeout() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "queue_timeout",
        "no table could be made in time",
    )
}

/// One run of the shared matcher for `rules`/`ranked` on this node, unless it ran here within
/// half a tick. Tables for the groups it seats are opened on this node.
pub async fn run_matcher(
    state: &AppState,
    rules: &RuleSet,
    ranked: bool,
) -> Result<Vec<QueueClaim>, ApiError> {
    let online = &state.config.online;
    let every = Duration::from_millis(online.queue_tick_ms.max(1));
    {
        let mut runs = lock(&state.lobby.shared_runs)?;
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
    let state = state.clone();
    let rules = rules.clone();
    blocking(move || claim(&state, &rules, ranked)).await
}

/// The matcher run itself, on the blocking pool (the store is synchronous).
fn claim(state: &AppState, rules: &RuleSet, ranked: bool) -> Result<Vec<QueueClaim>, ApiError> {
    let online = &state.config.online;
    // A request polls every tick: a row unseen for several ticks is a request that is gone.
    let stale_ms = (online.queue_tick_ms.saturating_mul(8)).max(2_000) as i64;
    let stale_before = now_ms() - stale_ms;
    let node = state.node.url().to_string();
    let mut choose = |waiting: Vec<QueueEntry>| -> Vec<QueueClaim> {
        let now = Instant::now();
        let now_wall = now_ms();
        let mut queue: Queue<i64> = Queue::new(online.queue.clone(), ranked);
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
        let Ok(mut tables) = lock(&state.lobby.tables) else {
            return Vec::new();
        };
        let mut claims = Vec::new();
        for seating in queue.tick(now) {
            if tables.len() >= online.max_tables {
                // They stay in the queue for another node (or a later run) to seat.
                break;
            }
            let accounts: Vec<i64> = seating.players.iter().map(|p| p.1).collect();
            let id = table_id();
            let people = accounts.len() as u8;
            let reserved = accounts.clone();
            let task = |rx| {
                let t = TableTask::new(
                    id.clone(),
                    online.clone(),
                    rules.clone(),
                    people,
                    state.store.clone(),
                    rx,
                )
                .reserved_for(reserved);
                if ranked { t.ranked() } else { t }
            };
            // The table is up before the players can learn of it (the claim commits after).
            spawn_table(state, &mut tables, &id, task);
            claims.push(QueueClaim {
                table_id: id,
                node_url: node.clone(),
                accounts,
            });
        }
        claims
    };
    Ok(state
        .store
        .queue_claim(&rules.name, ranked, stale_before, &mut choose)?)
}
