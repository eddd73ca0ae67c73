//! One hand of mahjong as a pure state machine, from the deal to the payments.
//!
//! The host asks [`Game::legal_actions`] for a seat, sends one with [`Game::apply`], and reads
//! what a seat may see with [`Game::view`] and [`Game::events_for`]. Every illegal action is a
//! typed error and leaves the state untouched. The game never sleeps and never does I/O: time
//! limits are stated in each [`Decision`] and enforced by the host.
//!
//! Flow: deal 13 each (dealer 14) → flowers replaced from the wall's far end, dealer first →
//! the dealer's turn → discard → every other seat answers the claim window (win beats pung /
//! kong beats chow; several wins go to the first seat after the discarder, 截和) → the next
//! seat draws … until a win or the wall runs out (荒牌).

pub mod events;
mod matches;
mod scoring;

pub use events::{Decision, DecisionKind, Event, SeatView, TableMeld};
pub use matches::{HandSummary, Match};
pub use scoring::{FanLine, Scorer, WinScore};

use serde::{Deserialize, Serialize};

use crate::hand::{KongKind, Meld, MeldKind, is_complete_counts};
use crate::rules::{DiscardWins, RuleSet, Takings, WildRule};
use crate::score::hangzhou;
use crate::seat::{Seat, Wind};
use crate::tile::{Tile, TileCounts};
use crate::wall::{Seed, Wall};

/// Something a seat does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(
    tag = "type",
    content = "tile",
    rename_all = "snake_case",
    deny_unknown_fields
)]
pub enum Action {
    /// Discard this tile.
    Discard(Tile),
    /// 吃 the discard into the chow starting at this tile.
    Chow(Tile),
    /// 碰 the discard.
    Pung,
    /// 明杠 on the discard, with a concealed pung of it.
    Kong,
    /// 暗杠 of four held tiles.
    ConcealedKong(Tile),
    /// 补杠: add the drawn (or held) tile to an exposed pung.
    AddedKong(Tile),
    /// 和: declare a win on the drawn tile, the discard, or the tile of a kong being robbed.
    Win,
    /// Let the discard (or the kong) go.
    Pass,
}

/// Why an action was refused. The game is unchanged after any of these.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("the hand is over")]
    Finished,
    #[error("it is not {0}'s decision")]
    NotYourTurn(Seat),
    #[error("{seat} already answered this discard")]
    AlreadyAnswered { seat: Seat },
    #[error("{action:?} is not legal for {seat} now (legal: {legal})")]
    Illegal {
        seat: Seat,
        action: Action,
        legal: String,
    },
    #[error("seat {0} does not exist (seats are 0–3)")]
    NoSuchSeat(u8),
}

/// Where the hand stands.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// `seat` must discard (or kong, or win). `drawn` is the tile just drawn, if any.
    Turn {
        seat: Seat,
        drawn: Option<Tile>,
        /// Drawn as a kong's replacement (杠上开花 if it wins).
        after_kong: bool,
        /// Claimed a discard: may only discard now.
        after_claim: bool,
    },
    /// Every seat with a possible claim on `tile` must answer.
    Claims {
        discarder: Seat,
        tile: Tile,
        options: [Vec<Action>; 4],
        answers: [Option<Action>; 4],
    },
    /// `seat` is adding `tile` to a pung: seats that can win on it may rob it (抢杠和).
    RobKong {
        seat: Seat,
        tile: Tile,
        options: [Vec<Action>; 4],
        answers: [Option<Action>; 4],
    },
    Finished,
}

/// A discard as it lies on the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Discard {
    pub tile: Tile,
    /// Taken by another seat into a meld (shown there instead).
    pub claimed: bool,
}

/// How a finished hand ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandResult {
    /// The winner, or `None` for a draw (荒牌).
    pub winner: Option<Seat>,
    /// Who discarded the winning tile (or whose kong was robbed); `None` for self-draw.
    pub discarder: Option<Seat>,
    pub win_tile: Option<Tile>,
    pub self_drawn: bool,
    /// The fan breakdown of the winning hand.
    pub score: Option<WinScore>,
    /// Score change per seat; sums to zero.
    pub deltas: [i32; 4],
    /// Every concealed hand, revealed (the winner's includes the winning tile).
    pub hands: [Vec<Tile>; 4],
    pub melds: [Vec<Meld>; 4],
    pub flowers: [Vec<Tile>; 4],
}

/// Everything that fixes a hand before the first action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandSetup {
    pub rules: RuleSet,
    pub seed: Seed,
    /// Who deals (sits East).
    pub dealer: Seat,
    /// The round's wind (圈风).
    pub prevalent: Wind,
    /// The dealer's level (老庄) under rules with dealer levels; 0 means a new dealer at the
    /// rule set's start level.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dealer_level: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// Per-seat state of the wild flow (Hangzhou).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct WildState {
    /// Discarded a wild and has not drawn or claimed since: the others are locked.
    locking: bool,
    /// Consecutive own wild discards (财飘).
    piao: u8,
    /// Kongs since the last ordinary discard.
    kongs: u8,
    /// Kinds passed as a discard win since the last own draw (漏胡), one bit per kind.
    passed: u64,
    /// Wilds discarded this hand (4个白板).
    wild_discards: u8,
}

/// One hand in progress (or finished).
#[derive(Clone, Debug)]
pub struct Game {
    setup: HandSetup,
    wall: Wall,
    hands: [TileCounts; 4],
    melds: [Vec<Meld>; 4],
    discards: [Vec<Discard>; 4],
    flowers: [Vec<Tile>; 4],
    /// The wild kind, if the rules have wilds.
    wild: Option<Tile>,
    /// 翻财神: the turned-up tile (out of play), and the face 白 plays as.
    indicator: Option<Tile>,
    white_as: Option<Tile>,
    /// 笃老: the dice a new dealer rolled for his starting level, when the rules roll them.
    dice: Option<[u8; 2]>,
    wild_state: [WildState; 4],
    phase: Phase,
    /// The dealer has not discarded yet (his first discard has a longer time limit).
    first_discard: bool,
    events: Vec<Event>,
    actions: Vec<(Seat, Action)>,
    result: Option<HandResult>,
}

impl Game {
    /// Shuffles the wall, deals, replaces flowers, and stops at the dealer's first decision.
    pub fn new(setup: HandSetup) -> Game {
        let wall = Wall::shuffled(&setup.seed, setup.rules.flowers);
        Game::with_wall(setup, wall)
    }

    fn with_wall(setup: HandSetup, wall: Wall) -> Game {
        let mut g = Game {
            wall,
            hands: [TileCounts::new(); 4],
            melds: Default::default(),
            discards: Default::default(),
            flowers: Default::default(),
            wild: None,
            indicator: None,
            white_as: None,
            dice: None,
            wild_state: [WildState::default(); 4],
            phase: Phase::Finished,
            first_discard: true,
            // Typical hands have about 200 events and 120 actions: allocate once.
            events: Vec::with_capacity(256),
            actions: Vec::with_capacity(160),
            result: None,
            setup,
        };
        g.dice = g.roll_dice();
        if let Some(dice) = g.dice {
            g.events.push(Event::DiceRolled {
                seat: g.setup.dealer,
                dice,
                level: g.dealer_level(),
            });
        }
        g.deal();
        g
    }

    /// 笃老 by dice: a new dealer (no level carried over) under rules that roll for it. The
    /// dice come from the hand's seed, apart from the wall's stream, so a hand still replays
    /// from its setup alone.
    fn roll_dice(&self) -> Option<[u8; 2]> {
        let r = &self.setup.rules;
        if !r.dealer_start_dice || r.dealer_max_level == 0 || self.setup.dealer_level != 0 {
            return None;
        }
        // Bytes of a derived seed, rejecting 252–255 so every face is equally likely.
        let mut faces = self
            .setup
            .seed
            .derive(u64::MAX)
            .0
            .into_iter()
            .filter(|&b| b < 252)
            .map(|b| b % 6 + 1);
        Some([faces.next()?, faces.next()?])
    }

    /// The value a tile plays: under 翻财神 a 白 plays the wild's face; anything else itself.
    fn face_of(&self, t: Tile) -> Tile {
        match self.white_as {
            Some(face) if t == Tile::WHITE => face,
            _ => t,
        }
    }

    /// Does `hand` hold a tile playing `value` naturally (not as a wild)? The wild's face is
    /// held naturally only as a 白 (翻财神).
    fn holds_natural(&self, hand: &TileCounts, value: Tile) -> bool {
        if Some(value) == self.wild {
            self.white_as == Some(value) && hand.get(Tile::WHITE) > 0
        } else {
            hand.get(value) > 0
        }
    }

    /// The dice rolled for the dealer's starting level (笃老), if the rules roll them.
    pub fn dice(&self) -> Option<[u8; 2]> {
        self.dice
    }

    fn deal(&mut self) {
        let dealer = self.setup.dealer;
        let order: [Seat; 4] = std::array::from_fn(|i| dealer.after(i as u8));
        let mut dealt: [Vec<Tile>; 4] = Default::default();
        // Three rounds of four tiles, then one each, then the dealer's fourteenth.
        for round in 0..4 {
            let n = if round < 3 { 4 } else { 1 };
            for s in order {
                for _ in 0..n {
                    dealt[s.index()].push(self.wall.draw().expect("a fresh wall deals"));
                }
            }
        }
        let last = self.wall.draw().expect("a fresh wall deals");
        dealt[dealer.index()].push(last);
        for s in order {
            self.events.push(Event::Dealt {
                seat: s,
                tiles: Some(dealt[s.index()].clone()),
            });
        }
        // Flowers are set aside and replaced from the far end, dealer first (补花).
        let mut dealer_last = Some(last);
        for s in order {
            let mut pending: Vec<Tile> = Vec::new();
            for t in &dealt[s.index()] {
                if t.is_flower() {
                    pending.push(*t);
                } else {
                    self.hands[s.index()].add(*t);
                }
            }
            while let Some(f) = pending.pop() {
                self.flowers[s.index()].push(f);
                self.events.push(Event::Flower { seat: s, tile: f });
                match self.wall.draw_replacement() {
                    Some(t) if t.is_flower() => pending.push(t),
                    Some(t) => {
                        self.hands[s.index()].add(t);
                        self.events.push(Event::Drew {
                            seat: s,
                            tile: Some(t),
                            replacement: true,
                        });
                        if s == dealer {
                            dealer_last = Some(t);
                        }
                    }
                    None => unreachable!("a fresh wall has tiles for every flower"),
                }
            }
        }
        match self.setup.rules.wild {
            WildRule::None => {}
            WildRule::FixedWhite => self.wild = Some(Tile::WHITE),
            WildRule::Flipped => {
                // Turned up from the tail: that face is wild, 白 plays as it.
                let t = self
                    .wall
                    .draw_replacement()
                    .expect("a fresh wall has tiles");
                self.indicator = Some(t);
                self.wild = Some(t);
                self.white_as = (t != Tile::WHITE).then_some(t);
            }
        }
        // The dealer's fourteenth tile is shown apart like a drawn tile.
        let drawn =
            dealer_last.filter(|t| !t.is_flower() && self.hands[dealer.index()].get(*t) > 0);
        self.phase = Phase::Turn {
            seat: dealer,
            drawn,
            after_kong: false,
            after_claim: false,
        };
    }

    /// The setup this hand was dealt from.
    pub fn setup(&self) -> &HandSetup {
        &self.setup
    }

    pub fn rules(&self) -> &RuleSet {
        &self.setup.rules
    }

    /// The seat wind of `seat` (the dealer is East).
    pub fn seat_wind(&self, seat: Seat) -> Wind {
        Wind::from_index(seat.distance_from(self.setup.dealer) as usize)
    }

    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    pub fn result(&self) -> Option<&HandResult> {
        self.result.as_ref()
    }

    /// Every action applied so far, in order.
    pub fn actions(&self) -> &[(Seat, Action)] {
        &self.actions
    }

    /// Every event so far, unfiltered (for records; seats get [`Game::events_for`]).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Tiles left in the wall.
    pub fn wall_remaining(&self) -> usize {
        self.wall.remaining()
    }

    /// Seats that must decide now: the seat on turn, or every seat still to answer a claim.
    pub fn pending_seats(&self) -> Vec<Seat> {
        Seat::ALL
            .into_iter()
            .filter(|&s| self.is_pending(s))
            .collect()
    }

    /// Whether `seat` has a decision to make now (a turn, or a claim window it has not
    /// answered): [`Game::pending_seats`] one seat at a time, without allocating.
    pub fn is_pending(&self, seat: Seat) -> bool {
        match &self.phase {
            Phase::Turn { seat: s, .. } => *s == seat,
            Phase::Claims {
                options, answers, ..
            }
            | Phase::RobKong {
                options, answers, ..
            } => !options[seat.index()].is_empty() && answers[seat.index()].is_none(),
            Phase::Finished => false,
        }
    }

    /// The actions `seat` may take now (empty when it has nothing to decide).
    pub fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        // At most 14 discards, a win and a few kongs: one allocation.
        let mut v = Vec::with_capacity(20);
        self.legal_actions_into(seat, &mut v);
        v
    }

    /// [`Game::legal_actions`] appended to `v`.
    fn legal_actions_into(&self, seat: Seat, v: &mut Vec<Action>) {
        match &self.phase {
            Phase::Turn {
                seat: s,
                drawn,
                after_kong,
                after_claim,
            } if *s == seat => self.turn_actions(seat, *drawn, *after_kong, *after_claim, v),
            Phase::Claims {
                options, answers, ..
            }
            | Phase::RobKong {
                options, answers, ..
            } if answers[seat.index()].is_none() => v.extend_from_slice(&options[seat.index()]),
            _ => {}
        }
    }

    fn turn_actions(
        &self,
        seat: Seat,
        drawn: Option<Tile>,
        after_kong: bool,
        after_claim: bool,
        v: &mut Vec<Action>,
    ) {
        let hand = &self.hands[seat.index()];
        if !after_claim {
            if drawn.is_some_and(|win| {
                self.self_draw_score(seat, win, after_kong)
                    .is_some_and(|s| s.valid)
            }) {
                v.push(Action::Win);
            }
            // A kong needs a replacement tile; on the wall's last tile only a discard is left.
            // A wild is never part of a kong.
            if self.kong_allowed() {
                for t in hand.kinds() {
                    if hand.get(t) == 4 && Some(t) != self.wild {
                        v.push(Action::ConcealedKong(t));
                    }
                }
                for m in &self.melds[seat.index()] {
                    if m.kind == MeldKind::Pung && hand.get(m.tile) > 0 {
                        v.push(Action::AddedKong(m.tile));
                    }
                }
            }
        }
        // Locked by another seat's wild discard: draw and discard the drawn tile (摸切).
        if let Some(d) = drawn.filter(|_| self.is_locked(seat)) {
            v.push(Action::Discard(d));
            return;
        }
        for t in hand.kinds() {
            v.push(Action::Discard(t));
        }
    }

    /// Applies `action` for `seat`. On error nothing changes.
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<(), GameError> {
        if seat.0 > 3 {
            return Err(GameError::NoSuchSeat(seat.0));
        }
        if self.phase == Phase::Finished {
            return Err(GameError::Finished);
        }
        if self.is_plainly_legal(seat, action) {
            self.dispatch(seat, action);
            return Ok(());
        }
        let legal = self.legal_actions(seat);
        if legal.is_empty() {
            return Err(match &self.phase {
                Phase::Claims { options, .. } | Phase::RobKong { options, .. }
                    if !options[seat.index()].is_empty() =>
                {
                    GameError::AlreadyAnswered { seat }
                }
                _ => GameError::NotYourTurn(seat),
            });
        }
        if !legal.contains(&action) {
            return Err(GameError::Illegal {
                seat,
                action,
                legal: legal
                    .iter()
                    .map(|a| format!("{a:?}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        self.dispatch(seat, action);
        Ok(())
    }

    /// Records and carries out an action already known to be legal.
    fn dispatch(&mut self, seat: Seat, action: Action) {
        self.actions.push((seat, action));
        let turn = match &self.phase {
            Phase::Turn {
                drawn, after_kong, ..
            } => Some((*drawn, *after_kong)),
            _ => None,
        };
        match turn {
            Some((drawn, after_kong)) => self.on_turn(seat, action, drawn, after_kong),
            None => self.on_answer(seat, action),
        }
    }

    /// The common cases, decided without listing every legal action: a discard of a held tile
    /// on one's turn, and a pass (or any offered claim) in a claim window.
    fn is_plainly_legal(&self, seat: Seat, action: Action) -> bool {
        match (&self.phase, action) {
            (Phase::Turn { seat: s, drawn, .. }, Action::Discard(t)) => {
                *s == seat
                    && !t.is_flower()
                    && self.hands[seat.index()].get(t) > 0
                    && (*drawn == Some(t) || !self.is_locked(seat))
            }
            (
                Phase::Claims {
                    options, answers, ..
                }
                | Phase::RobKong {
                    options, answers, ..
                },
                a,
            ) => answers[seat.index()].is_none() && options[seat.index()].contains(&a),
            _ => false,
        }
    }

    fn on_turn(&mut self, seat: Seat, action: Action, drawn: Option<Tile>, after_kong: bool) {
        let s = seat.index();
        match action {
            Action::Discard(t) => {
                self.hands[s].remove(t);
                self.first_discard = false;
                let ws = &mut self.wild_state[s];
                if Some(t) == self.wild {
                    ws.locking = self.setup.rules.wild_lock;
                    ws.piao = ws.piao.saturating_add(1);
                    ws.wild_discards = ws.wild_discards.saturating_add(1);
                } else {
                    ws.piao = 0;
                    ws.kongs = 0;
                }
                self.discards[s].push(Discard {
                    tile: t,
                    claimed: false,
                });
                self.events.push(Event::Discarded { seat, tile: t });
                self.open_claims(seat, t);
            }
            Action::Win => {
                let win = drawn.expect("a win is offered only on a drawn tile");
                let score = self
                    .self_draw_score(seat, win, after_kong)
                    .expect("win offered");
                self.finish_win(seat, None, win, true, score);
            }
            Action::ConcealedKong(t) => {
                self.hands[s].0[t.index()] -= 4;
                self.wild_state[s].kongs = self.wild_state[s].kongs.saturating_add(1);
                let meld = Meld::kong(t, KongKind::Concealed, None).expect("a kong of a held tile");
                self.melds[s].push(meld);
                self.events.push(Event::Kong {
                    seat,
                    meld: TableMeld::of(&meld),
                });
                self.first_discard = false;
                self.draw_for(seat, true);
            }
            Action::AddedKong(t) => {
                // Others may rob it first (抢杠和).
                let options = self.rob_options(seat, t);
                self.events.push(Event::AddingKong { seat, tile: t });
                if options.iter().all(Vec::is_empty) {
                    self.complete_added_kong(seat, t);
                } else {
                    self.phase = Phase::RobKong {
                        seat,
                        tile: t,
                        options,
                        answers: [None; 4],
                    };
                }
            }
            _ => unreachable!("turn actions are discard, win and kongs"),
        }
    }

    fn complete_added_kong(&mut self, seat: Seat, t: Tile) {
        let s = seat.index();
        self.hands[s].remove(t);
        self.wild_state[s].kongs = self.wild_state[s].kongs.saturating_add(1);
        let m = self.melds[s]
            .iter_mut()
            .find(|m| m.kind == MeldKind::Pung && m.tile == t)
            .expect("added kong on an exposed pung");
        m.kind = MeldKind::Kong(KongKind::Added);
        let meld = *m;
        self.events.push(Event::Kong {
            seat,
            meld: TableMeld::of(&meld),
        });
        self.first_discard = false;
        self.draw_for(seat, true);
    }

    /// Opens the claim window on `tile`, or moves on when nobody can claim it.
    fn open_claims(&mut self, discarder: Seat, tile: Tile) {
        let last = self.wall.remaining() <= self.setup.rules.dead_wall as usize;
        let mut options: [Vec<Action>; 4] = Default::default();
        // A wild is never claimed; a locked seat claims nothing.
        let claimable = Some(tile) != self.wild;
        for s in Seat::ALL {
            if s == discarder || !claimable || self.is_locked(s) {
                continue;
            }
            let hand = &self.hands[s.index()];
            let opts = &mut options[s.index()];
            if self
                .discard_score(s, tile, discarder)
                .is_some_and(|sc| sc.valid)
            {
                opts.push(Action::Win);
            }
            if !(last && self.setup.rules.last_discard_win_only) {
                let n = hand.get(tile);
                let (chow_limit, pung_limit) = match self.setup.rules.takings {
                    Takings::LimitTwo { count_pungs } => {
                        let taken =
                            hangzhou::takings(&self.melds[s.index()], discarder, count_pungs);
                        (taken >= 2, count_pungs && taken >= 2)
                    }
                    _ => (false, false),
                };
                if n == 3 && self.kong_allowed() && !pung_limit {
                    opts.push(Action::Kong);
                }
                if n >= 2 && !pung_limit {
                    opts.push(Action::Pung);
                }
                let chow_ok =
                    (!self.setup.rules.chow_from_left_only || s == discarder.next()) && !chow_limit;
                // 翻财神: a 白 plays the wild's face, discarded or held.
                let value = self.face_of(tile);
                if chow_ok && value.is_suited() {
                    for low in [-2i8, -1, 0] {
                        let Some(l) = value.offset(low) else { continue };
                        if l.rank() > 7 {
                            continue;
                        }
                        // The two tiles of the run other than the discard must be held.
                        let held = (0..3)
                            .filter_map(|d| l.offset(d))
                            .filter(|&x| x != value)
                            .all(|x| self.holds_natural(hand, x));
                        if held {
                            opts.push(Action::Chow(l));
                        }
                    }
                }
            }
            if !opts.is_empty() {
                opts.push(Action::Pass);
            }
        }
        if options.iter().all(Vec::is_empty) {
            self.next_draw(discarder);
        } else {
            self.phase = Phase::Claims {
                discarder,
                tile,
                options,
                answers: [None; 4],
            };
        }
    }

    fn rob_options(&self, kong_seat: Seat, tile: Tile) -> [Vec<Action>; 4] {
        let mut options: [Vec<Action>; 4] = Default::default();
        for s in Seat::ALL {
            if s != kong_seat
                && self.setup.rules.rob_kong
                && self
                    .rob_score(s, tile, kong_seat)
                    .is_some_and(|sc| sc.valid)
            {
                options[s.index()] = vec![Action::Win, Action::Pass];
            }
        }
        options
    }

    fn on_answer(&mut self, seat: Seat, action: Action) {
        // 漏胡: a discard win let go is not offered again on that tile until one's next draw.
        if let Phase::Claims { tile, options, .. } = &self.phase
            && action == Action::Pass
            && self.setup.rules.missed_win_lock
            && options[seat.index()].contains(&Action::Win)
        {
            self.wild_state[seat.index()].passed |= 1u64 << tile.index();
        }
        let all_answered = match &mut self.phase {
            Phase::Claims {
                options, answers, ..
            }
            | Phase::RobKong {
                options, answers, ..
            } => {
                answers[seat.index()] = Some(action);
                (0..4).all(|i| options[i].is_empty() || answers[i].is_some())
            }
            _ => unreachable!("answers only in claim windows"),
        };
        if !all_answered {
            return;
        }
        match self.phase.clone() {
            Phase::Claims {
                discarder,
                tile,
                answers,
                ..
            } => self.resolve_claims(discarder, tile, answers),
            Phase::RobKong {
                seat: kong_seat,
                tile,
                answers,
                ..
            } => {
                let robber = (1..4)
                    .map(|d| kong_seat.after(d))
                    .find(|s| answers[s.index()] == Some(Action::Win));
                match robber {
                    Some(r) => {
                        // The robbed tile leaves the declarer's hand; his pung stays a pung.
                        self.hands[kong_seat.index()].remove(tile);
                        let score = self.rob_score(r, tile, kong_seat).expect("offered");
                        self.finish_win(r, Some(kong_seat), tile, false, score);
                    }
                    None => self.complete_added_kong(kong_seat, tile),
                }
            }
            _ => unreachable!(),
        }
    }

    /// Win beats pung and kong, which beat chow; among several wins the first seat after the
    /// discarder takes it (截和).
    fn resolve_claims(&mut self, discarder: Seat, tile: Tile, answers: [Option<Action>; 4]) {
        let in_order: Vec<Seat> = (1..4).map(|d| discarder.after(d)).collect();
        let by = |want: fn(&Action) -> bool| {
            in_order
                .iter()
                .copied()
                .find(|s| answers[s.index()].as_ref().is_some_and(want))
        };
        if let Some(w) = by(|a| *a == Action::Win) {
            let score = self.discard_score(w, tile, discarder).expect("offered");
            self.take_discard(discarder);
            self.finish_win(w, Some(discarder), tile, false, score);
            return;
        }
        if let Some(s) = by(|a| matches!(a, Action::Pung | Action::Kong)) {
            let action = answers[s.index()].expect("answered");
            self.take_discard(discarder);
            self.after_claim(s, action == Action::Kong);
            let h = &mut self.hands[s.index()];
            let meld = if action == Action::Kong {
                h.0[tile.index()] -= 3;
                Meld::kong(tile, KongKind::Exposed, Some(discarder))
            } else {
                h.0[tile.index()] -= 2;
                Meld::pung(tile, Some(tile), Some(discarder))
            }
            .expect("a meld of the discard");
            self.melds[s.index()].push(meld);
            self.events.push(Event::Claimed {
                seat: s,
                from: discarder,
                meld: TableMeld::of(&meld),
            });
            if action == Action::Kong {
                self.draw_for(s, true);
            } else {
                self.phase = Phase::Turn {
                    seat: s,
                    drawn: None,
                    after_kong: false,
                    after_claim: true,
                };
            }
            return;
        }
        if let Some(s) = by(|a| matches!(a, Action::Chow(_))) {
            let Some(Action::Chow(low)) = answers[s.index()] else {
                unreachable!()
            };
            self.take_discard(discarder);
            self.after_claim(s, false);
            let value = self.face_of(tile);
            let mut whites = u8::from(value != tile);
            for d in 0..3 {
                let t = low.offset(d).expect("a chow within the suit");
                if t != value {
                    // The wild's face itself is never melded: a 白 plays it.
                    if Some(t) == self.wild {
                        self.hands[s.index()].remove(Tile::WHITE);
                        whites += 1;
                    } else {
                        self.hands[s.index()].remove(t);
                    }
                }
            }
            let mut meld = Meld::chow(low, Some(value), Some(discarder)).expect("a valid chow");
            meld.whites = whites;
            self.melds[s.index()].push(meld);
            self.events.push(Event::Claimed {
                seat: s,
                from: discarder,
                meld: TableMeld::of(&meld),
            });
            self.phase = Phase::Turn {
                seat: s,
                drawn: None,
                after_kong: false,
                after_claim: true,
            };
            return;
        }
        self.next_draw(discarder);
    }

    /// A claim ends the claimer's wild lock and 财飘 run; a kong on a discard extends the kong
    /// run, a chow or pung breaks it.
    fn after_claim(&mut self, s: Seat, kong: bool) {
        let ws = &mut self.wild_state[s.index()];
        ws.locking = false;
        ws.piao = 0;
        ws.kongs = if kong { ws.kongs.saturating_add(1) } else { 0 };
    }

    /// Whether another seat's wild discard locks `seat` (draw and discard only).
    fn is_locked(&self, seat: Seat) -> bool {
        self.wild_state
            .iter()
            .enumerate()
            .any(|(i, w)| w.locking && i != seat.index())
    }

    /// A kong needs its replacement tile and, with a dead wall, enough tiles left.
    fn kong_allowed(&self) -> bool {
        self.wall.remaining() >= (self.setup.rules.kong_min_wall as usize).max(1)
    }

    /// The wild's kind, if the rules have wilds (for views and bots).
    pub fn wild(&self) -> Option<Tile> {
        self.wild
    }

    /// The 翻财神 indicator, if the wild was turned up.
    pub fn wild_indicator(&self) -> Option<Tile> {
        self.indicator
    }

    /// Whether `seat` is locked by another seat's wild discard.
    pub fn locked(&self, seat: Seat) -> bool {
        self.is_locked(seat)
    }

    /// The dealer's level (老庄): 0 without dealer levels.
    pub fn dealer_level(&self) -> u8 {
        let r = &self.setup.rules;
        if r.dealer_max_level == 0 {
            0
        } else if self.setup.dealer_level == 0 {
            // Doubles or more than 9 on the dice: the new dealer starts at level 3.
            let lucky = self.dice.is_some_and(|[a, b]| a == b || a + b > 9);
            let start = if lucky { 3 } else { r.dealer_start_level };
            start.min(r.dealer_max_level)
        } else {
            self.setup.dealer_level.min(r.dealer_max_level)
        }
    }

    fn take_discard(&mut self, discarder: Seat) {
        if let Some(d) = self.discards[discarder.index()].last_mut() {
            d.claimed = true;
        }
    }

    /// After an unclaimed discard: the next seat draws, or the hand is drawn when the wall is
    /// empty (荒牌).
    fn next_draw(&mut self, discarder: Seat) {
        if self.wall.remaining() <= self.setup.rules.dead_wall as usize {
            self.finish_draw();
        } else {
            self.draw_for(discarder.next(), false);
        }
    }

    /// Draws for `seat` (from the far end after a kong), replacing flowers from the far end.
    fn draw_for(&mut self, seat: Seat, after_kong: bool) {
        let mut from_back = after_kong;
        // Drawing ends this seat's wild lock and its missed wins (漏胡).
        let ws = &mut self.wild_state[seat.index()];
        ws.locking = false;
        ws.passed = 0;
        loop {
            if !from_back && self.wall.remaining() <= self.setup.rules.dead_wall as usize {
                self.finish_draw();
                return;
            }
            let t = if from_back {
                self.wall.draw_replacement()
            } else {
                self.wall.draw()
            };
            let Some(t) = t else {
                self.finish_draw();
                return;
            };
            if t.is_flower() {
                self.flowers[seat.index()].push(t);
                self.events.push(Event::Drew {
                    seat,
                    tile: Some(t),
                    replacement: from_back,
                });
                self.events.push(Event::Flower { seat, tile: t });
                from_back = true;
                continue;
            }
            self.hands[seat.index()].add(t);
            self.events.push(Event::Drew {
                seat,
                tile: Some(t),
                replacement: from_back,
            });
            self.phase = Phase::Turn {
                seat,
                drawn: Some(t),
                after_kong,
                after_claim: false,
            };
            return;
        }
    }

    fn finish_draw(&mut self) {
        self.events.push(Event::DrawGame);
        self.result = Some(HandResult {
            winner: None,
            discarder: None,
            win_tile: None,
            self_drawn: false,
            score: None,
            deltas: [0; 4],
            hands: std::array::from_fn(|i| self.hands[i].tiles()),
            melds: self.melds.clone(),
            flowers: self.flowers.clone(),
        });
        self.phase = Phase::Finished;
    }

    fn finish_win(
        &mut self,
        winner: Seat,
        discarder: Option<Seat>,
        tile: Tile,
        self_drawn: bool,
        score: WinScore,
    ) {
        let deltas = match self.setup.rules.hangzhou_scoring() {
            None => scoring::payments(score.total, winner, discarder),
            Some(_) => {
                let liable = match self.setup.rules.takings {
                    Takings::Liability { count_pungs } => hangzhou::liability(
                        std::array::from_fn(|i| self.melds[i].as_slice()),
                        winner,
                        count_pungs,
                    ),
                    _ => None,
                };
                hangzhou::payments(
                    score.total,
                    winner,
                    self.setup.dealer,
                    self.dealer_level(),
                    discarder,
                    liable,
                )
            }
        };
        if !self_drawn {
            // The claimed (or robbed) tile joins the winner's hand.
            self.hands[winner.index()].add(tile);
        }
        let hands: [Vec<Tile>; 4] = std::array::from_fn(|i| self.hands[i].tiles());
        self.events.push(Event::Won {
            seat: winner,
            from: discarder,
            tile,
            total: score.total,
        });
        self.result = Some(HandResult {
            winner: Some(winner),
            discarder,
            win_tile: Some(tile),
            self_drawn,
            score: Some(score),
            deltas,
            hands,
            melds: self.melds.clone(),
            flowers: self.flowers.clone(),
        });
        self.phase = Phase::Finished;
    }

    /// Copies of `t` visible on the table: unclaimed discards and exposed melds.
    fn visible(&self, t: Tile) -> usize {
        let discards: usize = self
            .discards
            .iter()
            .flatten()
            .filter(|d| !d.claimed && d.tile == t)
            .count();
        let melded: usize = self
            .melds
            .iter()
            .flatten()
            .filter(|m| m.is_exposed())
            .map(|m| m.tiles().iter().filter(|&&x| x == t).count())
            .sum();
        discards + melded
    }

    /// Scores a win by `seat` on its own drawn tile `win` (already in the hand).
    fn self_draw_score(&self, seat: Seat, win: Tile, after_kong: bool) -> Option<WinScore> {
        if self.setup.rules.hangzhou_scoring().is_some() {
            return self.hz_score(seat, &self.hands[seat.index()], win, true, after_kong);
        }
        let mut concealed = self.hands[seat.index()];
        if !is_complete_counts(&concealed, self.melds[seat.index()].len()) {
            return None;
        }
        concealed.remove(win);
        // The drawn tile is on the table once it is revealed: others seen are three.
        let last_copy = self.visible(win) == 3;
        self.evaluate(seat, &concealed, win, true, last_copy, after_kong, false)
    }

    fn discard_score(&self, seat: Seat, tile: Tile, discarder: Seat) -> Option<WinScore> {
        if self.setup.rules.hangzhou_scoring().is_some() {
            if !self.discard_win_allowed(seat, tile, discarder) {
                return None;
            }
            let mut with = self.hands[seat.index()];
            with.add(tile);
            if with.get(tile) > 4 {
                return None;
            }
            return self.hz_score(seat, &with, tile, false, false);
        }
        let concealed = self.hands[seat.index()];
        let mut with = concealed;
        with.add(tile);
        if with.get(tile) > 4 || !is_complete_counts(&with, self.melds[seat.index()].len()) {
            return None;
        }
        let _ = discarder;
        // The discard itself lies on the table: the other three visible makes it the last.
        let last_copy = self.visible(tile) == 4;
        self.evaluate(seat, &concealed, tile, false, last_copy, false, false)
    }

    fn rob_score(&self, seat: Seat, tile: Tile, kong_seat: Seat) -> Option<WinScore> {
        if self.setup.rules.hangzhou_scoring().is_some() {
            // Robbing a kong is a win on another's tile: the discard-win rules apply.
            return self.discard_score(seat, tile, kong_seat);
        }
        let concealed = self.hands[seat.index()];
        let mut with = concealed;
        with.add(tile);
        if with.get(tile) > 4 || !is_complete_counts(&with, self.melds[seat.index()].len()) {
            return None;
        }
        self.evaluate(seat, &concealed, tile, false, false, false, true)
    }

    /// Whether `seat` may win on `discarder`'s `tile` at all (Hangzhou rules).
    fn discard_win_allowed(&self, seat: Seat, tile: Tile, discarder: Seat) -> bool {
        let r = &self.setup.rules;
        match r.discard_wins {
            DiscardWins::Any => {}
            DiscardWins::Never => return false,
            DiscardWins::DealerLevel3 => {
                let dealer = self.setup.dealer;
                // Dealer ↔ non-dealer only, from the dealer's third hand (level 3).
                if self.dealer_level() < 3 || ((seat == dealer) == (discarder == dealer)) {
                    return false;
                }
            }
        }
        let hand = &self.hands[seat.index()];
        // Wild-count limits: holding two wilds (or more), self-draw only.
        let wilds = self.wild.map_or(0, |w| hand.get(w));
        Some(tile) != self.wild
            && !(r.wild_count_limits && wilds >= 2)
            && !self.is_locked(seat)
            && self.wild_state[seat.index()].passed & (1u64 << tile.index()) == 0
            // A 爆头 hand waits on every tile: it must self-draw (爆头不能捉冲).
            && !hangzhou::is_baotou_state(
                hand,
                self.melds[seat.index()].len(),
                self.wild,
                self.white_as,
            )
    }

    /// 十风: the seat's first ten discards are honors and it has no meld. `Some(white)` says
    /// whether a 白 was among them.
    fn ten_honors(&self, seat: Seat) -> Option<bool> {
        let d = &self.discards[seat.index()];
        (self.setup.rules.ten_honors
            && d.len() >= 10
            && self.melds[seat.index()].is_empty()
            && d[..10].iter().all(|x| x.tile.is_honor()))
        .then(|| d[..10].iter().any(|x| x.tile == Tile::WHITE))
    }

    /// Scores a Hangzhou win: `concealed` holds the winning tile.
    fn hz_score(
        &self,
        seat: Seat,
        concealed: &TileCounts,
        win: Tile,
        self_drawn: bool,
        on_kong: bool,
    ) -> Option<WinScore> {
        let r = &self.setup.rules;
        let opts = r.hangzhou_scoring()?;
        let ws = &self.wild_state[seat.index()];
        let w = hangzhou::HzWin {
            concealed,
            melds: &self.melds[seat.index()],
            win_tile: win,
            wild: self.wild,
            white_as: self.white_as,
            self_drawn,
            piao: if self_drawn { ws.piao } else { 0 },
            kongs: if self_drawn { ws.kongs } else { 0 },
            on_kong: self_drawn && on_kong,
            ten_honors: if self_drawn {
                self.ten_honors(seat)
            } else {
                None
            },
            wilds_discarded: ws.wild_discards,
        };
        let s = hangzhou::score(&w, opts).ok()?;
        // 有财必拷响: holding a wild, only a 爆头 may win; with the wild-count limits, holding
        // three wilds does the same.
        let must_baotou =
            (r.must_baotou_with_wild && s.wilds > 0) || (r.wild_count_limits && s.wilds >= 3);
        let valid = !(must_baotou && !s.baotou && s.shape != hangzhou::HzShape::TenHonors);
        Some(scoring::from_hangzhou(&s, valid))
    }

    #[allow(clippy::too_many_arguments)]
    fn evaluate(
        &self,
        seat: Seat,
        concealed: &TileCounts,
        win: Tile,
        self_drawn: bool,
        last_copy: bool,
        on_kong: bool,
        robbing_kong: bool,
    ) -> Option<WinScore> {
        scoring::evaluate(
            &self.setup.rules,
            &scoring::WinQuery {
                concealed,
                melds: &self.melds[seat.index()],
                win,
                self_drawn,
                last_copy,
                on_kong,
                robbing_kong,
                last_tile: self.wall.remaining() <= self.setup.rules.dead_wall as usize,
                seat_wind: self.seat_wind(seat),
                round_wind: self.setup.prevalent,
                flowers: self.flowers[seat.index()].len() as u8,
            },
        )
    }

    /// What `seat` may see: its own tiles, the table, and its own decision.
    pub fn view(&self, seat: Seat) -> SeatView {
        events::view(self, seat)
    }

    /// Rewrites `view` as `seat`'s view now, reusing its vectors (no allocation once they
    /// have grown): for hosts and arenas that ask for a view at every decision.
    pub fn view_into(&self, seat: Seat, view: &mut SeatView) {
        events::refresh_view(self, seat, view)
    }

    /// The events so far as `seat` may see them (other seats' draws and hands hidden).
    pub fn events_for(&self, seat: Seat) -> Vec<Event> {
        self.events.iter().map(|e| e.for_seat(seat)).collect()
    }

    /// Total tiles in every place: wall, hands, melds, discards (unclaimed), flowers. Always
    /// the rule set's tile count — an invariant the tests check at every step.
    pub fn tile_census(&self) -> usize {
        let hands: usize = self.hands.iter().map(|h| h.total()).sum();
        let melds: usize = self.melds.iter().flatten().map(|m| m.tiles().len()).sum();
        let discards = self
            .discards
            .iter()
            .flatten()
            .filter(|d| !d.claimed)
            .count();
        let flowers: usize = self.flowers.iter().map(Vec::len).sum();
        let indicator = usize::from(self.indicator.is_some());
        // During a robbing window the added tile is still in the declarer's hand.
        self.wall.remaining() + hands + melds + discards + flowers + indicator
    }

    /// Checks the engine's invariants: every tile accounted for, no kind more than four times,
    /// no flower in a hand, every hand of a legal size, payments summing to zero.
    pub fn check_invariants(&self) -> Result<(), String> {
        let expected = self.setup.rules.tile_count();
        let census = self.tile_census();
        if census != expected {
            return Err(format!("{census} tiles accounted for, expected {expected}"));
        }
        let mut all = TileCounts::new();
        for s in Seat::ALL {
            let h = &self.hands[s.index()];
            for (i, &c) in h.0.iter().enumerate() {
                all.0[i] += c;
            }
            for m in &self.melds[s.index()] {
                m.add_to(&mut all);
                // The meld lists the wild's face where a 白 lies (翻财神).
                if let (Some(face), 1..) = (self.white_as, m.whites) {
                    all.0[face.index()] -= m.whites;
                    all.0[Tile::WHITE.index()] += m.whites;
                }
            }
            let size = h.total() + 3 * self.melds[s.index()].len();
            let on_turn = matches!(&self.phase, Phase::Turn { seat, .. } if *seat == s)
                || matches!(&self.phase, Phase::RobKong { seat, .. } if *seat == s);
            let expected = if on_turn { 14 } else { 13 };
            if size != expected && !self.is_finished() {
                return Err(format!(
                    "{s} holds {size} tiles counting melds as 3, expected {expected}"
                ));
            }
        }
        for d in self.discards.iter().flatten().filter(|d| !d.claimed) {
            all.add(d.tile);
        }
        if let Some(t) = self.indicator {
            all.add(t);
        }
        for t in self.wall.undrawn() {
            if !t.is_flower() {
                all.add(*t);
            }
        }
        if let Some(i) = all.0.iter().position(|&c| c != 4) {
            return Err(format!(
                "{} copies of {} on the table",
                all.0[i],
                Tile::kind(i)
            ));
        }
        if let Some(r) = self
            .result
            .as_ref()
            .filter(|r| r.deltas.iter().sum::<i32>() != 0)
        {
            return Err(format!("payments {:?} do not sum to zero", r.deltas));
        }
        Ok(())
    }

    /// The concealed tiles of `seat` (for the host that owns that seat, and for tests).
    pub fn concealed(&self, seat: Seat) -> &TileCounts {
        &self.hands[seat.index()]
    }

    pub(crate) fn melds_of(&self, seat: Seat) -> &[Meld] {
        &self.melds[seat.index()]
    }

    pub(crate) fn discards_of(&self, seat: Seat) -> &[Discard] {
        &self.discards[seat.index()]
    }

    pub(crate) fn flowers_of(&self, seat: Seat) -> &[Tile] {
        &self.flowers[seat.index()]
    }

    /// The decision pending for `seat`, with its time limit and timeout action.
    pub fn decision(&self, seat: Seat) -> Option<Decision> {
        let mut d = None;
        self.decision_into(seat, &mut d);
        d
    }

    /// [`Game::decision`] written into `slot`, reusing the legal-action vector already there.
    pub(crate) fn decision_into(&self, seat: Seat, slot: &mut Option<Decision>) {
        let mut legal = slot.take().map(|d| d.legal).unwrap_or_default();
        legal.clear();
        self.legal_actions_into(seat, &mut legal);
        if legal.is_empty() {
            return;
        }
        let t = &self.setup.rules.time;
        *slot = Some(match &self.phase {
            Phase::Turn { drawn, .. } => {
                let fallback = drawn
                    .filter(|d| legal.contains(&Action::Discard(*d)))
                    .map(Action::Discard)
                    .unwrap_or_else(|| {
                        *legal
                            .iter()
                            .rev()
                            .find(|a| matches!(a, Action::Discard(_)))
                            .expect("a turn always allows a discard")
                    });
                Decision {
                    kind: DecisionKind::Turn,
                    legal,
                    limit_secs: if self.first_discard && seat == self.setup.dealer {
                        t.first_discard_secs
                    } else {
                        t.discard_secs
                    },
                    on_timeout: fallback,
                }
            }
            Phase::Claims { tile, .. } => Decision {
                kind: DecisionKind::Claim { tile: *tile },
                legal,
                limit_secs: t.claim_secs,
                on_timeout: Action::Pass,
            },
            Phase::RobKong { tile, .. } => Decision {
                kind: DecisionKind::RobKong { tile: *tile },
                legal,
                limit_secs: t.claim_secs,
                on_timeout: Action::Pass,
            },
            Phase::Finished => return,
        });
    }

    /// The seat on turn and its drawn tile, if a turn is pending.
    pub(crate) fn turn(&self) -> Option<(Seat, Option<Tile>)> {
        match &self.phase {
            Phase::Turn { seat, drawn, .. } => Some((*seat, *drawn)),
            _ => None,
        }
    }

    /// The discard under claim, if a claim window is open.
    pub(crate) fn claim_tile(&self) -> Option<(Seat, Tile)> {
        match &self.phase {
            Phase::Claims {
                discarder, tile, ..
            } => Some((*discarder, *tile)),
            Phase::RobKong { seat, tile, .. } => Some((*seat, *tile)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
