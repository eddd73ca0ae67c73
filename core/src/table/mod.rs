//! Hosting a match: the one loop that runs a table for any mix of bots, local and remote
//! players.
//!
//! The terminal game, the phone session, the online server, the bot arena and the engine
//! soak all drive a [`Table`]. The table owns the [`Match`], a controller per player
//! ([`Player`]), a cursor per player over that seat's events, the decision clock (time
//! limits, bank time, timeouts and 托管: [`clock`]) and the saved form of a match
//! ([`SavedTable`]).
//!
//! The host calls [`Table::step`] with the time now (milliseconds on any monotonic clock it
//! likes; the core reads none): each call plays one bot decision, one stand-in move or one
//! timeout, or says the table is waiting for people (and when to step it again), or that the
//! hand is over. People's answers go in with [`Table::act`], with the time they came.
//!
//! ```
//! use tongcheng_core::table::{Player, Step, Table, TableConfig};
//! use tongcheng_core::bot::Level;
//!
//! let mut t = Table::new(TableConfig::match_against_bots(Level::Easy, 7));
//! let now = 0;
//! loop {
//!     match t.step(now) {
//!         Step::Acted { .. } => {}
//!         // The person in player slot 0 plays whatever the timeout would.
//!         Step::Waiting { .. } => {
//!             let d = t.decision(0).unwrap();
//!             t.act(0, d.on_timeout, now).unwrap();
//!         }
//!         Step::HandOver => break,
//!     }
//! }
//! assert!(t.record().is_some());
//! ```

pub mod clock;
mod saved;

pub use clock::{Answered, Clock, ClockKept};
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
    /// How people are timed ([`Table::set_clock`] changes it).
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
            clock: Clock::Match,
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
    /// `seat` acted (already applied). `visible` when it changed the table (a discard, a
    /// meld, a win) rather than a silent answer in a claim window.
    Acted {
        seat: Seat,
        action: Action,
        by: Mover,
        visible: bool,
    },
    /// Only people have decisions to make. `deadline_ms`: the time to step the table again
    /// at the latest (the earliest deadline, or now when a stand-in is to move); `None`
    /// when nothing is timed (the clock off or paused).
    Waiting { deadline_ms: Option<u64> },
    /// The hand is over: read its record, then [`Table::next_hand`].
    HandOver,
}

/// Who made the move a [`Step::Acted`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mover {
    /// The bot of a bot's slot.
    Bot,
    /// A person's stand-in: the seat is on 托管, or its person away.
    StandIn,
    /// The person's time ran out: the decision's timeout action was played. `auto_play`
    /// when it was the second in a row and the seat is on 托管 from now on.
    Timeout { auto_play: bool },
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
    /// People's decision clock.
    timing: clock::Timing,
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
            .field("timing", &self.timing)
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
        let timing = clock::Timing::new(
            config.rules().time.bank_secs,
            config.players.iter().any(|p| p.is_person()),
        );
        let mut t = Table {
            config,
            play,
            bots,
            views: Default::default(),
            decision: None,
            cursors: [0; 4],
            timing,
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
        self.timing.close_all();
        true
    }

    /// Player `player`'s answer, at `now_ms` on the host's clock (the time over the
    /// decision's limit comes out of the bank). Refused (and nothing changes) when the slot
    /// is a bot's or the action is not legal now. Acting takes the seat off 托管.
    pub fn act(
        &mut self,
        player: usize,
        action: Action,
        now_ms: u64,
    ) -> Result<Answered, GameError> {
        let seat = self.seat_of(player);
        if !self.config.players[player % 4].is_person() {
            return Err(GameError::NotYourTurn(seat));
        }
        let timer = self.open_timer(seat);
        self.play.apply(seat, action)?;
        // The decisions this answer makes open at the next step, the time the host goes on.
        Ok(self.answered(player, timer, now_ms))
    }

    /// Plays one bot decision if any bot is due; else a stand-in's move or a person's
    /// timeout if one is due at `now_ms`; else says who is waited for (and until when), or
    /// that the hand is over.
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
            let visible = self.game().events().len() != before;
            self.open_timers(now_ms);
            return Step::Acted {
                seat,
                action,
                by: Mover::Bot,
                visible,
            };
        }
        self.step_people(now_ms)
    }

    /// Steps until nothing is due at `now_ms` (bots, stand-ins and timeouts played): the
    /// people's wait, or the hand's end. What a local game runs between a person's moves.
    pub fn run(&mut self, now_ms: u64) -> Step {
        loop {
            match self.step(now_ms) {
                Step::Acted { .. } => {}
                Step::Waiting {
                    deadline_ms: Some(at),
                } if at <= now_ms => {}
                other => return other,
            }
        }
    }

    /// Asks the bot (or the stand-in) in `seat` and applies its choice. A choice the engine
    /// refuses falls back to the decision's timeout action, so a bot bug cannot stall the
    /// table.
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

    /// The bot's choice for `seat`'s pending decision (a person's: the stand-in's), from the
    /// decision alone where the bot can, else from its view.
    fn ask_bot(&mut self, seat: Seat) -> Action {
        let p = self.play.player_at(seat);
        let mut stand_in;
        let bot: &mut dyn Bot = match self.bots[p].as_mut() {
            Some(b) => b.as_mut(),
            None => {
                stand_in = self.stand_in(p);
                &mut stand_in
            }
        };
        let game = self.play.game();
        game.decision_into(seat, &mut self.decision);
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
            self.timing.close_all();
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

#[cfg(test)]
mod clock_tests;
