//! A seat's view carried forward by the events it is shown: an online client has the view
//! the server sent with its last decision (or snapshot), and between decisions it sees only
//! events — the others' draws, discards and melds. [`SeatView::follow`] applies one, so a
//! table drawn from the view is never behind what was shown, without the server sending a
//! whole view with every event.
//!
//! What follows carries the table's public side, the seat's own tiles, whose turn it is and
//! the discard under claim. The pending decision is dropped (the next one brings its own
//! view), and what only the engine decides — a wild's lock, who is 跑风 — waits for that
//! view too.

use super::Discard;
use super::events::{Event, SeatView, TableMeld};
use crate::describe::meld_tiles_laid;
use crate::hand::{KongKind, MeldKind};
use crate::seat::Seat;
use crate::tile::Tile;

impl SeatView {
    /// Applies `event`, as this seat was shown it (see [`Event::for_seat`]).
    pub fn follow(&mut self, event: &Event) {
        self.decision = None;
        match event {
            Event::DiceRolled { level, .. } => self.dealer_level = *level,
            // Views are sent after the deal: nothing to carry.
            Event::Dealt { .. } => {}
            Event::Drew { seat, tile, .. } => {
                self.wall_remaining = self.wall_remaining.saturating_sub(1);
                self.public(*seat, |p| p.concealed_count += 1);
                if *seat == self.seat
                    && let Some(t) = tile
                    && let Some(d) = self.drawn.replace(*t)
                {
                    self.hand.push(d);
                    self.hand.sort_unstable();
                }
                self.turn = Some(*seat);
                self.claim = None;
            }
            Event::Flower { seat, tile } => {
                self.public(*seat, |p| {
                    p.flowers.push(*tile);
                    p.concealed_count = p.concealed_count.saturating_sub(1);
                });
                if *seat == self.seat {
                    self.take_own(&[*tile]);
                }
            }
            Event::Discarded { seat, tile, .. } => {
                self.public(*seat, |p| {
                    p.discards.push(Discard {
                        tile: *tile,
                        claimed: false,
                    });
                    p.concealed_count = p.concealed_count.saturating_sub(1);
                });
                if *seat == self.seat
                    && let Some(t) = tile
                {
                    self.take_own(&[*t]);
                }
                self.turn = None;
                self.claim = tile.map(|t| (*seat, t));
            }
            Event::Claimed { seat, from, meld } => {
                self.public(*from, |p| {
                    if let Some(d) = p.discards.last_mut() {
                        d.claimed = true;
                    }
                });
                let from_hand = self.meld_from_hand(meld);
                self.public(*seat, |p| {
                    p.melds.push(*meld);
                    p.concealed_count = p.concealed_count.saturating_sub(from_hand.len());
                });
                if *seat == self.seat {
                    self.take_own(&from_hand);
                }
                self.turn = Some(*seat);
                self.claim = None;
            }
            Event::Kong { seat, meld } => {
                let added = meld.kind == MeldKind::Kong(KongKind::Added);
                let mut from_hand = if added {
                    Vec::new()
                } else {
                    self.meld_from_hand(meld)
                };
                self.public(*seat, |p| {
                    let pung = added
                        .then(|| {
                            p.melds
                                .iter()
                                .position(|m| m.kind == MeldKind::Pung && m.tile == meld.tile)
                        })
                        .flatten();
                    match pung {
                        Some(i) => {
                            // The added tile: a 白 when the kong has one more than the pung.
                            let white = meld.whites > p.melds[i].whites;
                            from_hand = match (white, meld.tile) {
                                (true, _) => vec![Tile::WHITE],
                                (false, Some(t)) => vec![t],
                                (false, None) => Vec::new(),
                            };
                            p.melds[i] = *meld;
                            p.concealed_count = p.concealed_count.saturating_sub(1);
                        }
                        None => {
                            p.melds.push(*meld);
                            // A concealed kong: four tiles, whose faces others are not shown.
                            p.concealed_count = p.concealed_count.saturating_sub(4);
                        }
                    }
                });
                if *seat == self.seat {
                    self.take_own(&from_hand);
                }
                self.turn = Some(*seat);
                self.claim = None;
            }
            Event::AddingKong { seat, tile } => {
                self.turn = None;
                self.claim = Some((*seat, *tile));
            }
            Event::Won {
                seat,
                from: Some(from),
                tile,
                ..
            } => {
                // Won on a discard (or a robbed kong): the tile joins the winner's hand, and
                // a discard is shown taken.
                self.public(*from, |p| {
                    if let Some(d) = p.discards.last_mut().filter(|d| d.tile == Some(*tile)) {
                        d.claimed = true;
                    }
                });
                self.public(*seat, |p| p.concealed_count += 1);
                if *seat == self.seat {
                    self.hand.push(*tile);
                    self.hand.sort_unstable();
                }
                self.finished = true;
                self.turn = None;
                self.claim = None;
            }
            Event::Won { .. } | Event::DrawGame => {
                self.finished = true;
                self.turn = None;
                self.claim = None;
            }
        }
    }

    fn public(&mut self, seat: Seat, f: impl FnOnce(&mut super::events::SeatPublic)) {
        if let Some(p) = self.seats.get_mut(seat.index()) {
            f(p);
        }
    }

    /// The tiles of `meld` that came from its owner's hand: all but the claimed one.
    fn meld_from_hand(&self, meld: &TableMeld) -> Vec<Tile> {
        let mut tiles = meld_tiles_laid(meld, self.wild);
        if let Some(c) = meld.claimed
            && let Some(i) = tiles.iter().position(|&t| t == c)
        {
            tiles.remove(i);
        }
        tiles
    }

    /// Takes `tiles` out of the seat's own concealed tiles (the drawn one first); what is
    /// left of the drawn tile joins the hand, as after any move but a draw.
    fn take_own(&mut self, tiles: &[Tile]) {
        for &t in tiles {
            if self.drawn == Some(t) {
                self.drawn = None;
            } else if let Some(i) = self.hand.iter().position(|&h| h == t) {
                self.hand.remove(i);
            }
        }
        if let Some(d) = self.drawn.take() {
            self.hand.push(d);
            self.hand.sort_unstable();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::SimplePlayer;
    use crate::game::{Game, HandSetup};
    use crate::rules::RuleSet;
    use crate::seat::Wind;
    use crate::wall::Seed;

    /// What [`SeatView::follow`] carries, for comparison. Once the hand is over the drawn
    /// tile is one of the hand's (the engine shows it apart after some wins, not others).
    fn carried(v: &SeatView) -> impl PartialEq + std::fmt::Debug + '_ {
        let mut own = v.hand.clone();
        let mut drawn = v.drawn;
        if v.finished {
            own.extend(drawn.take());
            own.sort_unstable();
        }
        (
            (own, drawn, &v.seats, v.wall_remaining),
            (v.turn, v.claim, v.finished, v.dealer_level),
        )
    }

    /// Every seat's view, followed event by event from the first view after the deal, is
    /// the engine's own view after every move, over random hands of every preset.
    #[test]
    fn a_followed_view_is_the_engines_view_after_every_move() {
        let mut moves = 0;
        for preset in RuleSet::preset_names() {
            let rules = RuleSet::preset(preset).unwrap();
            for i in 0..60u64 {
                let mut g = Game::new(HandSetup {
                    rules: rules.clone(),
                    seed: Seed::from_u64(i),
                    dealer: Seat((i % 4) as u8),
                    prevalent: Wind::East,
                    dealer_level: 0,
                });
                let mut players: [SimplePlayer; 4] =
                    std::array::from_fn(|k| SimplePlayer::new(i * 4 + k as u64));
                let mut views: Vec<SeatView> = Seat::ALL.iter().map(|&s| g.view(s)).collect();
                let mut seen = g.events().len();
                while !g.is_finished() {
                    let s = g.pending_seats()[0];
                    let a = players[s.index()].pick(&g.legal_actions(s));
                    g.apply(s, a).unwrap();
                    moves += 1;
                    for (viewer, v) in Seat::ALL.into_iter().zip(views.iter_mut()) {
                        for e in &g.events()[seen..] {
                            v.follow(&e.for_seat(viewer));
                        }
                        let engine = g.view(viewer);
                        assert_eq!(
                            carried(v),
                            carried(&engine),
                            "{preset} hand {i}, seat {viewer:?}, after {:?}",
                            &g.events()[seen..]
                        );
                    }
                    seen = g.events().len();
                }
            }
        }
        assert!(moves > 1000, "{moves} moves");
    }
}
