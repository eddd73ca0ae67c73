//! The local hand history: every finished hand and match of one player, in SQLite.
//!
//! This is the store the terminal game writes and the phone apps open through FFI. Each hand
//! is kept whole — its [`HandRecord`], which replays and verifies itself — plus a row of
//! summary columns (when, which rules, the player's seat, won / dealt in / self-drawn, the
//! player's points, the win's fan total and fans) so that listings and statistics never parse
//! a record.
//!
//! Guarantees:
//! - One transaction per hand: a hand is stored whole or not at all, and `kill -9` at any
//!   moment loses at most the hand being written (see [`HistoryStore::open`] for why).
//! - Only records that verify are stored (replayed against the presets before the write), and
//!   each hand once: its record's content id is unique.
//! - The schema is versioned (`PRAGMA user_version`) and migrated one step at a time, each step
//!   in its own transaction; a database written by a newer build is refused, never altered.
//! - A file that is not a history (a 1-byte file, a text file, another program's database), a
//!   damaged one or a newer history is never deleted or overwritten: the error says so, and
//!   [`HistoryStore::move_aside`] lets the app put it aside and start afresh. Only a missing
//!   or empty file becomes a new history.
//! - A history that cannot be written (read-only file or directory) is refused at open, so a
//!   game never plays hands it cannot keep.
//! - Nothing panics on bad input: damaged files, missing ids and garbage in a column come back
//!   as [`HistoryError`]s.
//!
//! The code, by concern: `open` (what the file is, guards, migrations, moving aside),
//! `schema` (the migrations), `write` (hands and matches), `query` (listings, records,
//! replays), `stats` (running totals per rule set), `sync` (outbox and pull cursor).

mod error;
mod open;
mod query;
mod schema;
mod stats;
mod sync;
mod write;

pub use error::HistoryError;
pub use schema::SCHEMA_VERSION;
pub use sync::{PULL_CURSOR, PendingUpload, RejectedUpload};

use std::path::PathBuf;

use rusqlite::Connection;
use serde::Serialize;

use crate::game::Scorer;
use crate::record::{HandRecord, RecordId};
use crate::seat::Seat;

/// How many fans [`HistoryStore::stats`] ranks.
pub const TOP_FANS: usize = 5;

/// A stored hand's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct HandId(pub i64);

/// A stored match's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct MatchId(pub i64);

/// A finished hand to store.
#[derive(Clone, Copy, Debug)]
pub struct NewHand<'a> {
    pub record: &'a HandRecord,
    /// The seat of the player whose history this is.
    pub seat: Seat,
    /// When the hand finished, in unix seconds (the caller's clock: the core reads none).
    pub played_at: i64,
    /// The match the hand belongs to, if any (it must exist).
    pub match_id: Option<MatchId>,
}

/// One fan of a stored win.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredFan {
    /// Which scorer's fan: ids are numbered per scorer.
    pub scorer: Scorer,
    pub id: u8,
    /// Chinese name, from the scorer's table (`fan <id>` for an id this build does not know).
    pub name: String,
    /// English name.
    pub en: String,
    /// Points per occurrence.
    pub points: u32,
    pub count: u32,
}

/// A stored hand as listings show it (from the summary columns, without the record).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HandEntry {
    pub id: HandId,
    pub played_at: i64,
    /// The rule set's name.
    pub rules: String,
    /// The player's seat.
    pub seat: Seat,
    /// Who won; `None` for a drawn hand.
    pub winner: Option<Seat>,
    /// The player won.
    pub won: bool,
    /// The player discarded the winning tile (or had a kong robbed).
    pub dealt_in: bool,
    /// The win (whoever won) was self-drawn.
    pub self_drawn: bool,
    /// The player's score change.
    pub points: i32,
    /// The win's fan total (flowers included); `None` for a drawn hand.
    pub fan_total: Option<u32>,
    /// The fans of the win, biggest first; empty for a drawn hand.
    pub fans: Vec<StoredFan>,
    pub match_id: Option<MatchId>,
    /// The record's content id; `None` when the stored record does not read (see
    /// [`HistoryStore::rejected_uploads`]) or the hand is a second copy of a hand stored
    /// before it (histories before schema v4 could hold one).
    pub record_id: Option<RecordId>,
}

/// A stored match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchEntry {
    pub id: MatchId,
    pub rules: String,
    /// The player's seat at the start (player `p` starts in seat `p`, so this is also the
    /// player's index in `final_scores`).
    pub seat: Seat,
    pub started_at: i64,
    /// `None` while the match is unfinished (or was abandoned).
    pub finished_at: Option<i64>,
    /// Final score per player, once finished.
    pub final_scores: Option<[i32; 4]>,
    /// Hands stored for this match.
    pub hands: u64,
    /// The player's wins among them.
    pub wins: u64,
    /// The player's points over those hands.
    pub points: i64,
}

/// The player's biggest win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BiggestHand {
    pub id: HandId,
    pub total: u32,
}

/// How often a fan came up in the player's wins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FanFrequency {
    pub scorer: Scorer,
    pub id: u8,
    pub name: String,
    pub en: String,
    pub points: u32,
    /// Wins that had it.
    pub wins: u64,
    /// Times it was counted over those wins (a fan may count more than once in one hand).
    pub times: u64,
}

/// The player's statistics over one rule set, or over the whole history.
///
/// Counts (hands, wins, deal-ins, draws, points) add up over every rule set. Fan figures
/// (average, biggest, top fans) mean something only within one way of scoring: over the whole
/// history they are given when every rule set in it scores with the same scorer, and are
/// empty otherwise — ask [`HistoryStore::stats_for`] for each rule set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryStats {
    /// The rule set these statistics are for; `None` for the whole history.
    pub rules: Option<String>,
    /// The scorer of every win counted in the fan figures; `None` with no hands, or when the
    /// history mixes scorers (and the fan figures are left out).
    pub scorer: Option<Scorer>,
    pub hands: u64,
    pub wins: u64,
    /// Hands where the player discarded the winning tile (or had a kong robbed).
    pub deal_ins: u64,
    /// The player's wins on a self-drawn tile.
    pub self_drawn_wins: u64,
    /// Hands that ended with the wall exhausted (荒牌).
    pub draws: u64,
    /// wins / hands (0 with no hands).
    pub win_rate: f64,
    /// deal_ins / hands (0 with no hands).
    pub deal_in_rate: f64,
    /// self_drawn_wins / wins — the share of wins that were self-drawn (0 with no wins).
    pub self_draw_rate: f64,
    /// The average fan total of the player's wins (Hangzhou: the hand multiplier); `None` with
    /// no wins.
    pub average_win_fan: Option<f64>,
    pub biggest: Option<BiggestHand>,
    /// The fans most often in the player's wins, most frequent first.
    pub top_fans: Vec<FanFrequency>,
    /// The player's points over every hand.
    pub total_points: i64,
}

/// The history: one SQLite database file (or an in-memory one for tests).
///
/// `Send`, not `Sync`: share it behind a `Mutex`. Several processes may open the same file;
/// writes wait up to a few seconds for each other.
pub struct HistoryStore {
    conn: Connection,
    /// `None` in memory.
    path: Option<PathBuf>,
}

// The FFI layer keeps a store in a Mutex shared between threads.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<HistoryStore>();
};

impl std::fmt::Debug for HistoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistoryStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn corrupt(m: String) -> HistoryError {
    HistoryError::Corrupt(m)
}

fn check_seat(seat: Seat) -> Result<(), HistoryError> {
    if seat.0 > 3 {
        return Err(HistoryError::Invalid(format!(
            "seat {} does not exist (seats are 0–3)",
            seat.0
        )));
    }
    Ok(())
}

fn seat_of(v: i64) -> Result<Seat, String> {
    match u8::try_from(v) {
        Ok(s) if s <= 3 => Ok(Seat(s)),
        _ => Err(format!("seat {v} does not exist")),
    }
}

#[cfg(test)]
mod tests;
