//! A match: a sequence of hands with the prevalent wind, the deal and the seats following the
//! rule set, and running scores.
//!
//! Chinese Official rules: four rounds (East, South, West, North prevalent wind) of four hands;
//! the deal passes after every hand (庄家不连庄), so a match is 16 hands. With
//! [`DealerRule::WinnerDeals`] the dealer keeps the deal on his win or a draw and otherwise the
//! winner deals; with [`DealerRule::WinnerOrLastDraw`] (桐城) the winner deals, the
//! discarder after several wins on one discard and the last drawer after a drawn hand; the
//! round changes after the deal has moved `hands_per_round` times. With
//! `seat_rotation` (轮转) every player moves one seat on at each new round.

use serde::{Deserialize, Serialize};

use super::{Action, Game, GameError, HandResult, HandSetup};
use crate::rules::{DealerRule, MAX_PIAO, Piao, RuleSet};
use crate::seat::{Seat, Wind};
use crate::wall::Seed;

/// One finished hand of a match, as the standings see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandSummary {
    pub index: u32,
    pub dealer: Seat,
    pub prevalent: Wind,
    /// Which seat each player sat in.
    pub seating: [Seat; 4],
    pub result: HandResult,
}

/// Why a 飘 choice was refused; the hand is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PiaoError {
    #[error("these rules have no 飘 chosen each hand")]
    NotChosenEachHand,
    #[error("飘 {0} (at most {MAX_PIAO})")]
    TooHigh(u8),
    #[error("飘 is chosen before the hand's first action")]
    HandStarted,
}

/// A match in progress.
#[derive(Clone, Debug)]
pub struct Match {
    rules: RuleSet,
    seed: Seed,
    hand_index: u32,
    dealer: Seat,
    /// The dealer's level (老庄) for the next hand; 0: a new dealer at the start level.
    dealer_level: u8,
    deal_moves: u32,
    round: u8,
    /// `seating[p]` is the seat of player `p`.
    seating: [Seat; 4],
    /// Running score per player.
    scores: [i32; 4],
    history: Vec<HandSummary>,
    game: Game,
    finished: bool,
    /// A one-hand "match" ([`Match::single`]): over once its hand is booked.
    one_hand: bool,
}

impl Match {
    /// A new match; player `p` starts in seat `p`, seat 0 deals first.
    pub fn new(rules: RuleSet, seed: Seed) -> Match {
        let game = Game::new(HandSetup {
            rules: rules.clone(),
            seed: seed.derive(0),
            dealer: Seat(0),
            prevalent: Wind::East,
            dealer_level: 0,
        });
        Match {
            rules,
            seed,
            hand_index: 0,
            dealer: Seat(0),
            dealer_level: 0,
            deal_moves: 0,
            round: 0,
            seating: Seat::ALL,
            scores: [0; 4],
            history: Vec::new(),
            game,
            finished: false,
            one_hand: false,
        }
    }

    /// One hand dealt from `setup`, hosted like a match of one (the arena, the soak, tests).
    pub fn single(setup: HandSetup) -> Match {
        Match {
            rules: setup.rules.clone(),
            seed: setup.seed,
            hand_index: 0,
            dealer: setup.dealer,
            dealer_level: setup.dealer_level,
            deal_moves: 0,
            round: setup.prevalent.index() as u8,
            seating: Seat::ALL,
            scores: [0; 4],
            history: Vec::new(),
            game: Game::new(setup),
            finished: false,
            one_hand: true,
        }
    }

    /// The hand being played (or just finished).
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The hand being played (or just finished), the match given up: for a host of one hand
    /// that keeps the game ([`crate::bot::play_simple_hand`]) rather than copying it.
    pub fn into_game(self) -> Game {
        self.game
    }

    /// Deals the current hand again from `seed`, before anyone has acted: an online host
    /// deals each hand from the seed its players helped make (see [`crate::fair`]) rather
    /// than from the match seed. False, and nothing changes, once the hand has an action.
    pub fn redeal(&mut self, seed: Seed) -> bool {
        if !self.game.actions().is_empty() || self.game.is_finished() {
            return false;
        }
        let setup = HandSetup {
            seed,
            ..self.game.setup().clone()
        };
        self.game = Game::new(setup);
        true
    }

    /// Records the 飘 that `seat` chose for the current hand, before anyone has acted, under
    /// rules with 飘 chosen each hand. The choice goes into the hand's setup (so its record
    /// replays with it) and lasts this hand only; the next hand starts at 0 again.
    pub fn choose_piao(&mut self, seat: Seat, piao: u8) -> Result<(), PiaoError> {
        let Piao::Chosen(mut chosen) = self.game.rules().piao else {
            return Err(PiaoError::NotChosenEachHand);
        };
        if piao > MAX_PIAO {
            return Err(PiaoError::TooHigh(piao));
        }
        if !self.game.actions().is_empty() || self.game.is_finished() {
            return Err(PiaoError::HandStarted);
        }
        chosen[seat.index()] = piao;
        let mut setup = self.game.setup().clone();
        setup.rules.piao = Piao::Chosen(chosen);
        self.game = Game::new(setup);
        Ok(())
    }

    /// Plays an action in the current hand.
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<(), GameError> {
        self.game.apply(seat, action)
    }

    /// Running scores per player.
    pub fn scores(&self) -> [i32; 4] {
        self.scores
    }

    /// The seat of each player in the current hand.
    pub fn seating(&self) -> [Seat; 4] {
        self.seating
    }

    /// The player sitting in `seat` now.
    pub fn player_at(&self, seat: Seat) -> usize {
        self.seating
            .iter()
            .position(|&s| s == seat)
            .expect("every seat is taken")
    }

    pub fn history(&self) -> &[HandSummary] {
        &self.history
    }

    /// Hands played so far (finished ones).
    pub fn hands_played(&self) -> usize {
        self.history.len()
    }

    /// 0-based index of the current hand.
    pub fn hand_index(&self) -> u32 {
        self.hand_index
    }

    pub fn prevalent(&self) -> Wind {
        Wind::from_index(self.round as usize)
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Players ranked by score, best first (ties: lower player number first).
    pub fn standings(&self) -> Vec<(usize, i32)> {
        let mut v: Vec<(usize, i32)> = self.scores.iter().copied().enumerate().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }

    /// Books the finished hand and deals the next one; returns false (and does nothing) while
    /// the hand is still being played, and once the match is over.
    pub fn next_hand(&mut self) -> bool {
        let Some(result) = self.game.result().cloned() else {
            return false;
        };
        if self.finished {
            return false;
        }
        for p in 0..4 {
            self.scores[p] += result.deltas[self.seating[p].index()];
        }
        self.history.push(HandSummary {
            index: self.hand_index,
            dealer: self.dealer,
            prevalent: self.prevalent(),
            seating: self.seating,
            result: result.clone(),
        });
        let moved = match self.rules.dealer {
            DealerRule::AlwaysPass => {
                self.dealer = self.dealer.next();
                true
            }
            DealerRule::WinnerDeals => match result.winner {
                Some(w) if w != self.dealer => {
                    self.dealer = w;
                    true
                }
                _ => false,
            },
            DealerRule::WinnerOrLastDraw => {
                // The winner; several winners: the discarder; a draw: who drew the last tile.
                let next = match (result.winner, result.winners.len() > 1) {
                    (Some(_), true) => result.discarder.unwrap_or(self.dealer),
                    (Some(w), false) => w,
                    (None, _) => self.game.last_drawer(),
                };
                let moved = next != self.dealer;
                self.dealer = next;
                moved
            }
        };
        // Dealer levels: the dealer who keeps the deal (own win or a draw) goes up one level,
        // up to the cap; a new dealer starts again at the start level.
        self.dealer_level = if moved || self.rules.dealer_max_level == 0 {
            0
        } else {
            (self.game.dealer_level() + 1).min(self.rules.dealer_max_level)
        };
        if moved {
            self.deal_moves += 1;
            if self
                .deal_moves
                .is_multiple_of(self.rules.hands_per_round as u32)
            {
                self.round += 1;
                if self.rules.seat_rotation {
                    self.seating = self.seating.map(|s| s.next());
                }
            }
        }
        // A cap keeps a dealer who never loses from playing forever.
        let cap = 4 * self.rules.rounds as u32 * self.rules.hands_per_round as u32;
        self.hand_index += 1;
        if self.one_hand || self.round >= self.rules.rounds || self.hand_index >= cap {
            self.finished = true;
            return false;
        }
        self.game = Game::new(HandSetup {
            rules: self.rules.clone(),
            seed: self.seed.derive(self.hand_index as u64),
            dealer: self.dealer,
            prevalent: self.prevalent(),
            dealer_level: self.dealer_level,
        });
        true
    }
}
