//! My hands (我的牌局): what the list and the statistics show of each kept hand, and the
//! shelf a face without a database keeps them on.
//!
//! The model asks for hands with effects ([`crate::Effect::LoadHands`], `LoadStats`,
//! `LoadRecord`) and reads the answers as events. A phone answers from its history database;
//! the browser and the journeys answer from a [`Shelf`], the same queries over a list in
//! memory that the face keeps as JSON.

use serde::{Deserialize, Serialize};
use tongcheng_core::Seat;
use tongcheng_core::record::HandRecord;

use crate::model::{Effect, Event};
use crate::sync::RefusedHand;

/// One kept hand as the list shows it: who won, how, the player's points and fans.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandSummary {
    /// The face's id for the hand (its history row).
    pub id: u64,
    /// When it was played, Unix seconds.
    pub played_at: i64,
    /// The rule set's name.
    pub rules: String,
    /// The player's seat.
    pub seat: u8,
    /// Who won; `None` for a drawn hand (荒牌).
    pub winner: Option<u8>,
    pub won: bool,
    /// The player discarded the winning tile (点炮).
    pub dealt_in: bool,
    pub self_drawn: bool,
    /// The player's score change.
    pub points: i32,
    /// The win's fans, biggest first, in both languages: the list shows the player's.
    pub fans: Vec<FanName>,
    pub fan_total: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FanName {
    pub zh: String,
    pub en: String,
}

impl HandSummary {
    /// The summary of a finished hand the player sat in `seat` of.
    pub fn of(id: u64, played_at: i64, record: &HandRecord, seat: u8) -> HandSummary {
        let r = &record.result;
        let me = Seat(seat);
        let won = r.winner == Some(me) || r.winners.contains(&me);
        HandSummary {
            id,
            played_at,
            rules: record.setup.rules.name.clone(),
            seat,
            winner: r.winner.map(|s| s.0),
            won,
            dealt_in: r.winner.is_some() && r.discarder == Some(me),
            self_drawn: r.winner.is_some() && r.self_drawn,
            points: r.deltas.get(me.index()).copied().unwrap_or(0),
            fans: r
                .score
                .iter()
                .flat_map(|s| &s.fans)
                .map(|f| FanName {
                    zh: f.name().to_string(),
                    en: f.en().to_string(),
                })
                .collect(),
            fan_total: r.score.as_ref().map(|s| s.total),
        }
    }
}

/// The player's statistics over a rule set's hands (or all of them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandStats {
    pub hands: u64,
    pub wins: u64,
    pub self_drawn_wins: u64,
    pub deal_ins: u64,
    pub draws: u64,
    pub points: i64,
}

impl HandStats {
    pub fn add(&mut self, h: &HandSummary) {
        self.hands += 1;
        self.wins += u64::from(h.won);
        self.self_drawn_wins += u64::from(h.won && h.self_drawn);
        self.deal_ins += u64::from(h.dealt_in);
        self.draws += u64::from(h.winner.is_none());
        self.points += i64::from(h.points);
    }
}

/// A hand kept on a [`Shelf`]: its record and where the player sat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptHand {
    /// From 1; 0 (or absent) in text kept before hands had ids: numbered on reading.
    #[serde(default)]
    pub id: u64,
    pub played_at: i64,
    pub seat: u8,
    pub record: HandRecord,
    /// 同步: the server has it (taken, held already, or brought down from it).
    #[serde(default, skip_serializing_if = "is_false")]
    pub uploaded: bool,
    /// 同步: the server refused it, in its words (not sent again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !b
}

/// The shelf's kept text since 同步: its hands and where the last pull stopped.
#[derive(Serialize, Deserialize)]
struct Kept {
    hands: Vec<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cursor: Option<String>,
}

/// Kept hands in memory, answering the model's history effects: for faces without a
/// database (the browser keeps the shelf's JSON).
#[derive(Clone, Debug, Default)]
pub struct Shelf {
    hands: Vec<KeptHand>,
    summaries: Vec<HandSummary>,
    /// Entries of the kept text that did not read: left out, never rewritten away.
    unreadable: usize,
    /// 同步: the server's cursor after the last page pulled.
    pub(crate) cursor: Option<String>,
}

impl Shelf {
    /// The shelf from its kept JSON (`{"hands": [KeptHand…], "cursor": …}`, or the bare
    /// array pages kept before 同步); entries that do not read are
    /// counted and skipped, so one damaged hand does not hide the others.
    pub fn from_json(text: &str) -> Shelf {
        let mut shelf = Shelf::default();
        let kept = serde_json::from_str::<Kept>(text).or_else(|_| {
            serde_json::from_str::<Vec<serde_json::Value>>(text).map(|hands| Kept {
                hands,
                cursor: None,
            })
        });
        let Ok(Kept {
            hands: items,
            cursor,
        }) = kept
        else {
            shelf.unreadable = usize::from(!text.trim().is_empty());
            return shelf;
        };
        shelf.cursor = cursor;
        let mut unnumbered = Vec::new();
        for item in items {
            match serde_json::from_value::<KeptHand>(item) {
                // Pages before the shelf kept hands without ids, played_at in milliseconds.
                Ok(mut h) if h.id == 0 => {
                    if h.played_at > 100_000_000_000 {
                        h.played_at /= 1000;
                    }
                    unnumbered.push(h);
                }
                Ok(h) => shelf.push(h),
                Err(_) => shelf.unreadable += 1,
            }
        }
        for h in unnumbered {
            shelf.keep(h.record, h.seat, h.played_at);
        }
        shelf
    }

    /// Entries of the kept text that did not read.
    pub fn unreadable(&self) -> usize {
        self.unreadable
    }

    pub fn len(&self) -> usize {
        self.hands.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hands.is_empty()
    }

    /// Keeps a finished hand; its id.
    pub fn keep(&mut self, record: HandRecord, seat: u8, played_at: i64) -> u64 {
        let id = self.hands.iter().map(|h| h.id).max().unwrap_or(0) + 1;
        self.push(KeptHand {
            id,
            played_at,
            seat,
            record,
            uploaded: false,
            refused: None,
        });
        id
    }

    pub(crate) fn hands(&self) -> &[KeptHand] {
        &self.hands
    }

    pub(crate) fn hands_mut(&mut self) -> &mut [KeptHand] {
        &mut self.hands
    }

    pub(crate) fn push(&mut self, h: KeptHand) {
        self.summaries
            .push(HandSummary::of(h.id, h.played_at, &h.record, h.seat));
        self.hands.push(h);
    }

    /// Every kept hand and the pull's cursor as JSON, for the face to keep (entries that did
    /// not read are left out).
    pub fn to_json(&self) -> String {
        let hands = self
            .hands
            .iter()
            .filter_map(|h| serde_json::to_value(h).ok())
            .collect();
        let kept = Kept {
            hands,
            cursor: self.cursor.clone(),
        };
        serde_json::to_string(&kept).unwrap_or_else(|_| "[]".into())
    }

    /// The answer to a history effect; `None` for the other effects.
    pub fn answer(&self, effect: &Effect) -> Option<Event> {
        match effect {
            Effect::LoadHands { offset, limit } => {
                // Newest first, as every history lists.
                let hands = self
                    .summaries
                    .iter()
                    .rev()
                    .skip(*offset as usize)
                    .take(*limit as usize)
                    .cloned()
                    .collect();
                Some(Event::HandsLoaded {
                    offset: *offset,
                    total: self.summaries.len() as u32,
                    hands,
                })
            }
            Effect::LoadStats { rules } => {
                let mut stats = HandStats::default();
                let mut played: Vec<(String, usize)> = Vec::new();
                for h in &self.summaries {
                    match played.iter_mut().find(|(r, _)| *r == h.rules) {
                        Some((_, n)) => *n += 1,
                        None => played.push((h.rules.clone(), 1)),
                    }
                    if rules.as_ref().is_none_or(|r| *r == h.rules) {
                        stats.add(h);
                    }
                }
                // Most played first, as the phones' history orders them.
                played.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                Some(Event::StatsLoaded {
                    rules: rules.clone(),
                    stats,
                    rules_played: played.into_iter().map(|(r, _)| r).collect(),
                })
            }
            Effect::LoadRecord { id } => {
                let kept = self.hands.iter().find(|h| h.id == *id);
                Some(Event::RecordLoaded {
                    id: *id,
                    seat: kept.map_or(0, |h| h.seat),
                    record: kept.map(|h| Box::new(h.record.clone())),
                })
            }
            Effect::LoadSyncStatus => Some(Event::SyncStatus {
                pending: self
                    .hands
                    .iter()
                    .filter(|h| !h.uploaded && h.refused.is_none())
                    .count() as u64,
                refused: self
                    .hands
                    .iter()
                    .filter_map(|h| {
                        Some(RefusedHand {
                            record_id: h.record.id.to_string(),
                            reason: h.refused.clone()?,
                        })
                    })
                    .collect(),
            }),
            _ => None,
        }
    }
}
