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

mod claims;
mod deal;
pub mod events;
mod follow;
mod matches;
mod scoring;
mod turn;
mod wild;
mod win;

pub use events::{Decision, DecisionKind, Event, SeatView, TableMeld};
pub use matches::{HandSummary, Match, PiaoError};
pub use scoring::{FanLine, Scorer, WinScore};

use serde::{Deserialize, Serialize};

use crate::hand::{KongKind, Meld, MeldKind, is_complete_counts};
use crate::rules::{DiscardWins, Paofeng, Piao, PungLimit, RuleSet, Takings, WildRule};
use crate::score::{hangzhou, tongcheng};
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

/// A discard as a seat sees it on the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Discard {
    /// `None` for another seat's discard laid face down (暗牌); on the wire `"tile": null`.
    pub tile: Option<Tile>,
    /// Taken by another seat into a meld (shown there instead).
    pub claimed: bool,
}

/// A discard as the engine keeps it: always with its tile (views hide it under 暗牌).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Laid {
    pub(crate) tile: Tile,
    pub(crate) claimed: bool,
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
    /// Score change per seat; sums to zero. Kong money paid during the hand is included.
    pub deltas: [i32; 4],
    /// 一炮多响: every winner, in turn order from the discarder, when several won on one
    /// tile (the first is `winner`, priced by `score`); empty for one winner or none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub winners: Vec<Seat>,
    /// The breakdowns of `winners` after the first, in the same order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_scores: Vec<WinScore>,
    /// Kong money paid on the spot (桐城), per seat; already part of `deltas`.
    #[serde(default, skip_serializing_if = "is_zero4")]
    pub kong_deltas: [i32; 4],
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

fn is_zero4(d: &[i32; 4]) -> bool {
    *d == [0; 4]
}

impl HandResult {
    /// Every winner: `winners` when several won on one tile, else `winner`.
    pub fn all_winners(&self) -> Vec<Seat> {
        if self.winners.is_empty() {
            self.winner.into_iter().collect()
        } else {
            self.winners.clone()
        }
    }

    /// The breakdown of `seat`'s win, if it won.
    pub fn score_of(&self, seat: Seat) -> Option<&WinScore> {
        if self.winner == Some(seat) {
            return self.score.as_ref();
        }
        let i = self.winners.iter().skip(1).position(|&w| w == seat)?;
        self.other_scores.get(i)
    }

    /// Whether `seat` won this hand (alone or with others, 一炮多响).
    pub fn is_winner(&self, seat: Seat) -> bool {
        self.winner == Some(seat) || self.winners.contains(&seat)
    }
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
    /// 漏胡 (all tiles): passed a discard win since the last own draw.
    passed_any: bool,
    /// 过碰: kinds passed as a pung since the last own turn, one bit per kind.
    passed_pung: u64,
    /// Kinds pung-claimed while an exposed kong was offered: adding to them pays nothing.
    pung_over_kong: u64,
    /// 跑风: after the last discard any draw wins (a wild holds half a pair).
    paofeng: bool,
}

/// One hand in progress (or finished).
#[derive(Clone, Debug)]
pub struct Game {
    setup: HandSetup,
    wall: Wall,
    hands: [TileCounts; 4],
    melds: [Vec<Meld>; 4],
    discards: [Vec<Laid>; 4],
    flowers: [Vec<Tile>; 4],
    /// The wild kind, if the rules have wilds.
    wild: Option<Tile>,
    /// 翻财神: the turned-up tile (out of play), and the face the stand-in plays as.
    indicator: Option<Tile>,
    white_as: Option<Tile>,
    /// The tile that plays the wild's face: 白 (Hangzhou 翻财神) or 中 (跑风).
    stand_in: Tile,
    /// The flower tile of a 136-tile game (补花 with 发; 跑风's flower): discarding it sets
    /// it aside and draws a replacement; a hand holding it cannot win.
    flower_tile: Option<Tile>,
    /// Kong money paid so far (桐城), per seat.
    kong_deltas: [i32; 4],
    /// The seat that drew last (after a drawn hand it deals next under Tongcheng rules).
    last_drawer: Seat,
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

    /// Deals from a wall in the given drawing order instead of the seed's shuffle (the seed
    /// still rolls any dice). For a seat that rebuilds a hand it saw only part of — a
    /// Botzone bot knows its own tiles and what was shown, and fills the rest consistently —
    /// so its view, legal actions included, come from the engine itself. The order must hold
    /// exactly one full set of the rules' tiles.
    pub fn with_wall_order(setup: HandSetup, order: Vec<Tile>) -> Result<Game, String> {
        let mut want = Wall::full_set(setup.rules.flowers);
        let mut got = order.clone();
        want.sort_unstable();
        got.sort_unstable();
        if want != got {
            return Err(format!(
                "a wall must hold one full set of {} tiles ({} given, or the kinds differ)",
                want.len(),
                order.len()
            ));
        }
        Ok(Game::with_wall(setup, Wall::from_order(order)))
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
                    && self.discardable(seat, t)
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

    /// What `seat` may see: its own tiles, the table, and its own decision.
    pub fn view(&self, seat: Seat) -> SeatView {
        events::view(self, seat)
    }

    /// Rewrites `view` as `seat`'s view now, reusing its vectors (no allocation once they
    /// have grown): for hosts and arenas that ask for a view at every decision.
    pub fn view_into(&self, seat: Seat, view: &mut SeatView) {
        events::refresh_view(self, seat, view)
    }

    /// [`Game::view_into`] without the pending decision, which the caller fills in.
    pub(crate) fn view_into_but_decision(&self, seat: Seat, view: &mut SeatView) {
        events::refresh_view_but_decision(self, seat, view)
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
                    all.0[self.stand_in.index()] += m.whites;
                }
            }
            // Honor tiles set aside as flowers (补花 with 发) are tiles of the set.
            for f in self.flowers[s.index()].iter().filter(|f| !f.is_flower()) {
                all.add(*f);
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
        if self.kong_deltas.iter().sum::<i32>() != 0 {
            return Err(format!(
                "kong money {:?} does not sum to zero",
                self.kong_deltas
            ));
        }
        if let Some(r) = self
            .result
            .as_ref()
            .filter(|r| r.kong_deltas != self.kong_deltas)
        {
            return Err(format!(
                "the result's kong money {:?} is not the hand's {:?}",
                r.kong_deltas, self.kong_deltas
            ));
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

    pub(crate) fn discards_of(&self, seat: Seat) -> &[Laid] {
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
