//! `HistoryStore`: the local hand history, opened at a path the app gives.

use std::sync::{Mutex, MutexGuard};

use tongcheng_core::history::{self as core_history, HandId, HistoryError, MatchId};
use tongcheng_core::record::HandRecord;
use tongcheng_core::seat::Seat;

use crate::TongchengError;
use crate::model::EventModel;

impl From<HistoryError> for TongchengError {
    fn from(e: HistoryError) -> TongchengError {
        match e {
            HistoryError::NotFound { .. } => TongchengError::NotFound {
                message: e.to_string(),
            },
            _ => TongchengError::Storage {
                message: e.to_string(),
            },
        }
    }
}

/// A stored hand in a listing.
#[derive(Clone, Debug, PartialEq, uniffi::Record)]
pub struct HandSummaryModel {
    pub id: i64,
    pub played_at: i64,
    pub rules: String,
    pub seat: u8,
    pub winner: Option<u8>,
    pub won: bool,
    pub dealt_in: bool,
    pub self_drawn: bool,
    pub points: i32,
    pub fan_total: Option<u32>,
    /// "清龙 Pure Straight 16" style lines, biggest first.
    pub fans: Vec<String>,
}

/// The player's statistics.
#[derive(Clone, Debug, PartialEq, uniffi::Record)]
pub struct StatsModel {
    pub hands: u64,
    pub wins: u64,
    pub win_rate: f64,
    pub deal_in_rate: f64,
    pub self_draw_rate: f64,
    pub average_win_fan: Option<f64>,
    pub biggest_hand_id: Option<i64>,
    pub biggest_hand_total: Option<u32>,
    /// Most frequent fans of the player's wins, "name (times)".
    pub top_fans: Vec<String>,
    pub total_points: i64,
}

/// A stored hand replayed and verified.
#[derive(Clone, Debug, PartialEq, uniffi::Record)]
pub struct ReplayModel {
    pub id: i64,
    /// Every event, seen from `seat` (or all open when no seat was given).
    pub events: Vec<EventModel>,
    pub verified: bool,
}

/// The history database. Thread-safe (one connection behind a lock); Kotlin must `close()`.
#[derive(uniffi::Object)]
pub struct HistoryStore {
    inner: Mutex<core_history::HistoryStore>,
}

impl HistoryStore {
    fn lock(&self) -> MutexGuard<'_, core_history::HistoryStore> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn seat(n: u8) -> Result<Seat, TongchengError> {
    if n < 4 {
        Ok(Seat(n))
    } else {
        Err(TongchengError::InvalidInput {
            message: format!("seat {n} does not exist (seats are 0–3)"),
        })
    }
}

#[uniffi::export]
impl HistoryStore {
    /// Opens (or creates) the history at `path`. A corrupt file or one written by a newer app
    /// is a `Storage` error and is left untouched; see [`move_aside`].
    #[uniffi::constructor]
    pub fn open(path: String) -> Result<std::sync::Arc<HistoryStore>, TongchengError> {
        let store = core_history::HistoryStore::open(&path)?;
        Ok(std::sync::Arc::new(HistoryStore {
            inner: Mutex::new(store),
        }))
    }

    /// Saves a finished hand (the session's `record_json()`) for the player in `seat`.
    pub fn save_hand(
        &self,
        record_json: String,
        seat_index: u8,
        played_at: i64,
        match_id: Option<i64>,
    ) -> Result<i64, TongchengError> {
        let record =
            HandRecord::from_json(&record_json).map_err(|e| TongchengError::InvalidInput {
                message: e.to_string(),
            })?;
        let id =
            self.lock()
                .add_hand(&record, seat(seat_index)?, played_at, match_id.map(MatchId))?;
        Ok(id.0)
    }

    /// Starts a match record; hands saved with its id belong to it.
    pub fn start_match(
        &self,
        rules: String,
        seat_index: u8,
        started_at: i64,
    ) -> Result<i64, TongchengError> {
        Ok(self
            .lock()
            .start_match(&rules, seat(seat_index)?, started_at)?
            .0)
    }

    /// Closes a match record with the final scores per player.
    pub fn finish_match(
        &self,
        match_id: i64,
        final_scores: Vec<i32>,
        finished_at: i64,
    ) -> Result<(), TongchengError> {
        let scores: [i32; 4] =
            final_scores
                .try_into()
                .map_err(|_| TongchengError::InvalidInput {
                    message: "final scores are four numbers".into(),
                })?;
        Ok(self
            .lock()
            .finish_match(MatchId(match_id), scores, finished_at)?)
    }

    /// Recent hands, newest first.
    pub fn list_hands(
        &self,
        offset: u32,
        limit: u32,
    ) -> Result<Vec<HandSummaryModel>, TongchengError> {
        Ok(self
            .lock()
            .list_hands(offset, limit)?
            .into_iter()
            .map(|h| HandSummaryModel {
                id: h.id.0,
                played_at: h.played_at,
                rules: h.rules,
                seat: h.seat.0,
                winner: h.winner.map(|s| s.0),
                won: h.won,
                dealt_in: h.dealt_in,
                self_drawn: h.self_drawn,
                points: h.points,
                fan_total: h.fan_total,
                fans: h
                    .fans
                    .iter()
                    .map(|f| format!("{} {} {}", f.name, f.en, f.points * f.count))
                    .collect(),
            })
            .collect())
    }

    /// The player's statistics over the whole history.
    pub fn stats(&self) -> Result<StatsModel, TongchengError> {
        let s = self.lock().stats()?;
        Ok(StatsModel {
            hands: s.hands,
            wins: s.wins,
            win_rate: s.win_rate,
            deal_in_rate: s.deal_in_rate,
            self_draw_rate: s.self_draw_rate,
            average_win_fan: s.average_win_fan,
            biggest_hand_id: s.biggest.map(|b| b.id.0),
            biggest_hand_total: s.biggest.map(|b| b.total),
            top_fans: s
                .top_fans
                .iter()
                .map(|f| format!("{} {} ({})", f.name, f.en, f.times))
                .collect(),
            total_points: s.total_points,
        })
    }

    /// One hand's full record, as JSON.
    pub fn get_record(&self, id: i64) -> Result<String, TongchengError> {
        Ok(self.lock().get_record(HandId(id))?.to_json())
    }

    /// Replays a stored hand, checking it, from `seat`'s view (all hands open when `None`).
    pub fn replay(&self, id: i64, seat_index: Option<u8>) -> Result<ReplayModel, TongchengError> {
        let game = self.lock().replay(HandId(id))?;
        let viewer = seat_index.map(seat).transpose()?;
        let events = game
            .events()
            .iter()
            .map(|e| EventModel::of(&viewer.map_or_else(|| e.clone(), |v| e.for_seat(v))))
            .collect();
        Ok(ReplayModel {
            id,
            events,
            verified: true,
        })
    }
}

/// Renames an unusable history file aside (`<name>.corrupt-<time>`) so the app can start a
/// fresh one; returns the new path.
#[uniffi::export]
pub fn move_aside(path: String) -> Result<String, TongchengError> {
    let moved = core_history::HistoryStore::move_aside(&path)?;
    Ok(moved.display().to_string())
}
