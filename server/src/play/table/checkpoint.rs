//! Checkpoints (several nodes): the table's state written to NATS when its match starts and
//! after every hand, before anyone hears of the hand's end, and the table rebuilt from one on
//! the node taking it over ([`super::super::moved`]).

use std::sync::Arc;

use tokio::sync::mpsc;
use tongcheng_core::protocol::ErrorCode;
use tongcheng_core::table::{Clock, SavedTable, Table};

use super::super::checkpoint::{
    CHECKPOINT_VERSION, Checkpoint, FinishedHand, SeatKept, TableProgress,
};
use super::super::clock;
use super::super::config::OnlineConfig;
use super::rating::{Rating, rate_accounts};
use super::{Cmd, Phase, TableTask};
use crate::cluster::{Cluster, ClusterError};
use crate::store::Store;

/// A match saved between two hands, rebuilt (a save inside a hand is refused).
fn resume_match(saved: &SavedTable) -> Result<Table, String> {
    let mut t = Table::resume(saved).map_err(|e| e.to_string())?;
    // Checkpoints written before the table kept the clock say it was off.
    t.set_clock(Clock::Match);
    if t.game().is_finished() && !t.is_over() {
        return Err("the saved match stops inside a hand".into());
    }
    Ok(t)
}

/// How a checkpoint write ended.
#[derive(Debug)]
pub enum SaveOutcome {
    Written,
    /// Another node took the table over: this copy stops.
    Fenced,
    /// NATS failed: the table plays on (its hands are still stored), unprotected.
    Failed(String),
}

/// What a table asks its saver (one task per table, so writes keep their order).
pub(super) enum SaveJob {
    /// Write the checkpoint, then keep the finished hand in the store, then (if `reply`)
    /// tell the table.
    Checkpoint {
        value: Vec<u8>,
        hand: Option<Box<FinishedHand>>,
        reply: bool,
    },
    /// The match is over: forget the checkpoint first (a node dying now leaves no match to
    /// finish twice), then rate it.
    Over { rate: Option<Rating> },
}

impl TableTask {
    /// A table rebuilt from another node's checkpoint (which this node has just taken over at
    /// `revision`): the match at the start of its next hand, whatever hand was in play voided.
    pub fn restore(
        cp: &Checkpoint,
        revision: u64,
        config: OnlineConfig,
        store: Arc<dyn Store>,
        rx: mpsc::Receiver<Cmd>,
    ) -> Result<TableTask, String> {
        let t = resume_match(&cp.saved)?;
        let mut task = TableTask::new(
            cp.table.clone(),
            config,
            t.rules().clone(),
            cp.people,
            store,
            rx,
        );
        task.ranked = cp.ranked;
        task.room = cp.room;
        task.reserved = cp.reserved.clone();
        for (s, k) in task.slots.iter_mut().zip(&cp.seats) {
            s.account = k.account;
            s.device = k.device;
            s.name = k.name.clone();
            s.moved = k.account.is_some();
        }
        task.hand = cp.hand;
        task.revision = Some(revision);
        task.moved_here(t);
        Ok(task)
    }

    /// A tournament round's table reopened on this node from the progress its last node
    /// kept in the store (see [`TableProgress`]): the match at the start of its next hand,
    /// whatever hand was in play void, as for a table taken over from its checkpoint.
    pub fn resume_round(mut self, p: TableProgress) -> Result<TableTask, String> {
        let t = resume_match(&p.saved)?;
        for s in &mut self.slots {
            s.moved = s.account.is_some();
        }
        self.hand = p.hands.len() as u32;
        self.round_hands = p.hands;
        self.moved_here(t);
        Ok(self)
    }

    /// The match `t`, moved here between two hands: its people have a while to come back
    /// before the next hand.
    fn moved_here(&mut self, t: Table) {
        self.restored_over = t.is_over();
        self.table = Some(t);
        self.phase = Phase::BetweenHands;
        let grace = clock::now_ms() + self.config.ready_ms.max(1_000);
        self.grace_ms = Some(grace);
        self.wake_ms = Some(grace);
    }

    /// The checkpoint of the table as it stands (its match begun), with the hand just
    /// finished to keep.
    pub(super) fn checkpoint(&self, last: Option<FinishedHand>) -> Option<Vec<u8>> {
        if self.round.is_some() {
            // A round's table keeps its match in the store, where the round's runner (on
            // whatever node) finds it.
            return None;
        }
        let (cluster, url) = self.cluster.as_ref()?;
        let t = self.table.as_ref()?;
        let cp = Checkpoint {
            version: CHECKPOINT_VERSION,
            table: self.id.clone(),
            node_url: url.clone(),
            instance: cluster.instance.clone(),
            people: self.people,
            ranked: self.ranked,
            room: self.room,
            reserved: self.reserved.clone(),
            seats: self
                .slots
                .iter()
                .map(|s| SeatKept {
                    account: s.account,
                    device: s.device,
                    name: s.name.clone(),
                })
                .collect(),
            hand: self.hand,
            saved: t.saved(),
            last,
        };
        serde_json::to_vec(&cp).ok()
    }

    /// The table's saver, started at its first use (several nodes only).
    pub(super) fn saver(&mut self) -> Option<&mpsc::UnboundedSender<SaveJob>> {
        if self.saver.is_none() {
            let (cluster, _) = self.cluster.clone()?;
            let me = self.me.clone()?;
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(saver(
                cluster,
                self.store.clone(),
                self.id.clone(),
                self.revision,
                me,
                rx,
            ));
            self.saver = Some(tx);
        }
        self.saver.as_ref()
    }

    /// The checkpoint after a finished hand is written: the hand can be announced.
    pub(super) fn saved(&mut self, outcome: SaveOutcome) {
        match outcome {
            SaveOutcome::Written => {}
            SaveOutcome::Failed(e) => {
                tracing::warn!(table = %self.id, error = %e, "no checkpoint; playing on");
            }
            SaveOutcome::Fenced => {
                // Another node took the table over (this node was thought dead): its copy is
                // the match now. The people here are sent to find it.
                tracing::info!(table = %self.id, "table taken over by another node; closing here");
                for s in &mut self.slots {
                    s.error(
                        ErrorCode::WrongNode,
                        "this table moved to another server node; join it again",
                    );
                    s.conn = None;
                }
                self.fenced = true;
                self.pending_end = None;
                self.phase = Phase::Over;
                self.wake_ms = None;
                return;
            }
        }
        if let Some(end) = self.pending_end.take() {
            self.announce_end(end);
        }
    }
}

/// A table's saver: writes its checkpoints in order, keeping the revision, and tells the
/// table when a finished hand may be announced.
async fn saver(
    cluster: Arc<Cluster>,
    store: Arc<dyn Store>,
    id: String,
    mut revision: Option<u64>,
    me: mpsc::WeakSender<Cmd>,
    mut jobs: mpsc::UnboundedReceiver<SaveJob>,
) {
    while let Some(job) = jobs.recv().await {
        match job {
            SaveJob::Checkpoint { value, hand, reply } => {
                let outcome = match cluster.put_checkpoint(&id, value, revision).await {
                    Ok(r) => {
                        revision = Some(r);
                        SaveOutcome::Written
                    }
                    Err(ClusterError::Fenced) => SaveOutcome::Fenced,
                    Err(e) => SaveOutcome::Failed(e.to_string()),
                };
                let fenced = matches!(outcome, SaveOutcome::Fenced);
                // A fenced hand is not kept: the node that took the table over voided it.
                if let Some(h) = hand.filter(|_| !fenced) {
                    let (store, table) = (store.clone(), id.clone());
                    let _ =
                        tokio::task::spawn_blocking(move || h.keep(store.as_ref(), &table)).await;
                }
                if (reply || fenced)
                    && let Some(tx) = me.upgrade()
                {
                    let _ = tx.send(Cmd::Saved(outcome)).await;
                }
                if fenced {
                    return;
                }
            }
            SaveJob::Over { rate } => {
                if let Some(r) = revision
                    && let Err(e) = cluster.drop_checkpoint(&id, r).await
                {
                    // A checkpoint left behind could be restored and rated again: this
                    // match's rating change is lost instead (the rule in docs/server.md).
                    tracing::error!(table = %id, error = %e, "cannot forget the checkpoint; the match is not rated");
                    continue;
                }
                if let Some((rules, accounts)) = rate {
                    let (store, table) = (store.clone(), id.clone());
                    let _ = tokio::task::spawn_blocking(move || {
                        if let Err(e) = rate_accounts(store.as_ref(), &table, &rules, &accounts) {
                            tracing::error!(%table, error = %e, "cannot rate the match");
                        }
                    })
                    .await;
                }
            }
        }
    }
}
