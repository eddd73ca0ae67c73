//! Every node's share of the tournaments that outlive their node: it says it is alive (a
//! runner spreads a round's tables over the nodes alive), opens the round tables given to
//! it, and takes over a tournament whose runner's lease ran out — or, when it starts, the
//! ones its earlier life at the same URL ran.

use std::sync::Arc;
use std::time::Duration;

use tongcheng_api::ErrorCode;
use tongcheng_api::tournament::TournamentStatus;

use super::super::{AbortOnDrop, Online};
use super::kept;
use super::tables::open_assigned;

/// Runs for the node's life, every third of a tournament lease (at least 0.3 s).
pub async fn sweep(online: Arc<Online>) {
    let lease = online.config.tournament_lease_secs.max(1);
    let mut tick = tokio::time::interval(Duration::from_millis((lease * 1000 / 3).max(300)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let me = online.node.url().to_string();
    // A process just started runs no round table: those its earlier life ran are opened again.
    let (store, url) = (online.store.clone(), me.clone());
    if let Ok(Err(e)) = tokio::task::spawn_blocking(move || store.reset_round_tables(&url)).await {
        tracing::error!(error = %e, "cannot reopen this node's round tables");
    }
    // Tables given to this node are opened within a quarter of a second (their entrants are
    // told their table only once it is open).
    let opener = online.clone();
    let opening = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            open_assigned(&opener).await;
        }
    });
    let _stop_opening = AbortOnDrop(opening);
    let mut first = true;
    loop {
        tick.tick().await;
        let (store, url, now) = (online.store.clone(), me.clone(), crate::now());
        let mine = first.then(|| me.clone());
        first = false;
        let orphans = tokio::task::spawn_blocking(move || {
            store.node_seen(&url, now)?;
            store.orphaned_tournaments(now, mine.as_deref())
        })
        .await;
        let orphans = match orphans {
            Ok(Ok(ids)) => ids,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "tournament sweep: the store failed");
                continue;
            }
            Err(_) => continue,
        };
        for id in orphans {
            if online.tournaments.runs(&id) {
                continue;
            }
            take_over(&online, &id, now, lease).await;
        }
    }
}

/// Claims tournament `id` (one node wins) and runs it here from where the store has it.
async fn take_over(online: &Arc<Online>, id: &str, now: i64, lease: u64) {
    let (store, tid, me) = (
        online.store.clone(),
        id.to_string(),
        online.node.url().to_string(),
    );
    let until = now + lease as i64;
    let won =
        tokio::task::spawn_blocking(move || store.claim_tournament(&tid, &me, now, until)).await;
    if !matches!(won, Ok(Ok(true))) {
        return;
    }
    match kept::load(online, id).await {
        Ok(Some((t, from))) => {
            tracing::info!(tournament = %id, "tournament taken over");
            if let Err(e) = online.tournaments.run(online, Arc::new(t), from) {
                tracing::error!(tournament = %id, error = %e.message, "cannot run the tournament");
            }
        }
        Ok(None) => {}
        Err(e) if e.code == ErrorCode::Internal => {
            // Kept rows no build can go on from (a tournament begun before they were kept,
            // a round with no secret): it is over, not tried again every sweep.
            tracing::error!(tournament = %id, error = %e.message, "a tournament cannot be read back: cancelled");
            let (store, tid) = (online.store.clone(), id.to_string());
            let status = TournamentStatus::Cancelled;
            let _ = tokio::task::spawn_blocking(move || {
                store.set_tournament_status(&tid, status.as_str(), None)
            })
            .await;
        }
        Err(e) => {
            // The store failed: the lease runs out and the next sweep tries again.
            tracing::error!(tournament = %id, error = %e.message, "cannot read the tournament back");
        }
    }
}
