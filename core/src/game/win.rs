//! Winning: who may win on what (the minimum points, 庄三放炮, 漏胡), what a win scores under
//! the table's scorer, and settling the hand.
//!
//! A win is offered only when its score is `valid`: under Chinese Official that is the
//! 8-point minimum (起和分, `rules.mcr.min_points`, judged by the scorer); under Hangzhou,
//! 爆头 where the rules require it (below, in `hz_score`).

use super::*;

impl Game {
    pub(super) fn finish_win(
        &mut self,
        winner: Seat,
        discarder: Option<Seat>,
        tile: Tile,
        self_drawn: bool,
        score: WinScore,
    ) {
        self.finish_wins(vec![(winner, score)], discarder, tile, self_drawn);
    }

    /// Ends the hand with one or several wins (一炮多响) on `tile`, each paid by `discarder`
    /// (or by everyone on a self-draw), kong money added.
    pub(super) fn finish_wins(
        &mut self,
        wins: Vec<(Seat, WinScore)>,
        discarder: Option<Seat>,
        tile: Tile,
        self_drawn: bool,
    ) {
        let mut deltas = self.kong_deltas;
        for (winner, score) in &wins {
            let d = self.win_payments(*winner, discarder, score);
            for i in 0..4 {
                deltas[i] += d[i];
            }
        }
        let mut wins = wins.into_iter();
        let (winner, score) = wins.next().expect("at least one winner");
        let others: Vec<(Seat, WinScore)> = wins.collect();
        if !self_drawn {
            // The claimed (or robbed) tile joins the winner's hand.
            self.hands[winner.index()].add(tile);
        }
        let mut hands: [Vec<Tile>; 4] = std::array::from_fn(|i| self.hands[i].tiles());
        for (w, sc) in &others {
            // Each other winner shows the tile too (there is one copy: only in the result).
            hands[w.index()].push(tile);
            hands[w.index()].sort_unstable();
            self.events.push(Event::Won {
                seat: *w,
                from: discarder,
                tile,
                total: sc.total,
            });
        }
        self.events.push(Event::Won {
            seat: winner,
            from: discarder,
            tile,
            total: score.total,
        });
        let winners = if others.is_empty() {
            Vec::new()
        } else {
            std::iter::once(winner)
                .chain(others.iter().map(|o| o.0))
                .collect()
        };
        self.result = Some(HandResult {
            winner: Some(winner),
            discarder,
            win_tile: Some(tile),
            self_drawn,
            score: Some(score),
            deltas,
            winners,
            other_scores: others.into_iter().map(|o| o.1).collect(),
            kong_deltas: self.kong_deltas,
            hands,
            melds: self.melds.clone(),
            flowers: self.flowers.clone(),
        });
        self.phase = Phase::Finished;
    }

    /// What one win moves between the seats.
    fn win_payments(&self, winner: Seat, discarder: Option<Seat>, score: &WinScore) -> [i32; 4] {
        if self.setup.rules.tongcheng_table().is_some() {
            return tongcheng::payments(&[(winner, score.total)], discarder, self.piao());
        }
        match self.setup.rules.hangzhou_scoring() {
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
        }
    }

    /// Copies of `t` visible on the table: unclaimed discards and exposed melds.
    pub(super) fn visible(&self, t: Tile) -> usize {
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
    pub(super) fn self_draw_score(
        &self,
        seat: Seat,
        win: Tile,
        after_kong: bool,
    ) -> Option<WinScore> {
        if self.setup.rules.hangzhou_scoring().is_some() {
            return self.hz_score(seat, &self.hands[seat.index()], win, true, after_kong);
        }
        if self.setup.rules.tongcheng_table().is_some() {
            return self.tc_score(seat, &self.hands[seat.index()], true, false);
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

    pub(super) fn discard_score(
        &self,
        seat: Seat,
        tile: Tile,
        discarder: Seat,
    ) -> Option<WinScore> {
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
        if self.setup.rules.tongcheng_table().is_some() {
            if !self.tc_discard_win_allowed(seat, tile) {
                return None;
            }
            let mut with = self.hands[seat.index()];
            with.add(tile);
            if with.get(tile) > 4 {
                return None;
            }
            return self.tc_score(seat, &with, false, false);
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

    pub(super) fn rob_score(&self, seat: Seat, tile: Tile, kong_seat: Seat) -> Option<WinScore> {
        if self.setup.rules.hangzhou_scoring().is_some() {
            // Robbing a kong is a win on another's tile: the discard-win rules apply.
            return self.discard_score(seat, tile, kong_seat);
        }
        if self.setup.rules.tongcheng_table().is_some() {
            // 抢杠胡 is allowed even where discard wins are not; 漏胡 still bars it.
            let ws = &self.wild_state[seat.index()];
            if ws.passed_any || ws.passed & (1u64 << tile.index()) != 0 {
                return None;
            }
            let mut with = self.hands[seat.index()];
            with.add(tile);
            if with.get(tile) > 4 {
                return None;
            }
            return self.tc_score(seat, &with, false, true);
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
    pub(super) fn discard_win_allowed(&self, seat: Seat, tile: Tile, discarder: Seat) -> bool {
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

    /// Whether `seat` may win on a discarded `tile` under Tongcheng rules: discard wins on,
    /// not 暗牌, and no 漏胡 lock (every tile, or this one).
    fn tc_discard_win_allowed(&self, seat: Seat, tile: Tile) -> bool {
        let r = &self.setup.rules;
        let ws = &self.wild_state[seat.index()];
        r.discard_wins == DiscardWins::Any
            && !r.blind_discards
            && Some(tile) != self.wild
            && !ws.passed_any
            && ws.passed & (1u64 << tile.index()) == 0
    }

    /// Scores a Tongcheng win: `concealed` holds the winning tile.
    pub(super) fn tc_score(
        &self,
        seat: Seat,
        concealed: &TileCounts,
        self_drawn: bool,
        robbing_kong: bool,
    ) -> Option<WinScore> {
        let table = self.setup.rules.tongcheng_table()?;
        let flowers = self.flowers[seat.index()].len() as u8;
        let w = tongcheng::TcWin {
            concealed,
            melds: &self.melds[seat.index()],
            wild: self.wild,
            stand_in: self.stand_in(),
            flower: self.flower_tile,
            self_drawn,
            robbing_kong,
            flowers,
            paofeng: self_drawn && self.wild_state[seat.index()].paofeng,
        };
        let s = tongcheng::score(&w, table).ok()?;
        Some(scoring::from_tongcheng(&s, flowers))
    }

    /// 十风: the seat's first ten discards are honors and it has no meld. `Some(white)` says
    /// whether a 白 was among them.
    pub(super) fn ten_honors(&self, seat: Seat) -> Option<bool> {
        let d = &self.discards[seat.index()];
        (self.setup.rules.ten_honors
            && d.len() >= 10
            && self.melds[seat.index()].is_empty()
            && d[..10].iter().all(|x| x.tile.is_honor()))
        .then(|| d[..10].iter().any(|x| x.tile == Tile::WHITE))
    }

    /// Scores a Hangzhou win: `concealed` holds the winning tile.
    pub(super) fn hz_score(
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
    pub(super) fn evaluate(
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
}
