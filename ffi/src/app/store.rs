//! The app's files on a phone: the history database answers the model's history effects (the
//! same questions the browser's shelf answers from memory), and the kept match and settings
//! are small files written whole (a new file renamed over the old, so a crash keeps one).

use std::path::{Path, PathBuf};

use tongcheng_app::hands::{FanName, HandStats, HandSummary};
use tongcheng_app::{Effect, Event, RefusedHand, Settings};
use tongcheng_core::history::{HandEntry, HandId, HistoryStore};
use tongcheng_core::record::HandRecord;
use tongcheng_core::seat::Seat;

use crate::TongchengError;

/// The history database's name in the app's folder (the one `tongcheng history` reads).
pub const HISTORY: &str = "history.db";
const MATCH: &str = "match.json";
const SETTINGS: &str = "settings.json";

pub(super) struct Files {
    pub(super) dir: PathBuf,
    history: HistoryStore,
    /// The history file found could not be used: it was renamed aside and a new one begun.
    pub(super) set_aside: Option<PathBuf>,
}

impl Files {
    /// The files in `dir` (made when missing). A history that cannot be used is renamed
    /// aside (`set_aside`); one that cannot be opened at all (a read-only folder) is an error.
    pub(super) fn open(dir: &str) -> Result<Files, TongchengError> {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).map_err(|e| TongchengError::Storage {
            detail: format!("{}: {e}", dir.display()),
        })?;
        let path = dir.join(HISTORY);
        let (history, set_aside) = match HistoryStore::open(&path) {
            Ok(h) => (h, None),
            // Not a history, damaged, or from a newer app: kept under another name (nothing
            // is deleted) and a new one begun, so the player is never locked out of the game.
            Err(e) if e.is_unusable_file() => {
                let aside = HistoryStore::move_aside(&path)?;
                (HistoryStore::open(&path)?, Some(aside))
            }
            Err(e) => return Err(e.into()),
        };
        Ok(Files {
            dir,
            history,
            set_aside,
        })
    }

    /// The kept settings; the defaults (简体中文, sound on) when none or unreadable.
    pub(super) fn settings(&self) -> Settings {
        read(&self.dir.join(SETTINGS))
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// The kept match's text, if any (the model checks it and drops one that does not read).
    pub(super) fn kept_match(&self) -> Option<String> {
        read(&self.dir.join(MATCH))
    }

    /// Performs a keeping effect; `Err` when the file could not be written (the model's state
    /// is unchanged: the next keep writes the whole again).
    pub(super) fn keep(&mut self, effect: &Effect) -> Result<bool, String> {
        match effect {
            Effect::KeepHand { record, seat } => {
                let played_at = (tongcheng_core::clock::unix_nanos() / 1_000_000_000) as i64;
                self.history
                    .add_hand(record, Seat(*seat), played_at, None)
                    .map_err(|e| e.to_string())?;
            }
            Effect::KeepMatch { saved: Some(text) } => write(&self.dir.join(MATCH), text)?,
            Effect::KeepMatch { saved: None } => match std::fs::remove_file(self.dir.join(MATCH)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.to_string()),
                _ => {}
            },
            Effect::KeepSettings { settings } => {
                let text = serde_json::to_string(settings).map_err(|e| e.to_string())?;
                write(&self.dir.join(SETTINGS), &text)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The answer to a history effect from the database; `None` for the other effects. A
    /// failing read answers as an empty page or a missing hand: the screen says so, and
    /// nothing is lost.
    pub(super) fn answer(&self, effect: &Effect) -> Option<Event> {
        let h = &self.history;
        match effect {
            Effect::LoadHands { offset, limit } => {
                let hands = h.list_hands(*offset, *limit).unwrap_or_default();
                Some(Event::HandsLoaded {
                    offset: *offset,
                    total: h.count_hands().unwrap_or(0).min(u64::from(u32::MAX)) as u32,
                    hands: hands.iter().map(summary).collect(),
                })
            }
            Effect::LoadStats { rules } => {
                let stats = h.stats_for(rules.as_deref()).ok();
                Some(Event::StatsLoaded {
                    rules: rules.clone(),
                    stats: stats.map_or_else(HandStats::default, |s| HandStats {
                        hands: s.hands,
                        wins: s.wins,
                        self_drawn_wins: s.self_drawn_wins,
                        deal_ins: s.deal_ins,
                        draws: s.draws,
                        points: s.total_points,
                    }),
                    rules_played: h.rules_played().unwrap_or_default(),
                })
            }
            Effect::LoadSyncStatus => Some(Event::SyncStatus {
                pending: h.count_pending_uploads().unwrap_or(0),
                refused: h
                    .rejected_uploads(0, 50)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|r| RefusedHand {
                        record_id: r
                            .record_id
                            .map_or_else(|| format!("#{}", r.hand.0), |id| id.to_string()),
                        reason: r.reason,
                    })
                    .collect(),
            }),
            Effect::LoadRecord { id } => {
                let id64 = i64::try_from(*id).unwrap_or(-1);
                let entry = h.get_hand(HandId(id64)).ok();
                let record: Option<HandRecord> = h.get_record(HandId(id64)).ok();
                Some(Event::RecordLoaded {
                    id: *id,
                    seat: entry.map_or(0, |e| e.seat.0),
                    record: record.map(Box::new),
                })
            }
            _ => None,
        }
    }
}

/// A stored hand as the list shows it.
fn summary(e: &HandEntry) -> HandSummary {
    HandSummary {
        id: u64::try_from(e.id.0).unwrap_or(0),
        played_at: e.played_at,
        rules: e.rules.clone(),
        seat: e.seat.0,
        winner: e.winner.map(|s| s.0),
        won: e.won,
        dealt_in: e.dealt_in,
        self_drawn: e.self_drawn,
        points: e.points,
        fans: e
            .fans
            .iter()
            .map(|f| FanName {
                zh: f.name.clone(),
                en: f.en.clone(),
            })
            .collect(),
        fan_total: e.fan_total,
    }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// Writes `text` to `path` whole: a temporary file beside it, then renamed over it.
fn write(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}
