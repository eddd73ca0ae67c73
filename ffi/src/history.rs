//! `HistoryStore`: the local hand history, opened at a path the app gives.

use std::sync::{Mutex, MutexGuard};

use tongcheng_client::LockExt;
use tongcheng_core::history::{self as core_history, HandId, HistoryError, MatchId};
use tongcheng_core::record::HandRecord;
use tongcheng_core::seat::Seat;

use crate::TongchengError;
use crate::model::EventModel;

impl From<HistoryError> for TongchengError {
    fn from(e: HistoryError) -> TongchengError {
        let message = e.to_string();
        match e {
            HistoryError::NotFound { .. } => TongchengError::NotFound {
                code: None,
                detail: message,
            },
            // A record handed to `save_hand` that does not verify, or a bad argument.
            HistoryError::Unverified { .. } | HistoryError::Invalid(_) => {
                TongchengError::InvalidInput { detail: message }
            }
            _ if e.is_unusable_file() => TongchengError::UnusableHistory { detail: message },
            _ => TongchengError::Storage { detail: message },
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
    /// The match the hand belongs to, if any.
    pub match_id: Option<i64>,
}

/// The player's statistics over one rule set, or over the whole history.
#[derive(Clone, Debug, PartialEq, uniffi::Record)]
pub struct StatsModel {
    /// The rule set; `None` for the whole history (whose fan figures are empty when it mixes
    /// ways of scoring: ask `statsFor` per rule set).
    pub rules: Option<String>,
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
#[derive(Debug, uniffi::Object)]
pub struct HistoryStore {
    inner: Mutex<core_history::HistoryStore>,
}

impl HistoryStore {
    /// The match row exists (a `NotFound` error otherwise).
    pub(crate) fn check_match(&self, id: i64) -> Result<(), TongchengError> {
        self.lock().get_match(MatchId(id))?;
        Ok(())
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, core_history::HistoryStore> {
        self.inner.locked()
    }
}

fn seat(n: u8) -> Result<Seat, TongchengError> {
    if n < 4 {
        Ok(Seat(n))
    } else {
        Err(TongchengError::InvalidInput {
            detail: format!("seat {n} does not exist (seats are 0–3)"),
        })
    }
}

#[uniffi::export]
impl HistoryStore {
    /// Opens (or creates) the history at `path`. A file that is not a history, a damaged one
    /// or one written by a newer app is an `UnusableHistory` error and is left untouched (see
    /// [`move_aside`]); a read-only file or directory is a `Storage` error.
    #[uniffi::constructor]
    pub fn open(path: String) -> Result<std::sync::Arc<HistoryStore>, TongchengError> {
        let store = core_history::HistoryStore::open(&path)?;
        Ok(std::sync::Arc::new(HistoryStore {
            inner: Mutex::new(store),
        }))
    }

    /// Saves a finished hand (the session's `record_json()`) for the player in `seat`. The
    /// record is replayed first: one that does not verify is an `InvalidInput` error naming
    /// what differs, and nothing is stored. Saving the same hand again returns its id.
    pub fn save_hand(
        &self,
        record_json: String,
        seat_index: u8,
        played_at: i64,
        match_id: Option<i64>,
    ) -> Result<i64, TongchengError> {
        let record =
            HandRecord::from_json(&record_json).map_err(|e| TongchengError::InvalidInput {
                detail: e.to_string(),
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
                    detail: "final scores are four numbers".into(),
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
                match_id: h.match_id.map(|m| m.0),
            })
            .collect())
    }

    /// The player's statistics over the whole history.
    pub fn stats(&self) -> Result<StatsModel, TongchengError> {
        self.stats_for(None)
    }

    /// The player's statistics over one rule set (`None`: the whole history).
    pub fn stats_for(&self, rules: Option<String>) -> Result<StatsModel, TongchengError> {
        let s = self.lock().stats_for(rules.as_deref())?;
        Ok(StatsModel {
            rules: s.rules,
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

    /// The rule sets the history has hands of, most hands first.
    pub fn rules_played(&self) -> Result<Vec<String>, TongchengError> {
        Ok(self.lock().rules_played()?)
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

#[cfg(test)]
mod tests {
    use super::*;
    use tongcheng_core::bot::play_simple_hand;
    use tongcheng_core::game::HandSetup;
    use tongcheng_core::rules::RuleSet;
    use tongcheng_core::seat::Wind;
    use tongcheng_core::wall::Seed;

    fn temp(tag: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("tongcheng-ffi-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    #[test]
    fn a_forged_record_is_invalid_input_and_nothing_is_saved() {
        let dir = temp("forged");
        let store = HistoryStore::open(dir.join("h.db").display().to_string()).unwrap();
        let g = play_simple_hand(
            HandSetup {
                rules: RuleSet::guobiao(),
                seed: Seed::from_u64(3),
                dealer: Seat(0),
                prevalent: Wind::East,
                dealer_level: 0,
            },
            3,
        );
        let mut record = HandRecord::of(&g).unwrap();
        let good = record.to_json();
        record.result.deltas[0] += 1_000_000;
        let e = store.save_hand(record.to_json(), 0, 1, None).unwrap_err();
        assert!(matches!(e, TongchengError::InvalidInput { .. }), "{e:?}");
        assert!(e.to_string().contains("nothing was stored"), "{e}");
        assert_eq!(store.stats().unwrap().hands, 0);
        let id = store.save_hand(good.clone(), 0, 1, None).unwrap();
        assert_eq!(store.save_hand(good, 0, 2, None).unwrap(), id, "saved once");
        assert_eq!(store.stats().unwrap().hands, 1);
        assert_eq!(store.rules_played().unwrap(), vec!["guobiao".to_string()]);
        assert_eq!(
            store
                .stats_for(Some("guobiao".into()))
                .unwrap()
                .rules
                .as_deref(),
            Some("guobiao")
        );
        drop(store);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_is_not_a_history_is_unusable_and_untouched() {
        let dir = temp("unusable");
        let path = dir.join("one-byte.db");
        std::fs::write(&path, b"x").unwrap();
        let Err(e) = HistoryStore::open(path.display().to_string()) else {
            panic!("a 1-byte file opened as a history");
        };
        assert!(matches!(e, TongchengError::UnusableHistory { .. }), "{e:?}");
        assert_eq!(std::fs::read(&path).unwrap(), b"x");
        let moved = move_aside(path.display().to_string()).unwrap();
        assert_eq!(std::fs::read(&moved).unwrap(), b"x");
        assert!(HistoryStore::open(path.display().to_string()).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
