//! `GameSession`: a hand or a match against bots on the core's table host, driven by the
//! shell. No game logic lives here: the core's [`Table`] runs the bots, the decision clock
//! (time limits, timeouts, 托管), the person's event cursor and the saved form; this file maps
//! it for Kotlin and Swift. The shell passes its monotonic time in (`advance`, `act`) and
//! draws the countdown the model carries.

use std::sync::{Arc, Mutex, MutexGuard};

use tongcheng_client::LockExt;
use tongcheng_core::bot::Level;
use tongcheng_core::clock::unix_secs;
use tongcheng_core::hint::hint;
use tongcheng_core::record::HandRecord;
use tongcheng_core::rules::RuleSet;
use tongcheng_core::table::{Clock, Deal, Player, SavedTable, Table, TableConfig};
use tongcheng_core::wall::Seed;

use crate::TongchengError;
use crate::history::HistoryStore;
use crate::model::{
    ActionModel, ClockShown, EventModel, HintModel, ResultModel, TableModel, table,
};

/// How to start a session.
#[derive(Clone, Debug, uniffi::Record)]
pub struct SessionConfig {
    /// Rule set preset, e.g. "guobiao".
    pub rules: String,
    /// Bot level: "easy", "normal" or "hard".
    pub level: String,
    /// Seed of the walls and the bots. The shell picks a random one for a new game and keeps
    /// it to replay or report the game (the core reads no clock and no randomness).
    pub seed: u64,
    /// A whole match (16 hands under guobiao) rather than a single hand.
    pub full_match: bool,
    /// The person's player slot (0–3); that player starts in that seat.
    #[uniffi(default = 0)]
    pub player: u8,
    /// How the person is timed: "match" (the rules' limits), "relaxed" (at least 30 s a
    /// discard and 10 s a claim) or "off".
    #[uniffi(default = "match")]
    pub clock: String,
}

/// Receives every change of the table. Implemented by the shells (Kotlin, Swift).
///
/// Called synchronously on the thread that called `act`, `advance` or `next_hand`, after the
/// session's lock is released — so a listener may call back into the session. Shells that
/// call from a background thread must hop to the UI thread themselves.
#[uniffi::export(with_foreign)]
pub trait TableListener: Send + Sync {
    /// One event, as the person's seat may see it.
    fn on_event(&self, event: EventModel);
    /// The table after a batch of events.
    fn on_table(&self, table: TableModel);
}

/// Where finished hands are saved, and the match row they belong to.
struct Saving {
    store: Arc<HistoryStore>,
    match_id: Option<i64>,
    /// The hand index last saved (so a hand is saved once however often it is looked at).
    saved: Option<u32>,
}

struct State {
    table: Table,
    /// The person's player slot.
    you: usize,
    /// The shell's time last passed in (ms on its monotonic clock).
    now_ms: u64,
    single_hand: bool,
    saving: Option<Saving>,
}

/// A game in progress against three bots. Thread-safe; Kotlin must `close()` it (or use
/// `use {}`) to free the native memory.
#[derive(uniffi::Object)]
pub struct GameSession {
    state: Mutex<State>,
    listener: Mutex<Option<Arc<dyn TableListener>>>,
}

impl std::fmt::Debug for GameSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameSession").finish_non_exhaustive()
    }
}

impl GameSession {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a previous call panicked midway; the state itself is
        // still consistent because the engine never leaves a half-applied action.
        self.state.locked()
    }

    fn model(s: &State) -> TableModel {
        let t = &s.table;
        let g = t.game();
        let scores = t.match_state().scores();
        let by_seat: [i32; 4] =
            std::array::from_fn(|i| scores[t.player_at(tongcheng_core::seat::Seat(i as u8))]);
        let finished_match = t.is_over() || (s.single_hand && g.is_finished());
        let clock = ClockShown {
            deadline_ms: t.deadline(s.you),
            remaining_ms: t.remaining_ms(s.you, s.now_ms),
            bank_ms: t.bank_ms(s.you),
            auto_play: t.auto_play(s.you),
        };
        table(
            &t.view(s.you),
            by_seat,
            t.match_state().hand_index() + 1,
            g.result(),
            finished_match,
            clock,
        )
    }

    /// Takes the events not yet sent, as the person sees them.
    fn drain_events(s: &mut State) -> Vec<EventModel> {
        let you = s.you;
        let seat = s.table.seat_of(you);
        let events = s.table.take_events(you);
        let t = &s.table;
        let name = |p| EventModel::seat_name(t.player_at(p), you);
        events
            .iter()
            .map(|e| EventModel::seen(e, Some(seat), &name))
            .collect()
    }

    /// Saves the finished hand to the attached history, once. A history error is returned
    /// (the hand stays in the session: `record_json()` still has it).
    fn save_finished(s: &mut State) -> Result<(), TongchengError> {
        // Cheap checks first: this runs after every action.
        let hand = s.table.match_state().hand_index();
        if s.saving.as_ref().is_none_or(|sv| sv.saved == Some(hand)) {
            return Ok(());
        }
        let Some(record) = s.table.record() else {
            return Ok(());
        };
        let seat = s.table.seat_of(s.you).0;
        let rules = s.table.rules().name.clone();
        let Some(saving) = s.saving.as_mut() else {
            return Ok(());
        };
        let now = unix_secs();
        let match_id = match saving.match_id {
            Some(m) => m,
            None => {
                let m = saving.store.start_match(rules, s.you as u8, now)?;
                saving.match_id = Some(m);
                m
            }
        };
        saving
            .store
            .save_hand(record.to_json(), seat, now, Some(match_id))?;
        saving.saved = Some(hand);
        Ok(())
    }

    /// Closes the match row when the match is over.
    fn finish_match(s: &mut State) -> Result<(), TongchengError> {
        let over = s.table.is_over() || (s.single_hand && s.table.game().is_finished());
        let scores = s.table.match_state().scores().to_vec();
        if let Some(Saving {
            store,
            match_id: Some(m),
            ..
        }) = &s.saving
            && over
        {
            store.finish_match(*m, scores, unix_secs())?;
        }
        Ok(())
    }

    /// After any change: save a finished hand, then hand the events and the table over.
    /// After the table moved: saves a finished hand, tells the listener, and returns the new
    /// table model. Models and event texts are built only for a listener or a caller that
    /// reads them (`act` does not: the shell reads `table()` or listens).
    fn changed(
        &self,
        mut s: MutexGuard<'_, State>,
        want_model: bool,
    ) -> Result<Option<TableModel>, TongchengError> {
        let saved = GameSession::save_finished(&mut s);
        let listener = self.listener.locked().clone();
        let Some(l) = listener else {
            // Nobody listens: the events are only marked as taken.
            let you = s.you;
            s.table.skip_events(you);
            let model = want_model.then(|| GameSession::model(&s));
            return saved.map(|()| model);
        };
        let events = GameSession::drain_events(&mut s);
        let model = GameSession::model(&s);
        drop(s);
        for e in events {
            l.on_event(e);
        }
        l.on_table(model.clone());
        saved.map(|()| Some(model))
    }
}

#[uniffi::export]
impl GameSession {
    /// Starts a hand (or a match) against three bots of the given level.
    #[uniffi::constructor]
    pub fn new(config: SessionConfig) -> Result<Arc<GameSession>, TongchengError> {
        let rules = RuleSet::preset(&config.rules).ok_or_else(|| TongchengError::InvalidInput {
            detail: format!(
                "unknown rules '{}' (known: {})",
                config.rules,
                RuleSet::preset_names().join(", ")
            ),
        })?;
        let level: Level = config
            .level
            .parse()
            .map_err(|detail| TongchengError::InvalidInput { detail })?;
        let clock: Clock = config
            .clock
            .parse()
            .map_err(|detail| TongchengError::InvalidInput { detail })?;
        let you = usize::from(config.player);
        if you > 3 {
            return Err(TongchengError::InvalidInput {
                detail: format!("player {you} does not exist (players are 0–3)"),
            });
        }
        let mut players = [Player::Bot(level); 4];
        players[you] = Player::Local;
        let deal = if config.full_match {
            Deal::Match {
                rules,
                seed: Seed::from_u64(config.seed),
            }
        } else {
            Deal::Hand(tongcheng_core::game::HandSetup {
                rules,
                seed: Seed::from_u64(config.seed),
                dealer: tongcheng_core::seat::Seat(0),
                prevalent: tongcheng_core::seat::Wind::East,
                dealer_level: 0,
            })
        };
        let table = Table::new(TableConfig {
            deal,
            players,
            bot_seed: config.seed,
            clock,
        });
        Ok(Arc::new(GameSession {
            state: Mutex::new(State {
                table,
                you,
                now_ms: 0,
                single_hand: !config.full_match,
                saving: None,
            }),
            listener: Mutex::new(None),
        }))
    }

    /// Rebuilds a session from [`GameSession::saved_json`] — after the phone's OS ended the
    /// app mid-match, say. A save that does not parse, names rules this build refuses, or
    /// does not replay is an `InvalidInput` error. Attach the history again with `saveTo`
    /// (or `continueSavingTo` with the match id the shell kept).
    #[uniffi::constructor]
    pub fn resume(saved_json: String) -> Result<Arc<GameSession>, TongchengError> {
        let invalid = |e: &dyn std::fmt::Display| TongchengError::InvalidInput {
            detail: format!("the saved game cannot be resumed: {e}"),
        };
        let saved = SavedTable::from_json(&saved_json).map_err(|e| invalid(&e))?;
        let table = Table::resume(&saved).map_err(|e| invalid(&e))?;
        let people: Vec<usize> = (0..4).filter(|&p| table.player(p).is_person()).collect();
        let [you] = people[..] else {
            return Err(invalid(&format!(
                "a phone session has one person at the table, this save has {}",
                people.len()
            )));
        };
        let single_hand = matches!(table.config().deal, Deal::Hand(_));
        Ok(Arc::new(GameSession {
            state: Mutex::new(State {
                table,
                you,
                now_ms: 0,
                single_hand,
                saving: None,
            }),
            listener: Mutex::new(None),
        }))
    }

    /// Registers the listener that hears every change (replaces any previous one).
    pub fn set_listener(&self, listener: Arc<dyn TableListener>) {
        *self.listener.locked() = Some(listener);
    }

    /// Saves every hand finished from now on to `store` (verified first), under one match
    /// row, closed with the final scores when the match ends.
    pub fn save_to(&self, store: Arc<HistoryStore>) -> Result<(), TongchengError> {
        let mut s = self.lock();
        s.saving = Some(Saving {
            store,
            match_id: None,
            saved: None,
        });
        GameSession::save_finished(&mut s)
    }

    /// Like `saveTo`, under a match row already in `store` (the `historyMatchId` of the session
    /// this one was resumed from). A hand already stored is not stored twice.
    pub fn continue_saving_to(
        &self,
        store: Arc<HistoryStore>,
        match_id: i64,
    ) -> Result<(), TongchengError> {
        store.check_match(match_id)?;
        let mut s = self.lock();
        s.saving = Some(Saving {
            store,
            match_id: Some(match_id),
            saved: None,
        });
        GameSession::save_finished(&mut s)
    }

    /// The history's match row this session's hands are saved under, once one is saved.
    pub fn history_match_id(&self) -> Option<i64> {
        self.lock().saving.as_ref().and_then(|s| s.match_id)
    }

    /// The table as the person sees it now (the time left as of the time last passed in).
    pub fn table(&self) -> TableModel {
        GameSession::model(&self.lock())
    }

    /// The person's action at `now_ms` (the shell's monotonic clock, in ms: the time over the
    /// decision's limit comes out of the bank). An action that is not legal now is an
    /// `IllegalAction` error and changes nothing. Read the new table with `table()` (or from
    /// the listener, or from the `advance()` that usually follows).
    pub fn act(&self, action: ActionModel, now_ms: u64) -> Result<(), TongchengError> {
        let action = action.to_core()?;
        let mut s = self.lock();
        let you = s.you;
        s.table
            .act(you, action, now_ms)
            .map_err(|e| TongchengError::IllegalAction {
                detail: e.to_string(),
            })?;
        s.now_ms = now_ms;
        self.changed(s, false).map(|_| ())
    }

    /// Plays everything due at `now_ms` (the shell's monotonic clock, in ms): the bots, the
    /// stand-in of a seat on 托管, and the person's timeout once the clock has run out — until
    /// the person must decide or the hand is over. Shells call it after every action and
    /// while a decision is timed (each second, for the countdown). A finished hand is saved
    /// to the attached history (a history error is raised after the table moved).
    pub fn advance(&self, now_ms: u64) -> Result<TableModel, TongchengError> {
        let mut s = self.lock();
        s.now_ms = now_ms;
        s.table.run(now_ms);
        match self.changed(s, true)? {
            Some(model) => Ok(model),
            None => Ok(self.table()),
        }
    }

    /// Puts the person's seat on 托管 (it plays itself) or takes it back; true when that
    /// changed. Call `advance` after.
    pub fn set_auto_play(&self, on: bool) -> bool {
        let mut s = self.lock();
        let you = s.you;
        s.table.set_auto_play(you, on)
    }

    /// Advice for the person's pending decision, if any.
    pub fn hint(&self) -> Option<HintModel> {
        let s = self.lock();
        hint(&s.table.view(s.you)).map(|h| HintModel::of(&h))
    }

    /// The finished hand's result, with its fan breakdown.
    pub fn result(&self) -> Option<ResultModel> {
        self.lock().table.game().result().map(ResultModel::of)
    }

    /// The finished hand's record as JSON (for the history store), `None` while playing.
    pub fn record_json(&self) -> Option<String> {
        self.lock().table.record().map(|r| r.to_json())
    }

    /// The whole session saved (JSON): `resume` rebuilds it exactly.
    pub fn saved_json(&self) -> String {
        self.lock().table.saved().to_json()
    }

    /// Starts the next hand of a match. False when the hand is still being played, the
    /// session is a single hand, or the match is over (the match row is then closed).
    pub fn next_hand(&self) -> Result<bool, TongchengError> {
        let mut s = self.lock();
        if s.single_hand {
            GameSession::finish_match(&mut s)?;
            return Ok(false);
        }
        let moved = s.table.next_hand();
        if !moved {
            GameSession::finish_match(&mut s)?;
            return Ok(false);
        }
        self.changed(s, false).map(|_| true)
    }

    /// Running scores per seat.
    pub fn scores(&self) -> Vec<i32> {
        self.lock().table.match_state().scores().to_vec()
    }
}

/// Replays a hand record (JSON) and checks it against the presets; the events of the replay
/// as text lines.
#[uniffi::export]
pub fn verify_record(record_json: String) -> Result<Vec<String>, TongchengError> {
    let record = HandRecord::from_json(&record_json).map_err(|e| TongchengError::InvalidInput {
        detail: e.to_string(),
    })?;
    let game =
        tongcheng_core::record::replay(&record).map_err(|e| TongchengError::InvalidInput {
            detail: e.to_string(),
        })?;
    Ok(game
        .events()
        .iter()
        .map(|e| EventModel::of(e).text)
        .collect())
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
