//! A seat's turn: what it may do with its drawn tile, the discard, and the next draw
//! (kong replacements from the far end, the exhausted wall).

use super::*;

impl Game {
    pub(super) fn turn_actions(
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
                    if hand.get(t) == 4 && Some(t) != self.wild && Some(t) != self.flower_tile {
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
            if self.discardable(seat, t) {
                v.push(Action::Discard(t));
            }
        }
    }

    pub(super) fn on_turn(
        &mut self,
        seat: Seat,
        action: Action,
        drawn: Option<Tile>,
        after_kong: bool,
    ) {
        let s = seat.index();
        match action {
            Action::Discard(t) if Some(t) == self.flower_tile => {
                // 补花: a flower is set aside, not discarded, and replaced from the wall.
                self.hands[s].remove(t);
                self.first_discard = false;
                self.flowers[s].push(t);
                self.events.push(Event::Flower { seat, tile: t });
                self.draw_for(seat, false);
            }
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
                self.discards[s].push(Laid {
                    tile: t,
                    claimed: false,
                });
                self.events.push(Event::Discarded {
                    seat,
                    tile: Some(t),
                    face_down: self.setup.rules.blind_discards,
                });
                if self.setup.rules.wild == WildRule::FlippedNext {
                    self.wild_state[s].paofeng = tongcheng::is_paofeng(
                        &self.hands[s],
                        self.melds[s].len(),
                        self.wild,
                        self.stand_in(),
                        self.flower_tile,
                    );
                }
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
                // 暗杠: 2 from each other seat (桐城).
                let others: [Seat; 3] = std::array::from_fn(|d| seat.after(d as u8 + 1));
                self.pay_kong(seat, &others, 2);
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

    pub(super) fn take_discard(&mut self, discarder: Seat) {
        if let Some(d) = self.discards[discarder.index()].last_mut() {
            d.claimed = true;
        }
    }

    /// After an unclaimed discard: the next seat draws, or the hand is drawn when the wall is
    /// empty (荒牌).
    pub(super) fn next_draw(&mut self, discarder: Seat) {
        if self.wall.remaining() <= self.setup.rules.dead_wall as usize {
            self.finish_draw();
        } else {
            self.draw_for(discarder.next(), false);
        }
    }

    /// Draws for `seat` (from the far end after a kong), replacing flowers from the far end.
    pub(super) fn draw_for(&mut self, seat: Seat, after_kong: bool) {
        let mut from_back = after_kong;
        // Drawing ends this seat's wild lock and its missed wins (漏胡).
        let ws = &mut self.wild_state[seat.index()];
        ws.locking = false;
        ws.passed = 0;
        ws.passed_any = false;
        ws.passed_pung = 0;
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
            self.last_drawer = seat;
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

    pub(super) fn finish_draw(&mut self) {
        self.events.push(Event::DrawGame);
        self.result = Some(HandResult {
            winner: None,
            discarder: None,
            win_tile: None,
            self_drawn: false,
            score: None,
            // 荒牌: no hand payments; kong money stands.
            deltas: self.kong_deltas,
            winners: Vec::new(),
            other_scores: Vec::new(),
            kong_deltas: self.kong_deltas,
            hands: std::array::from_fn(|i| self.hands[i].tiles()),
            melds: self.melds.clone(),
            flowers: self.flowers.clone(),
        });
        self.phase = Phase::Finished;
    }
}
