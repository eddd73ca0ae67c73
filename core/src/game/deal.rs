//! The deal: the wall is shuffled and cut, 13 tiles each (the dealer 14), flowers replaced
//! from the far end, the wild turned up (翻财神) and the dealer's dice (笃老).

use super::*;

impl Game {
    pub(super) fn with_wall(setup: HandSetup, wall: Wall) -> Game {
        let mut g = Game {
            wall,
            hands: [TileCounts::new(); 4],
            melds: Default::default(),
            discards: Default::default(),
            flowers: Default::default(),
            wild: None,
            indicator: None,
            white_as: None,
            stand_in: Tile::WHITE,
            flower_tile: None,
            kong_deltas: [0; 4],
            last_drawer: setup.dealer,
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
    pub(super) fn roll_dice(&self) -> Option<[u8; 2]> {
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

    /// The dice rolled for the dealer's starting level (笃老), if the rules roll them.
    pub fn dice(&self) -> Option<[u8; 2]> {
        self.dice
    }

    pub(super) fn deal(&mut self) {
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
            WildRule::FlippedNext => {
                // Turned up from the front (it leaves play): the next face is wild.
                let t = self.wall.draw().expect("a fresh wall has tiles");
                let (wild, stand_in, flower) = tongcheng::paofeng_tiles(t);
                self.indicator = Some(t);
                self.wild = Some(wild);
                if let Some((by, face)) = stand_in {
                    self.stand_in = by;
                    self.white_as = Some(face);
                }
                self.flower_tile = Some(flower);
            }
        }
        if self.setup.rules.green_flowers && self.flower_tile.is_none() {
            self.flower_tile = Some(Tile::GREEN);
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
}
