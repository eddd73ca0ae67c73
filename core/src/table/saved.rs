//! The saved form of a table: its configuration and every action so far, enough to rebuild
//! it exactly (an unfinished match kept on quit, a table moved between server nodes).

use serde::{Deserialize, Serialize};

use super::{ClockKept, Table, TableConfig, recorded};
use crate::record::RecordedAction;
use crate::rules::{Piao, RulesError};
use crate::seat::Seat;
use crate::wall::Seed;

/// The saved-table format this build writes.
pub const SAVED_TABLE_VERSION: u32 = 1;

/// Longest saved table read: a match is at most a few hundred hands of ~150 actions.
const MAX_SAVED_BYTES: usize = 16 << 20;

/// A table as saved: rebuilt by [`Table::resume`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedTable {
    pub version: u32,
    pub config: TableConfig,
    /// Every action so far, hand by hand; the last is the hand being played.
    pub hands: Vec<Vec<RecordedAction>>,
    /// 飘 chosen each hand: every hand's stakes by seat, in step with `hands`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub piao: Vec<[u8; 4]>,
    /// Each hand's wall seed, when any hand was dealt again from another seed than the
    /// match's ([`Table::redeal`]: online tables deal from a provably fair seed); empty
    /// otherwise, so saves of tables that never redeal are unchanged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeds: Vec<Seed>,
    /// The decision clock's bank time, timeouts in a row and 托管, when any differs from a
    /// new match's (left out otherwise, so older saves read and write unchanged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockKept>,
}

/// Why a table could not be made or rebuilt. Nothing is changed by any of these.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    #[error("{0}")]
    Rules(RulesError),
    #[error("the table's setup is impossible: {0}")]
    Setup(String),
    #[error("player {0} is not a bot's slot")]
    NotABot(usize),
    #[error("saved in format {0} (this build reads format {SAVED_TABLE_VERSION})")]
    Version(u32),
    #[error("not a saved table: {0}")]
    Malformed(String),
    #[error("hand {hand}, action {action}: {reason}")]
    Replay {
        hand: usize,
        action: usize,
        reason: String,
    },
}

impl SavedTable {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("saved tables serialize")
    }

    /// Reads a saved table (bounded in size, unknown fields refused).
    pub fn from_json(s: &str) -> Result<SavedTable, TableError> {
        if s.len() > MAX_SAVED_BYTES {
            return Err(TableError::Malformed(format!(
                "{} bytes is too long",
                s.len()
            )));
        }
        serde_json::from_str(s).map_err(|e| TableError::Malformed(e.to_string()))
    }
}

impl Table {
    /// What to save so that [`Table::resume`] rebuilds this exact state.
    pub fn saved(&self) -> SavedTable {
        let mut hands = self.played.clone();
        let mut piao = self.played_piao.clone();
        let mut seeds = self.played_seeds.clone();
        if !self.is_over() {
            // The hand being played, even with no move yet, so the count of hands is right.
            hands.push(recorded(self.game()));
            piao.push(self.piao_chosen());
            seeds.push(self.game().setup().seed);
        }
        if !matches!(self.rules().piao, Piao::Chosen(_)) {
            piao.clear();
        }
        SavedTable {
            version: SAVED_TABLE_VERSION,
            config: self.config.clone(),
            hands,
            piao,
            seeds: if self.redealt { seeds } else { Vec::new() },
            clock: self.timing.kept(self.rules().time.bank_secs),
        }
    }

    /// Rebuilds a saved table by replaying its actions. Each bot is asked again at its
    /// decisions, so it carries on with the same random state.
    pub fn resume(saved: &SavedTable) -> Result<Table, TableError> {
        if saved.version != SAVED_TABLE_VERSION {
            return Err(TableError::Version(saved.version));
        }
        let mut t = Table::try_new(saved.config.clone())?;
        for (h, actions) in saved.hands.iter().enumerate() {
            let fail = |action: usize, reason: String| TableError::Replay {
                hand: h + 1,
                action,
                reason,
            };
            if t.is_over() {
                return Err(fail(0, "saved after the match was over".into()));
            }
            if let Some(&seed) = saved.seeds.get(h)
                && seed != t.game().setup().seed
                && !t.redeal(seed)
            {
                return Err(fail(0, "cannot deal the hand from its saved seed".into()));
            }
            if let Some(stakes) = saved.piao.get(h) {
                for s in Seat::ALL {
                    t.play
                        .choose_piao(s, stakes[s.index()])
                        .map_err(|e| fail(0, e.to_string()))?;
                }
            }
            for (i, ra) in actions.iter().enumerate() {
                if t.game().is_finished() {
                    return Err(fail(i + 1, "the hand was already over".into()));
                }
                if t.game().is_pending(ra.seat) && t.bots[t.play.player_at(ra.seat)].is_some() {
                    let _ = t.ask_bot(ra.seat);
                }
                t.play
                    .apply(ra.seat, ra.action)
                    .map_err(|e| fail(i + 1, e.to_string()))?;
            }
            if t.game().is_finished() {
                // The last hand saved may be over but not booked yet (saved at its result, before
                // `next_hand`): booking it here would deal a hand the save does not have, and
                // lose the finished hand's record. It is booked when more hands follow, or when
                // booking it ends the match (a match saved once over ends with its last hand).
                let last = h + 1 == saved.hands.len();
                if !last || !t.play.clone().next_hand() {
                    t.next_hand();
                }
            } else if h + 1 != saved.hands.len() {
                return Err(fail(
                    actions.len(),
                    "unfinished, but more hands follow".into(),
                ));
            }
        }
        if let Some(kept) = &saved.clock {
            t.timing.restore(kept);
        }
        Ok(t)
    }
}
