//! A table's checkpoint: what another node needs to finish its match (see [`super::moved`]).

use serde::{Deserialize, Serialize};
use tongcheng_core::record::HandRecord;
use tongcheng_core::table::SavedTable;

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
    /// A tournament round's table: its match so far, kept in the store with the hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<Box<TableProgress>>,
}

/// A tournament round table's match after a hand, kept in the store (`tournament_tables`)
/// rather than in NATS: what any node taking the round over needs to finish the match, and
/// the result once it is over.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TableProgress {
    pub tournament: String,
    pub round: u32,
    pub table: u32,
    /// The match at the start of its next hand.
    pub saved: SavedTable,
    /// Every finished hand's record (the round's published record holds them).
    pub hands: Vec<HandRecord>,
    /// The match scores by player slot.
    pub scores: [i32; 4],
    pub over: bool,
}

impl FinishedHand {
    /// Stores the hand (again: a record or ranked hand already there is left as it is).
    pub fn keep(&self, store: &dyn Store, table: &str) {
        if let Err(e) = store.store_hand(&self.stored, crate::now()) {
            tracing::error!(table, error = %e, "cannot store a hand");
        }
        if let Some(h) = &self.ranked
            && let Err(e) = store.put_ranked_hand(h)
        {
            tracing::error!(table, error = %e, "cannot keep a ranked hand");
        }
        if let Some(p) = &self.round {
            let kept = serde_json::to_string(p)
                .map_err(|e| e.to_string())
                .and_then(|json| {
                    store
                        .table_progress(&p.tournament, p.round, p.table, &json, p.over)
                        .map_err(|e| e.to_string())
                });
            if let Err(e) = kept {
                tracing::error!(table, error = %e, "cannot keep a round table's progress");
            }
        }
    }
}
