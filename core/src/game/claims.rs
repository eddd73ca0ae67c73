//! The claim window after a discard (win beats pung and kong, pung beats chow; several wins
//! go to the first seat after the discarder, 截和), and robbing an added kong (抢杠和).

use super::*;

impl Game {
    pub(super) fn complete_added_kong(&mut self, seat: Seat, t: Tile) {
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
        // 补杠: 1 from each other seat (桐城), nothing when this seat once took the pung
        // while the exposed kong was on offer.
        if self.wild_state[s].pung_over_kong & (1u64 << t.index()) == 0 {
            let others: [Seat; 3] = std::array::from_fn(|d| seat.after(d as u8 + 1));
            self.pay_kong(seat, &others, 1);
        }
        self.first_discard = false;
        self.draw_for(seat, true);
    }

    /// Opens the claim window on `tile`, or moves on when nobody can claim it.
    pub(super) fn open_claims(&mut self, discarder: Seat, tile: Tile) {
        let last = self.wall.remaining() <= self.setup.rules.dead_wall as usize;
        let mut options: [Vec<Action>; 4] = Default::default();
        let r = &self.setup.rules;
        // A wild is never claimed; a locked seat claims nothing; under 暗牌 nothing is.
        let claimable = Some(tile) != self.wild && !r.blind_discards;
        // 明跑: while anyone is 跑风, nobody may pung.
        let paofeng_open = r.wild == WildRule::FlippedNext
            && r.paofeng == Paofeng::Open
            && self.wild_state.iter().any(|w| w.paofeng);
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
                let ws = &self.wild_state[s.index()];
                // 碰一对: one pung (a pung grown into a kong still counts) per hand.
                let pungs_used = self.setup.rules.pung_limit == PungLimit::OnePerHand
                    && self.melds[s.index()].iter().any(|m| {
                        m.kind == MeldKind::Pung || m.kind == MeldKind::Kong(KongKind::Added)
                    });
                if n >= 2
                    && !pung_limit
                    && !pungs_used
                    && !paofeng_open
                    && ws.passed_pung & (1u64 << tile.index()) == 0
                {
                    opts.push(Action::Pung);
                }
                let chow_ok = self.setup.rules.chows
                    && (!self.setup.rules.chow_from_left_only || s == discarder.next())
                    && !chow_limit;
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

    pub(super) fn rob_options(&self, kong_seat: Seat, tile: Tile) -> [Vec<Action>; 4] {
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

    pub(super) fn on_answer(&mut self, seat: Seat, action: Action) {
        // 漏胡: a discard win let go is not offered again on that tile until one's next draw.
        if let Phase::Claims { tile, options, .. } = &self.phase
            && action == Action::Pass
            && self.setup.rules.missed_win_lock
            && options[seat.index()].contains(&Action::Win)
        {
            let ws = &mut self.wild_state[seat.index()];
            ws.passed |= 1u64 << tile.index();
            ws.passed_any = self.setup.rules.missed_win_lock_all;
        }
        // 过碰: a pung let go is not offered again on that tile until one's next turn.
        if let Phase::Claims { tile, options, .. } = &self.phase {
            let opts = &options[seat.index()];
            let bit = 1u64 << tile.index();
            let ws = &mut self.wild_state[seat.index()];
            if action == Action::Pass
                && self.setup.rules.missed_pung_lock
                && opts.contains(&Action::Pung)
            {
                ws.passed_pung |= bit;
            }
            if action == Action::Pung && opts.contains(&Action::Kong) {
                ws.pung_over_kong |= bit;
            }
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
        // The window is closed: its fields are copied out (cloning the phase would copy every
        // seat's option list once per discard).
        match self.phase {
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
                let robbers = self.winners_of(kong_seat, &answers);
                if robbers.is_empty() {
                    self.complete_added_kong(kong_seat, tile);
                } else {
                    let wins: Vec<(Seat, WinScore)> = robbers
                        .into_iter()
                        .map(|r| (r, self.rob_score(r, tile, kong_seat).expect("offered")))
                        .collect();
                    // The robbed tile leaves the declarer's hand; his pung stays a pung.
                    self.hands[kong_seat.index()].remove(tile);
                    self.finish_wins(wins, Some(kong_seat), tile, false);
                }
            }
            _ => unreachable!(),
        }
    }

    /// Win beats pung and kong, which beat chow; among several wins the first seat after the
    /// discarder takes it (截和).
    pub(super) fn resolve_claims(
        &mut self,
        discarder: Seat,
        tile: Tile,
        answers: [Option<Action>; 4],
    ) {
        let in_order: Vec<Seat> = (1..4).map(|d| discarder.after(d)).collect();
        let by = |want: fn(&Action) -> bool| {
            in_order
                .iter()
                .copied()
                .find(|s| answers[s.index()].as_ref().is_some_and(want))
        };
        let winners = self.winners_of(discarder, &answers);
        if !winners.is_empty() {
            let wins: Vec<(Seat, WinScore)> = winners
                .into_iter()
                .map(|w| (w, self.discard_score(w, tile, discarder).expect("offered")))
                .collect();
            self.take_discard(discarder);
            self.finish_wins(wins, Some(discarder), tile, false);
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
                // 明杠 on a discard: 3 from the discarder (桐城).
                self.pay_kong(s, &[discarder], 3);
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

    /// The seats that answered a win, in turn order from `from`: all of them under 一炮多响,
    /// else the first (截和).
    fn winners_of(&self, from: Seat, answers: &[Option<Action>; 4]) -> Vec<Seat> {
        let mut v: Vec<Seat> = (1..4)
            .map(|d| from.after(d))
            .filter(|s| answers[s.index()] == Some(Action::Win))
            .collect();
        if !self.setup.rules.multiple_winners {
            v.truncate(1);
        }
        v
    }

    /// A claim ends the claimer's wild lock and 财飘 run; a kong on a discard extends the kong
    /// run, a chow or pung breaks it.
    pub(super) fn after_claim(&mut self, s: Seat, kong: bool) {
        let ws = &mut self.wild_state[s.index()];
        ws.locking = false;
        ws.passed_pung = 0;
        ws.piao = 0;
        ws.kongs = if kong { ws.kongs.saturating_add(1) } else { 0 };
    }
}
