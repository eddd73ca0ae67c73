//! Tables that outlive their node: checkpoints, and taking over a stopped node's tables.
//!
//! The rule (README "Several nodes"): a table runs on one node. With NATS configured, the
//! node writes the table's checkpoint — who sits where, the match's seed and every finished
//! hand — when its match starts and after every hand, *before* anyone is told the hand ended,
//! and the hand's records are stored right after. When the node stops, another node takes the
//! table over (a player of it reconnecting there, or the sweep every node runs), rebuilds the
//! match from the checkpoint and deals the next hand. A hand in play when the node stopped is
//! void: it has no record and moves no score or rating, and is dealt again (a new wall).
//! Every finished hand stands, and a ranked match is rated once, when it ends wherever that
//! is. A table whose match had not begun (its lobby) is not moved: its players queue again.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tongcheng_core::protocol::ErrorCode;
use tongcheng_core::table::SavedTable;

use super::table::TableTask;
use super::{lock, spawn_built};
use crate::app::AppState;
use crate::cluster::{Cluster, ClusterError};
use crate::store::{NewRecord, RankedHand, Store};

/// The checkpoint format this build writes (and the only one it reads).
pub const CHECKPOINT_VERSION: u32 = 1;

/// A table as another node needs it to finish its match.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    pub version: u32,
    pub table: String,
    /// The node running the table, and its process instance (a restart is another one).
    pub node_url: String,
    pub instance: String,
    pub people: u8,
    pub ranked: bool,
    pub room: bool,
    pub reserved: Option<Vec<i64>>,
    /// Who holds each player slot.
    pub seats: Vec<SeatKept>,
    /// The next hand's number.
    pub hand: u32,
    /// The match: its configuration (seed, players) and the finished hands' actions and seeds.
    pub saved: SavedTable,
    /// The hand just finished, stored again by a node taking over (storing it may not have
    /// finished when the node stopped; storing is idempotent).
    pub last: Option<FinishedHand>,
}

/// A player slot's holder.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatKept {
    pub account: Option<i64>,
    pub device: i64,
    pub name: String,
}

/// A finished hand as the store keeps it: each person's record, and the ranked history.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinishedHand {
    /// (account, device, record) per person.
    pub stored: Vec<(i64, i64, NewRecord)>,
    pub ranked: Option<RankedHand>,
}

impl FinishedHand {
    /// Stores the hand (again: a record or ranked hand already there is left as it is).
    pub fn keep(&self, store: &dyn Store, table: &str) {
        for (account, device, r) in &self.stored {
            if let Err(e) =
                store.store_records(*account, *device, std::slice::from_ref(r), crate::now())
            {
                eprintln!("table {table}: storing a hand for account {account}: {e}");
            }
        }
        if let Some(h) = &self.ranked
            && let Err(e) = store.put_ranked_hand(h)
        {
            eprintln!("table {table}: keeping a ranked hand: {e}");
        }
    }
}

/// What a node asked for a table it does not run should do.
#[derive(Debug, PartialEq, Eq)]
pub enum Whereabouts {
    /// The table runs here now (taken over just now, or already).
    Here,
    /// It runs on the node at this URL.
    There(String),
    /// No node runs it and none can: its match ended, or it never began.
    Gone(String),
}

/// Where table `id` is, taking it over when the node that ran it has stopped. `home` is the
/// node the store names for it.
pub async fn find_or_take(state: &AppState, id: &str, home: Option<String>) -> Whereabouts {
    let Some(cluster) = state.cluster.get().cloned() else {
        return home.map_or_else(|| Whereabouts::Gone(gone_msg()), Whereabouts::There);
    };
    // One takeover at a time on a node: a player's join and the sweep may want the same table.
    let _one = state.lobby.taking.lock().await;
    if here(state, id) {
        return Whereabouts::Here;
    }
    let found = match cluster.checkpoint(id).await {
        Ok(f) => f,
        // NATS unreachable: send the player where the store says, as without NATS.
        Err(_) => return home.map_or_else(|| Whereabouts::Gone(gone_msg()), Whereabouts::There),
    };
    let Some((value, revision)) = found else {
        // No match to finish: a table in its lobby, or one whose match has ended.
        return match home {
            Some(url) if url != state.node.url() && cluster.alive(&url, None).await => {
                Whereabouts::There(url)
            }
            _ => Whereabouts::Gone(gone_msg()),
        };
    };
    let cp: Checkpoint = match serde_json::from_slice(&value) {
        Ok(c) => c,
        Err(e) => return Whereabouts::Gone(format!("the table's checkpoint is unreadable: {e}")),
    };
    if cp.version != CHECKPOINT_VERSION {
        return Whereabouts::Gone(format!(
            "the table's checkpoint is in format {} (this node reads {CHECKPOINT_VERSION})",
            cp.version
        ));
    }
    if cp.instance == cluster.instance {
        // This process wrote it but runs no such table: its match ended and forgetting the
        // checkpoint failed. Restoring it would rate the match a second time.
        return Whereabouts::Gone(gone_msg());
    }
    if cluster.alive(&cp.node_url, Some(&cp.instance)).await {
        return Whereabouts::There(cp.node_url);
    }
    take_over(state, &cluster, cp, revision).await
}

fn gone_msg() -> String {
    "that table's match is over, or the server running it stopped before it began".into()
}

fn here(state: &AppState, id: &str) -> bool {
    lock(&state.lobby.tables).is_ok_and(|t| t.get(id).is_some_and(|tx| !tx.is_closed()))
}

/// Claims the stopped node's table in the store (one node wins), fences the old copy by
/// writing the checkpoint over its revision, keeps its last hand, and runs it here.
async fn take_over(
    state: &AppState,
    cluster: &Arc<Cluster>,
    mut cp: Checkpoint,
    revision: u64,
) -> Whereabouts {
    let me = state.node.url().to_string();
    let (store, id, from, to) = (
        state.store.clone(),
        cp.table.clone(),
        cp.node_url.clone(),
        me.clone(),
    );
    let claimed = tokio::task::spawn_blocking(move || {
        let won = store.move_table_home(&id, &from, &to, crate::now())?;
        Ok::<_, crate::store::StoreError>((won, if won { None } else { store.table_home(&id)? }))
    })
    .await;
    match claimed {
        Ok(Ok((true, _))) => {}
        Ok(Ok((false, Some(url)))) if url != me => return Whereabouts::There(url),
        Ok(Ok(_)) => return Whereabouts::Gone(gone_msg()),
        Ok(Err(e)) => return Whereabouts::Gone(format!("the store failed: {e}")),
        Err(_) => return Whereabouts::Gone("a task failed".into()),
    }
    let last = cp.last.take();
    cp.node_url = me;
    cp.instance = cluster.instance.clone();
    let Ok(value) = serde_json::to_vec(&cp) else {
        return Whereabouts::Gone("the checkpoint cannot be written".into());
    };
    let revision = match cluster
        .put_checkpoint(&cp.table, value, Some(revision))
        .await
    {
        Ok(r) => r,
        Err(ClusterError::Fenced) => {
            // Someone wrote since we read: look again next time.
            return Whereabouts::Gone("the table is being moved; join again".into());
        }
        Err(e) => return Whereabouts::Gone(e.to_string()),
    };
    if let Some(h) = last {
        let (store, table) = (state.store.clone(), cp.table.clone());
        let _ = tokio::task::spawn_blocking(move || h.keep(store.as_ref(), &table)).await;
    }
    let id = cp.table.clone();
    let (tx, rx) = tokio::sync::mpsc::channel(super::TABLE_QUEUE);
    let config = state.config.online.clone();
    let task = match TableTask::restore(&cp, revision, config, state.store.clone(), rx) {
        Ok(t) => t,
        Err(e) => return Whereabouts::Gone(format!("the table cannot be rebuilt here: {e}")),
    };
    let Ok(mut tables) = lock(&state.lobby.tables) else {
        return Whereabouts::Gone("the lobby is unavailable".into());
    };
    spawn_built(state, &mut tables, &id, tx, task);
    drop(tables);
    eprintln!(
        "table {id}: taken over from a stopped node (hand {} next)",
        cp.hand.saturating_add(1)
    );
    Whereabouts::Here
}

/// Every `every`: takes over the tables of nodes that stopped, so a match nobody reconnects
/// to still finishes (its seats play on by themselves) and is kept and rated.
pub async fn sweep(state: AppState, every: std::time::Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(cluster) = state.cluster.get().cloned() else {
            return;
        };
        let Ok(ids) = cluster.checkpointed_tables().await else {
            continue;
        };
        for id in ids {
            if here(&state, &id) {
                continue;
            }
            let Ok(Some((value, _))) = cluster.checkpoint(&id).await else {
                continue;
            };
            let Ok(cp) = serde_json::from_slice::<Checkpoint>(&value) else {
                continue;
            };
            if cp.instance == cluster.instance
                || cluster.alive(&cp.node_url, Some(&cp.instance)).await
            {
                continue;
            }
            let home = Some(cp.node_url.clone());
            if let Whereabouts::Gone(why) = find_or_take(&state, &id, home).await {
                eprintln!("table {id}: not taken over: {why}");
            }
        }
    }
}

/// The error a join gets for a table that is gone.
pub fn gone(msg: String) -> (ErrorCode, String) {
    (ErrorCode::MatchOver, msg)
}
