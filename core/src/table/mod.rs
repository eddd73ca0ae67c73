//! Hosting a match: the one loop that runs a table for any mix of bots, local and remote
//! players.
//!
//! The terminal game, the phone session, the bot arena and the engine soak all drive a
//! [`Table`], and the server will too. The table owns the [`Match`], a controller per player
//! ([`Player`]), a cursor per player over that seat's events, the deadlines of people's
//! decisions and their timeout actions, and the saved form of a match ([`SavedTable`]).
//!
//! The host calls [`Table::step`] with the time now (milliseconds on any clock it likes; the
//! core reads none): each call plays one bot decision, or one timeout, or says the table is
//! waiting for people, or that the hand is over. People's answers go in with [`Table::act`].
//!
//! ```
//! use tongcheng_core::table::{Player, Step, Table, TableConfig};
//! use tongcheng_core::bot::Level;
//!
//! let mut t = Table::new(TableConfig::match_against_bots(Level::Easy, 7));
//! loop {
//!     match t.step(0) {
//!         Step::Acted { .. } => {}
//!         // The person in player slot 0 plays whatever the timeout would.
//!         Step::Waiting { .. } => {
//!             let d = t.decision(0).unwrap();
//!             t.act(0, d.on_timeout).unwrap();
//!         }
//!         Step::HandOver => break,
//!     }
//! }
//! assert!(t.record().is_some());
//! ```

mod saved;

pub use saved::{SAVED_TABLE_VERSION, SavedTable, TableError};

use serde::{Deserialize, Serialize};

use crate::bot::{Bot, Level, LevelBot, SimplePlayer};
use crate::game::{
    Action, Decision, Event, Game, GameError, HandSetup, Match, PiaoError, SeatView,
};
use crate::record::{HandRecord, RecordedAction};
use crate::rules::{Piao, RuleSet};
use crate::seat::Seat;
use crate::wall::Seed;

/// Who plays a player slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Player {
    /// A person at this device: the table waits for them, up to the time limit.
    Local,
    /// A person elsewhere (online): waited for like a local one.
    Remote,
    /// A bot of this level.
    Bot(Level),
    /// The random player of the engine soak (wins when it may, else any legal action).
    Random,
}

impl Player {
    /// A person, whom the table waits for.
    pub fn is_person(self) -> bool {
        matches!(self, Player::Local | Player::Remote)
    }

    fn bot(self, seed: u64) -> Option<Box<dyn Bot>> {
        match self {
            Player::Bot(level) => Some(Box::new(LevelBot::new(level, seed))),
            Player::Random => Some(Box::new(SimplePlayer::new(seed))),
            Player::Local | Player::Remote => None,
        }
    }
}

/// How people's decisions are timed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// The rule set's limits (online play, and offline "match" timing).
    #[default]
    Rules,
    /// Offline and relaxed: every limit four times as long, so a claim offer can be read.
    Relaxed,
    /// No limits: the table waits for people as long as they like.
    Off,
}

impl Clock {
    /// Milliseconds a person has for a decision whose rule-set limit is `secs`.
    pub fn limit_ms(self, secs: u32) -> Option<u64> {
        match self {
            Clock::Rules => Some(u64::from(secs) * 1000),
            Clock::Relaxed => Some(u64::from(secs) * 4000),
            Clock::Off => None,
        }
    }
}

/// What is dealt: a whole match, or one hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Deal {
    /// A match under `rules`; hand k's wall comes from `seed` (see [`Match`]).
    Match { rules: RuleSet, seed: Seed },
    /// One hand dealt from this setup.
    Hand(HandSetup),
}

/// Everything that fixes a table before anyone acts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableConfig {
    pub deal: Deal,
    /// Who plays each player slot (player p starts in seat p).
    pub players: [Player; 4],
    /// Seeds the bots, with the hand number and the player ([`bot_seed`]).
    pub bot_seed: u64,
    #[serde(default)]
    pub clock: Clock,
}

impl TableConfig {
    /// A match under the default rules with a person in player slot 0 and three bots, the
    /// walls and the bots both from `seed`.
    pub fn match_against_bots(level: Level, seed: u64) -> TableConfig {
        TableConfig::person_and_bots(RuleSet::default(), level, seed)
    }

    /// A match under `rules`: a person in slot 0, three bots of `level`, all from `seed`.
    pub fn person_and_bots(rules: RuleSet, level: Level, seed: u64) -> TableConfig {
        TableConfig {
            deal: Deal::Match {
                rules,
                seed: Seed::from_u64(seed),
            },
            players: [
                Player::Local,
                Player::Bot(level),
                Player::Bot(level),
                Player::Bot(level),
            ],
            bot_seed: seed,
            clock: Clock::Rules,
        }
    }

    pub fn rules(&self) -> &RuleSet {
        match &self.deal {
            Deal::Match { rules, .. } => rules,
            Deal::Hand(setup) => &setup.rules,
        }
    }
}

/// Bot seeds come from the table's bot seed, the hand and the player, so a match replays
/// exactly and a resumed match gives each bot the dice it would have had (splitmix64).
pub fn bot_seed(seed: u64, hand: u32, player: usize) -> u64 {
    let mut z = seed.wrapping_add(
        0x9E37_79B9_7F4A_7C15u64.wrapping_mul(u64::from(hand) * 4 + player as u64 + 1),
    );
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What one [`Table::step`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `seat` acted (already applied): a bot's choice, or a person's timeout action.
    /// `visible` when it changed the table (a discard, a meld, a win) rather than a silent
    /// answer in a claim window.
    Acted {
        seat: Seat,
        action: Action,
        timed_out: bool,
        visible: bool,
    },
    /// Only people have decisions to make; the earliest deadline, if timed.
    Waiting { deadline_ms: Option<u64> },
    /// The hand is over: read its record, then [`Table::next_hand`].
    HandOver,
}

/// A pending decision's deadline, tied to the decision it was set for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Deadline {
    /// Actions applied when the decision came up: a later decision has a larger count.
    decision: usize,
    at_ms: Option<u64>,
}

/// A match (or one hand) being hosted.
pub struct Table {
    config: TableConfig,
    play: Match,
    /// Bots by player slot; `None` for people.
    bots: [Option<Box<dyn Bot>>; 4],
    /// One view per seat, refreshed in place for bots (no allocation per decision).
    views: [Option<SeatView>; 4],
    decision: Option<Decision>,
    /// Events each player has taken in the current hand.
    cursors: [usize; 4],
    /// People's deadlines by seat.
    deadlines: [Option<Deadline>; 4],
    /// Timeouts in a row per player (托管 after two, online).
    timeouts: [u32; 4],
    /// The actions of every hand already booked.
    played: Vec<Vec<RecordedAction>>,
    /// The 飘 chosen in every hand already booked, by seat (飘 chosen each hand only).
    played_piao: Vec<[u8; 4]>,
    /// The wall seed of every hand already booked (saved when some hand was redealt).
    played_seeds: Vec<Seed>,
    /// Whether some hand was dealt again from another seed ([`Table::redeal`]).
    redealt: bool,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("config", &self.config)
            .field("decision", &self.decision)
            .field("cursors", &self.cursors)
            .field("timeouts", &self.timeouts)
            .finish_non_exhaustive()
    }
}

impl Table {
    /// A table ready for its first decision. The rules are checked first.
    pub fn try_new(config: TableConfig) -> Result<Table, TableError> {
        config.rules().validate().map_err(TableError::Rules)?;
        if let Deal::Hand(setup) = &config.deal
            && setup.dealer_level > setup.rules.dealer_max_level
        {
            return Err(TableError::Setup(format!(
                "dealer level {} under rules whose highest level is {}",
                setup.dealer_level, setup.rules.dealer_max_level
            )));
        }
        Ok(Table::new(config))
    }

    /// A table from a configuration the host made itself (presets, its own setups).
    pub fn new(config: TableConfig) -> Table {
        let play = match &config.deal {
            Deal::Match { rules, seed } => Match::new(rules.clone(), *seed),
            Deal::Hand(setup) => Match::single(setup.clone()),
        };
        let bots = std::array::from_fn(|p| config.players[p].bot(bot_seed(config.bot_seed, 0, p)));
        let mut t = Table {
            config,
            play,
            bots,
            views: Default::default(),
            decision: None,
            cursors: [0; 4],
            deadlines: [None; 4],
            timeouts: [0; 4],
            played: Vec::new(),
            played_piao: Vec::new(),
            played_seeds: Vec::new(),
            redealt: false,
        };
        t.bots_choose_piao();
        t
    }

    /// 飘 chosen each hand: the bots' stakes for the hand just dealt ([`crate::bot::piao_choice`]).
    fn bots_choose_piao(&mut self) {
        if !self.piao_open() {
            return;
        }
        for p in 0..4 {
            if self.bots[p].is_some() {
                let seat = self.seat_of(p);
                let n = crate::bot::piao_choice(&self.game().view(seat));
                // Open before the first action, and 0 or 1 is always allowed.
                let _ = self.play.choose_piao(seat, n);
            }
        }
    }

    /// Whether 飘 may still be chosen for this hand: the rules have 飘 chosen each hand and
    /// nobody has acted yet. A host asks its people before the first [`Table::step`].
    pub fn piao_open(&self) -> bool {
        matches!(self.rules().piao, Piao::Chosen(_))
            && self.game().actions().is_empty()
            && !self.game().is_finished()
    }

    /// Player `player` stakes `piao` (飘) on this hand, before anyone has acted.
    pub fn choose_piao(&mut self, player: usize, piao: u8) -> Result<(), PiaoError> {
        let seat = self.seat_of(player);
        self.play.choose_piao(seat, piao)
    }

    /// The 飘 each seat staked on this hand (zeros without 飘 chosen each hand).
    pub fn piao_chosen(&self) -> [u8; 4] {
        match self.game().rules().piao {
            Piao::Chosen(p) => p,
            _ => [0; 4],
        }
    }

    /// Puts `bot` in player slot `player` (a bot slot) from now on: for hosts with bots of
    /// their own (timed bots in the arena, outside programs). It is seeded like the bot it
    /// replaces, now for this hand and at every new hand.
    pub fn set_bot(&mut self, player: usize, mut bot: Box<dyn Bot>) -> Result<(), TableError> {
        let seed = bot_seed(self.config.bot_seed, self.play.hand_index(), player);
        match self.bots.get_mut(player) {
            Some(slot @ Some(_)) => {
                bot.new_hand(seed);
                *slot = Some(bot);
                Ok(())
            }
            _ => Err(TableError::NotABot(player)),
        }
    }

    pub fn config(&self) -> &TableConfig {
        &self.config
    }

    pub fn rules(&self) -> &RuleSet {
        self.config.rules()
    }

    /// The hand being played (or just finished).
    pub fn game(&self) -> &Game {
        self.play.game()
    }

    /// The hand being played (or just finished), the table given up (no copy of the game).
    pub fn into_game(self) -> Game {
        self.play.into_game()
    }

    /// The match: scores, seating, standings, the hands booked.
    pub fn match_state(&self) -> &Match {
        &self.play
    }

    /// The seat player `player` sits in this hand.
    pub fn seat_of(&self, player: usize) -> Seat {
        self.play.seating()[player % 4]
    }

    /// The player in `seat` this hand.
    pub fn player_at(&self, seat: Seat) -> usize {
        self.play.player_at(seat)
    }

    /// Who plays player slot `player`.
    pub fn player(&self, player: usize) -> Player {
        self.config.players[player % 4]
    }

    /// The whole match is over (the last hand booked).
    pub fn is_over(&self) -> bool {
        self.play.is_finished()
    }

    /// What player `player` may see now.
    pub fn view(&self, player: usize) -> SeatView {
        self.game().view(self.seat_of(player))
    }

    /// Player `player`'s pending decision, if any.
    pub fn decision(&self, player: usize) -> Option<Decision> {
        self.game().decision(self.seat_of(player))
    }

    /// When player `player`'s pending decision times out (ms), once [`Table::step`] has seen
    /// it; `None` when untimed or not pending.
    pub fn deadline(&self, player: usize) -> Option<u64> {
        let seat = self.seat_of(player);
        self.deadlines[seat.index()]
            .filter(|d| d.decision == self.game().actions().len() && self.game().is_pending(seat))
            .and_then(|d| d.at_ms)
    }

    /// Timeouts in a row of player `player` (reset when the player acts).
    pub fn timeouts(&self, player: usize) -> u32 {
        self.timeouts[player % 4]
    }

    /// Deals the current hand again from `seed` before anyone has acted (online tables deal
    /// from a provably fair seed, [`crate::fair`]); its saved form then keeps each hand's
    /// seed, so it resumes (a table moved to another server node). False, and nothing
    /// changes, once the hand has an action.
    pub fn redeal(&mut self, seed: Seed) -> bool {
        if !self.play.redeal(seed) {
            return false;
        }
        self.redealt = true;
        self.cursors = [0; 4];
        self.deadlines = [None; 4];
        true
    }

    /// Player `player`'s answer. Refused (and nothing changes) when the slot is a bot's or
    /// the action is not legal now.
    pub fn act(&mut self, player: usize, action: Action) -> Result<(), GameError> {
        let seat = self.seat_of(player);
        if !self.config.players[player % 4].is_person() {
            return Err(GameError::NotYourTurn(seat));
        }
        self.play.apply(seat, action)?;
        self.timeouts[player % 4] = 0;
        Ok(())
    }

    /// Plays one bot decision if any bot is due; else a person's timeout if one has passed;
    /// else says who is waited for, or that the hand is over.
    pub fn step(&mut self, now_ms: u64) -> Step {
        if self.game().is_finished() {
            return Step::HandOver;
        }
        let before = self.game().events().len();
        if let Some(seat) = Seat::ALL
            .into_iter()
            .find(|&s| self.game().is_pending(s) && self.bots[self.play.player_at(s)].is_some())
        {
            let action = self.play_bot(seat);
            return Step::Acted {
                seat,
                action,
                timed_out: false,
                visible: self.game().events().len() != before,
            };
        }
        let now_decision = self.game().actions().len();
        let mut earliest: Option<u64> = None;
        for seat in Seat::ALL {
            if !self.game().is_pending(seat) {
                continue;
            }
            let d = match self.deadlines[seat.index()] {
                Some(d) if d.decision == now_decision => d,
                _ => {
                    let limit = self.game().decision(seat).map_or(0, |d| d.limit_secs);
                    let d = Deadline {
                        decision: now_decision,
                        at_ms: self
                            .config
                            .clock
                            .limit_ms(limit)
                            .map(|l| now_ms.saturating_add(l)),
                    };
                    self.deadlines[seat.index()] = Some(d);
                    d
                }
            };
            match d.at_ms {
                Some(at) if now_ms >= at => {
                    let action = self.time_out(seat);
                    return Step::Acted {
                        seat,
                        action,
                        timed_out: true,
                        visible: self.game().events().len() != before,
                    };
                }
                Some(at) => earliest = Some(earliest.map_or(at, |e| e.min(at))),
                None => {}
            }
        }
        Step::Waiting {
            deadline_ms: earliest,
        }
    }

    /// Steps until people must decide or the hand is over, ignoring the clock: what a local
    /// game against bots runs between the person's moves.
    pub fn run_bots(&mut self) -> Step {
        loop {
            match self.step(0) {
                Step::Acted { .. } => {}
                other => return other,
            }
        }
    }

    /// Plays `seat`'s timeout action (the safe default of its decision).
    fn time_out(&mut self, seat: Seat) -> Action {
        let action = self
            .game()
            .decision(seat)
            .map_or(Action::Pass, |d| d.on_timeout);
        let p = self.play.player_at(seat);
        self.timeouts[p] = self.timeouts[p].saturating_add(1);
        self.play
            .apply(seat, action)
            .expect("a decision's timeout action is legal");
        action
    }

    /// Asks the bot in `seat` and applies its choice. A choice the engine refuses falls back
    /// to the decision's timeout action, so a bot bug cannot stall the table.
    fn play_bot(&mut self, seat: Seat) -> Action {
        let action = self.ask_bot(seat);
        if self.play.apply(seat, action).is_ok() {
            return action;
        }
        let fallback = self
            .decision
            .as_ref()
            .map_or(Action::Pass, |d| d.on_timeout);
        self.play
            .apply(seat, fallback)
            .expect("a decision's timeout action is legal");
        fallback
    }

    /// The bot's choice for `seat`'s pending decision, from the decision alone where the bot
    /// can, else from its view.
    fn ask_bot(&mut self, seat: Seat) -> Action {
        let p = self.play.player_at(seat);
        let game = self.play.game();
        game.decision_into(seat, &mut self.decision);
        let Some(bot) = self.bots[p].as_mut() else {
            return Action::Pass;
        };
        if let Some(d) = &self.decision
            && let Some(a) = bot.choose_fast(d)
        {
            return a;
        }
        let view = match &mut self.views[seat.index()] {
            Some(v) => {
                game.view_into_but_decision(seat, v);
                v
            }
            slot => slot.insert(game.view(seat)),
        };
        // The decision just computed goes into the view (and back after), not computed twice.
        std::mem::swap(&mut view.decision, &mut self.decision);
        let action = bot.choose(view);
        std::mem::swap(&mut view.decision, &mut self.decision);
        action
    }

    /// The events of the current hand that player `player` has not taken yet, as that seat
    /// may see them.
    pub fn take_events(&mut self, player: usize) -> Vec<Event> {
        let p = player % 4;
        let seat = self.seat_of(p);
        let events = self.play.game().events();
        let out = events[self.cursors[p].min(events.len())..]
            .iter()
            .map(|e| e.for_seat(seat))
            .collect();
        self.cursors[p] = events.len();
        out
    }

    /// Marks `player`'s events as taken without copying them (nobody reads them).
    pub fn skip_events(&mut self, player: usize) {
        let p = player % 4;
        self.cursors[p] = self.play.game().events().len();
    }

    /// The finished hand's record; `None` while it is being played.
    pub fn record(&self) -> Option<HandRecord> {
        HandRecord::of(self.game())
    }

    /// Books the finished hand and deals the next; false once the match is over (or while
    /// the hand is still being played).
    pub fn next_hand(&mut self) -> bool {
        if self.is_over() || !self.game().is_finished() {
            return false;
        }
        self.played.push(recorded(self.game()));
        self.played_piao.push(self.piao_chosen());
        self.played_seeds.push(self.game().setup().seed);
        let more = self.play.next_hand();
        if more {
            let hand = self.play.hand_index();
            for (p, bot) in self.bots.iter_mut().enumerate() {
                if let Some(b) = bot {
                    b.new_hand(bot_seed(self.config.bot_seed, hand, p));
                }
            }
            self.cursors = [0; 4];
            self.deadlines = [None; 4];
            self.bots_choose_piao();
        }
        more
    }

    /// Hands in the match when the rules fix it (the deal always passing, or one hand).
    pub fn hands_in_match(&self) -> Option<u32> {
        match &self.config.deal {
            Deal::Hand(_) => Some(1),
            Deal::Match { rules, .. } => (rules.dealer == crate::rules::DealerRule::AlwaysPass)
                .then(|| u32::from(rules.rounds) * u32::from(rules.hands_per_round)),
        }
    }
}

fn recorded(g: &Game) -> Vec<RecordedAction> {
    g.actions()
        .iter()
        .map(|&(seat, action)| RecordedAction { seat, action })
        .collect()
}

#[cfg(test)]
mod tests;
