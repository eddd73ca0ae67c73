//! `GameSession`: a hand or a match against bots, driven by the shell.

use std::sync::{Arc, Mutex, MutexGuard};

use tongcheng_core::bot::{Bot, Level, LevelBot};
use tongcheng_core::game::{Game, Match};
use tongcheng_core::hint::hint;
use tongcheng_core::record::HandRecord;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::seat::Seat;
use tongcheng_core::wall::Seed;

use crate::TongchengError;
use crate::model::{ActionModel, EventModel, HintModel, ResultModel, TableModel, table};

/// The human always sits in seat 0 (East in the first hand).
const YOU: Seat = Seat(0);

/// How to start a session.
#[derive(Clone, Debug, uniffi::Record)]
pub struct SessionConfig {
    /// Rule set preset, e.g. "guobiao".
    pub rules: String,
    /// Bot level: "easy", "normal" or "hard".
    pub level: String,
    /// Seed for a reproducible game; `None` picks one from the clock.
    pub seed: Option<u64>,
    /// A whole match (16 hands under guobiao) rather than a single hand.
    pub full_match: bool,
}

/// Receives every change of the table. Implemented by the shells (Kotlin, Swift).
///
/// Called synchronously on the thread that called `act`, `advance` or `next_hand`, after the
/// session's lock is released — so a listener may call back into the session. Shells that
/// call from a background thread must hop to the UI thread themselves.
#[uniffi::export(with_foreign)]
pub trait TableListener: Send + Sync {
    /// One event, as the human's seat may see it.
    fn on_event(&self, event: EventModel);
    /// The table after a batch of events.
    fn on_table(&self, table: TableModel);
}

struct State {
    play: Match,
    single_hand: bool,
    bots: [LevelBot; 4],
    /// Events already sent to the listener in the current hand.
    sent: usize,
}

/// A game in progress against three bots. Thread-safe; Kotlin must `close()` it (or use
/// `use {}`) to free the native memory.
#[derive(uniffi::Object)]
pub struct GameSession {
    state: Mutex<State>,
    listener: Mutex<Option<Arc<dyn TableListener>>>,
}

impl GameSession {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a previous call panicked midway; the state itself is
        // still consistent because the engine never leaves a half-applied action.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn model(s: &State) -> TableModel {
        let g = s.play.game();
        let scores = s.play.scores();
        // Scores are per player; players sit in seats (no rotation in a session).
        let by_seat: [i32; 4] = std::array::from_fn(|i| scores[s.play.player_at(Seat(i as u8))]);
        let finished_match = s.play.is_finished() || (s.single_hand && g.is_finished());
        table(
            &g.view(YOU),
            by_seat,
            s.play.hand_index() + 1,
            g.result(),
            finished_match,
        )
    }

    /// Takes the events not yet sent, as the human sees them.
    fn drain_events(s: &mut State) -> Vec<EventModel> {
        let events = s.play.game().events();
        let out = events[s.sent..]
            .iter()
            .map(|e| EventModel::of(&e.for_seat(YOU)))
            .collect();
        s.sent = events.len();
        out
    }

    fn notify(&self, events: Vec<EventModel>, table: &TableModel) {
        let listener = self
            .listener
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some(l) = listener {
            for e in events {
                l.on_event(e);
            }
            l.on_table(table.clone());
        }
    }
}

#[uniffi::export]
impl GameSession {
    /// Starts a hand (or a match) against three bots of the given level.
    #[uniffi::constructor]
    pub fn new(config: SessionConfig) -> Result<Arc<GameSession>, TongchengError> {
        let rules = RuleSet::preset(&config.rules).ok_or_else(|| TongchengError::InvalidInput {
            message: format!(
                "unknown rules '{}' (known: {})",
                config.rules,
                RuleSet::preset_names().join(", ")
            ),
        })?;
        let level: Level = config
            .level
            .parse()
            .map_err(|message| TongchengError::InvalidInput { message })?;
        let seed = config.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        });
        let bots = std::array::from_fn(|i| LevelBot::new(level, seed.wrapping_add(i as u64 + 1)));
        let play = Match::new(rules, Seed::from_u64(seed));
        Ok(Arc::new(GameSession {
            state: Mutex::new(State {
                play,
                single_hand: !config.full_match,
                bots,
                sent: 0,
            }),
            listener: Mutex::new(None),
        }))
    }

    /// Registers the listener that hears every change (replaces any previous one).
    pub fn set_listener(&self, listener: Arc<dyn TableListener>) {
        *self.listener.lock().unwrap_or_else(|p| p.into_inner()) = Some(listener);
    }

    /// The table as the human sees it now.
    pub fn table(&self) -> TableModel {
        GameSession::model(&self.lock())
    }

    /// The human's action. An action that is not legal now is an `IllegalAction` error and
    /// changes nothing. Read the new table with `table()` (or from the listener, or from the
    /// `advance()` that usually follows).
    pub fn act(&self, action: ActionModel) -> Result<(), TongchengError> {
        let action = action.to_core()?;
        let (events, model) = {
            let mut s = self.lock();
            s.play
                .apply(YOU, action)
                .map_err(|e| TongchengError::IllegalAction {
                    message: e.to_string(),
                })?;
            (GameSession::drain_events(&mut s), GameSession::model(&s))
        };
        self.notify(events, &model);
        Ok(())
    }

    /// Lets the bots play until the human must decide or the hand is over.
    pub fn advance(&self) -> TableModel {
        let (events, model) = {
            let mut s = self.lock();
            loop {
                let g = s.play.game();
                if g.is_finished() {
                    break;
                }
                let pending: Vec<Seat> = g
                    .pending_seats()
                    .into_iter()
                    .filter(|&p| p != YOU)
                    .collect();
                if pending.is_empty() {
                    break;
                }
                for seat in pending {
                    let view = s.play.game().view(seat);
                    let action = s.bots[seat.index()].choose(&view);
                    if s.play.apply(seat, action).is_err() {
                        // A bot only picks from the legal actions; should that ever fail, it
                        // falls back to the decision's safe default rather than stall.
                        let fallback = view
                            .decision
                            .map(|d| d.on_timeout)
                            .unwrap_or(tongcheng_core::game::Action::Pass);
                        let _ = s.play.apply(seat, fallback);
                    }
                }
            }
            (GameSession::drain_events(&mut s), GameSession::model(&s))
        };
        self.notify(events, &model);
        model
    }

    /// Advice for the human's pending decision, if any.
    pub fn hint(&self) -> Option<HintModel> {
        let s = self.lock();
        hint(&s.play.game().view(YOU)).map(|h| HintModel::of(&h))
    }

    /// The finished hand's result, with its fan breakdown.
    pub fn result(&self) -> Option<ResultModel> {
        self.lock().play.game().result().map(ResultModel::of)
    }

    /// The finished hand's record as JSON (for the history store), `None` while playing.
    pub fn record_json(&self) -> Option<String> {
        HandRecord::of(self.lock().play.game()).map(|r| r.to_json())
    }

    /// Starts the next hand of a match. False when the hand is still being played, the
    /// session is a single hand, or the match is over.
    pub fn next_hand(&self) -> bool {
        let (moved, events, model) = {
            let mut s = self.lock();
            if s.single_hand {
                return false;
            }
            let moved = s.play.next_hand();
            if moved {
                s.sent = 0;
            }
            (
                moved,
                GameSession::drain_events(&mut s),
                GameSession::model(&s),
            )
        };
        if moved {
            self.notify(events, &model);
        }
        moved
    }

    /// Running scores per seat.
    pub fn scores(&self) -> Vec<i32> {
        self.lock().play.scores().to_vec()
    }
}

/// Replays a hand record (JSON) and checks it; the events of the replay as text lines.
#[uniffi::export]
pub fn verify_record(record_json: String) -> Result<Vec<String>, TongchengError> {
    let record = HandRecord::from_json(&record_json).map_err(|e| TongchengError::InvalidInput {
        message: e.to_string(),
    })?;
    let game: Game =
        tongcheng_core::record::replay(&record).map_err(|e| TongchengError::InvalidInput {
            message: e.to_string(),
        })?;
    Ok(game
        .events()
        .iter()
        .map(|e| EventModel::of(e).text)
        .collect())
}
