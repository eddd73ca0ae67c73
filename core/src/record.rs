//! Records: the replayable account of a finished hand.
//!
//! A record holds the rules, the seed, the seats, every action in order, and what happened
//! (every event and the result). [`replay`] re-runs the actions through the engine and checks
//! that it reproduces every event and the result exactly; a record that does not is rejected
//! with the first place where they diverge. This is what makes local history, bug reports and
//! server verification trustworthy.

use serde::{Deserialize, Serialize};

use crate::game::{Action, Event, Game, HandResult, HandSetup};
use crate::seat::Seat;

/// The record format this build writes.
pub const RECORD_VERSION: u32 = 1;

/// One action as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedAction {
    pub seat: Seat,
    pub action: Action,
}

/// A finished hand, replayable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandRecord {
    pub version: u32,
    pub setup: HandSetup,
    pub actions: Vec<RecordedAction>,
    pub events: Vec<Event>,
    pub result: HandResult,
}

/// Why a record was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("record version {0} is not supported (this build reads version {RECORD_VERSION})")]
    Version(u32),
    #[error("action {index} ({seat}: {action:?}) is refused by the engine: {reason}")]
    Illegal {
        index: usize,
        seat: Seat,
        action: Action,
        reason: String,
    },
    #[error("the actions end at {0} but the hand is not over")]
    Unfinished(usize),
    #[error("the hand ended before action {0}")]
    TrailingActions(usize),
    #[error("event {index} differs: the record says {recorded}, the replay gives {replayed}")]
    EventDiffers {
        index: usize,
        recorded: String,
        replayed: String,
    },
    #[error("the record has {recorded} events, the replay {replayed}")]
    EventCount { recorded: usize, replayed: usize },
    #[error("the stated result differs from the replay's: {0}")]
    ResultDiffers(String),
    #[error("the record's setup is impossible: {0}")]
    BadSetup(String),
}

impl HandRecord {
    /// The record of a finished game; `None` while the hand is still being played.
    pub fn of(game: &Game) -> Option<HandRecord> {
        Some(HandRecord {
            version: RECORD_VERSION,
            setup: game.setup().clone(),
            actions: game
                .actions()
                .iter()
                .map(|&(seat, action)| RecordedAction { seat, action })
                .collect(),
            events: game.events().to_vec(),
            result: game.result()?.clone(),
        })
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("records serialize")
    }

    pub fn from_json(s: &str) -> Result<HandRecord, String> {
        serde_json::from_str(s).map_err(|e| format!("not a hand record: {e}"))
    }
}

/// Re-plays a record and checks it: every event and the result must come out the same.
pub fn replay(record: &HandRecord) -> Result<Game, ReplayError> {
    if record.version != RECORD_VERSION {
        return Err(ReplayError::Version(record.version));
    }
    if record.setup.dealer.0 > 3 {
        return Err(ReplayError::BadSetup(format!(
            "dealer seat {} (seats are 0–3)",
            record.setup.dealer.0
        )));
    }
    let mut game = Game::new(record.setup.clone());
    for (index, a) in record.actions.iter().enumerate() {
        if game.is_finished() {
            return Err(ReplayError::TrailingActions(index));
        }
        game.apply(a.seat, a.action)
            .map_err(|e| ReplayError::Illegal {
                index,
                seat: a.seat,
                action: a.action,
                reason: e.to_string(),
            })?;
    }
    if !game.is_finished() {
        return Err(ReplayError::Unfinished(record.actions.len()));
    }
    for (index, (r, p)) in record.events.iter().zip(game.events()).enumerate() {
        if r != p {
            return Err(ReplayError::EventDiffers {
                index,
                recorded: format!("{r:?}"),
                replayed: format!("{p:?}"),
            });
        }
    }
    if record.events.len() != game.events().len() {
        return Err(ReplayError::EventCount {
            recorded: record.events.len(),
            replayed: game.events().len(),
        });
    }
    let replayed = game.result().expect("finished");
    if *replayed != record.result {
        return Err(ReplayError::ResultDiffers(describe_difference(
            &record.result,
            replayed,
        )));
    }
    Ok(game)
}

fn describe_difference(a: &HandResult, b: &HandResult) -> String {
    if a.winner != b.winner {
        return format!("winner {:?} vs {:?}", a.winner, b.winner);
    }
    if a.deltas != b.deltas {
        return format!("score changes {:?} vs {:?}", a.deltas, b.deltas);
    }
    if a.score != b.score {
        return format!(
            "fan breakdown totals {:?} vs {:?}",
            a.score.as_ref().map(|s| s.total),
            b.score.as_ref().map(|s| s.total)
        );
    }
    "revealed hands or melds".into()
}
