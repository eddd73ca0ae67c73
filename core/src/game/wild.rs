//! The wild flow (杭州 财神): which face is wild, 白 standing in for it, the lock after a
//! wild discard, and the dealer's level.

use super::*;

impl Game {
    /// The value a tile plays: under 翻财神 a 白 plays the wild's face; anything else itself.
    pub(super) fn face_of(&self, t: Tile) -> Tile {
        match self.white_as {
            Some(face) if t == Tile::WHITE => face,
            _ => t,
        }
    }

    /// Does `hand` hold a tile playing `value` naturally (not as a wild)? The wild's face is
    /// held naturally only as a 白 (翻财神).
    pub(super) fn holds_natural(&self, hand: &TileCounts, value: Tile) -> bool {
        if Some(value) == self.wild {
            self.white_as == Some(value) && hand.get(Tile::WHITE) > 0
        } else {
            hand.get(value) > 0
        }
    }

    /// Whether another seat's wild discard locks `seat` (draw and discard only).
    pub(super) fn is_locked(&self, seat: Seat) -> bool {
        self.wild_state
            .iter()
            .enumerate()
            .any(|(i, w)| w.locking && i != seat.index())
    }

    /// A kong needs its replacement tile and, with a dead wall, enough tiles left.
    pub(super) fn kong_allowed(&self) -> bool {
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
}
