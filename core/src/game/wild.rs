//! The wild flow (杭州 财神): which face is wild, 白 standing in for it, the lock after a
//! wild discard, and the dealer's level.

use super::*;

impl Game {
    /// The value a tile plays: under 翻财神 a 白 plays the wild's face; anything else itself.
    pub(super) fn face_of(&self, t: Tile) -> Tile {
        match self.white_as {
            Some(face) if t == self.stand_in => face,
            _ => t,
        }
    }

    /// Does `hand` hold a tile playing `value` naturally (not as a wild)? The wild's face is
    /// held naturally only as a 白 (翻财神).
    pub(super) fn holds_natural(&self, hand: &TileCounts, value: Tile) -> bool {
        if Some(value) == self.wild {
            self.white_as == Some(value) && hand.get(self.stand_in) > 0
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

    /// Whether `seat` may discard `t` now (apart from holding it and locks): a wild never
    /// under rules where wilds are not discarded (跑风), unless nothing else is held.
    pub(super) fn discardable(&self, seat: Seat, t: Tile) -> bool {
        if self.setup.rules.wild != WildRule::FlippedNext || Some(t) != self.wild {
            return true;
        }
        let h = &self.hands[seat.index()];
        h.total() == usize::from(h.get(t))
    }

    /// The tile that plays the wild's face and the face, under 翻财神 or 跑风.
    pub fn stand_in(&self) -> Option<(Tile, Tile)> {
        self.white_as.map(|face| (self.stand_in, face))
    }

    /// The flower tile of a 136-tile game (补花 with 发, or 跑风's flower), if any.
    pub fn flower_tile(&self) -> Option<Tile> {
        self.flower_tile
    }

    /// Whether `seat` is 跑风 (any draw wins). Public only under 明跑; hosts must not show
    /// it to other seats under 暗跑.
    pub fn is_paofeng(&self, seat: Seat) -> bool {
        self.wild_state[seat.index()].paofeng
    }

    /// Kong money paid so far this hand (桐城), per seat.
    pub fn kong_payments(&self) -> [i32; 4] {
        self.kong_deltas
    }

    /// The seat that drew last: after a drawn hand, the one that drew the wall's last tile.
    pub fn last_drawer(&self) -> Seat {
        self.last_drawer
    }

    /// Each seat's 飘 this hand.
    pub(super) fn piao(&self) -> [u8; 4] {
        match self.setup.rules.piao {
            Piao::None => [0; 4],
            Piao::Fixed(n) => [n; 4],
            Piao::Chosen(p) => p,
        }
    }

    /// Pays kong money on the spot (桐城): `from` each listed seat, `amount` to `to`.
    pub(super) fn pay_kong(&mut self, to: Seat, from: &[Seat], amount: i32) {
        if !self.setup.rules.kong_payments {
            return;
        }
        for p in from {
            self.kong_deltas[p.index()] -= amount;
            self.kong_deltas[to.index()] += amount;
        }
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
