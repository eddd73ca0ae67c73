//! Tables that outlive their node: checkpoints, and taking over a stopped node's tables.
//!
//! The rule (docs/server.md, "Several nodes"): a table runs on one node. With NATS configured, the
//! node writes the table's checkpoint — who sits where, the match's seed and every finished
//! hand — when its match starts and after every hand, *before* anyone is told the hand ended,
//! and the hand's records are stored right after. When the node stops, another node takes the
//! table over (a player of it reconnecting there, or the sweep every node runs), rebuilds the
//! match from the checkpoint and deals the next hand. A hand in play when the node stopped is
//! void: it has no record and moves no score or rating, and is dealt again (a new wall).
//! Every finished hand stands, and a ranked match is rated once, when it ends wherever that
//! is. A table whose match had not begun (its lobby) is not moved: its players queue again.

use std::sync::Arc;

use tongcheng_core::protocol::ErrorCode;

use super::checkpoint::{CHECKPOINT_VERSION, Checkpoint};
use super::table::TableTask;
use super::{Online, lock};
use crate::cluster::{Cluster, ClusterError};

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
pub async fn find_or_take(online: &Online, id: &str, home: Option<String>) -> Whereabouts {
    let Some(cluster) = online.cluster.get().cloned() else {
        return home.map_or_else(|| Whereabouts::Gone(gone_msg()), Whereabouts::There);
    };
    // One takeover at a time on a node: a player's join and the sweep may want the same table.
    let _one = online.lobby.taking.lock().await;
    if here(online, id) {
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
            Some(url) if url != online.node.url() && cluster.alive(&url, None).await => {
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
    take_over(online, &cluster, cp, revision).await
}

fn gone_msg() -> String {
    "that table's match is over, or the server running it stopped before it began".into()
}

fn here(online: &Online, id: &str) -> bool {
    online.runs_table(id)
}

/// Claims the stopped node's table in the store (one node wins), fences the old copy by
/// writing the checkpoint over its revision, keeps its last hand, and runs it here.
async fn take_over(
    online: &Online,
    cluster: &Arc<Cluster>,
    mut cp: Checkpoint,
    revision: u64,
) -> Whereabouts {
    let me = online.node.url().to_string();
    let (store, id, from, to) = (
        online.store.clone(),
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
        let (store, table) = (online.store.clone(), cp.table.clone());
        let _ = tokio::task::spawn_blocking(move || h.keep(store.as_ref(), &table)).await;
    }
    let id = cp.table.clone();
    let (tx, rx) = tokio::sync::mpsc::channel(super::TABLE_QUEUE);
    let config = online.config.clone();
    let task = match TableTask::restore(&cp, revision, config, online.store.clone(), rx) {
        Ok(t) => t,
        Err(e) => return Whereabouts::Gone(format!("the table cannot be rebuilt here: {e}")),
    };
    let Ok(mut tables) = lock(&online.lobby.tables) else {
        return Whereabouts::Gone("the lobby is unavailable".into());
    };
    online.spawn_built(&mut tables, &id, tx, task);
    drop(tables);
    tracing::info!(
        table = %id,
        next_hand = cp.hand.saturating_add(1),
        "table taken over from a stopped node"
    );
    Whereabouts::Here
}

/// Every `every`: takes over the tables of nodes that stopped, so a match nobody reconnects
/// to still finishes (its seats play on by themselves) and is kept and rated.
pub async fn sweep(online: Arc<Online>, every: std::time::Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(cluster) = online.cluster.get().cloned() else {
            return;
        };
        let Ok(ids) = cluster.checkpointed_tables().await else {
            continue;
        };
        for id in ids {
            if here(&online, &id) {
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
            if let Whereabouts::Gone(why) = find_or_take(&online, &id, home).await {
                tracing::warn!(table = %id, reason = %why, "table not taken over");
            }
        }
    }
}

/// The error a join gets for a table that is gone.
pub fn gone(msg: String) -> (ErrorCode, String) {
    (ErrorCode::MatchOver, msg)
}
