//! Playing a hand: the people's messages, their answers, and stepping the core table at the
//! process's time. The decision clock is the table's: this only passes the time in, says who
//! is away and tells people what the table did.
//!
//! The pause after a discard: claim decisions go only to seats that may claim, so without it
//! the table moved on within a millisecond unless someone could claim, and a person's thinking
//! time told the others that he could. When a person sits at the table, after every discard
//! the table waits a floor plus a random jitter before it moves on (no bot or stand-in moves,
//! and the people see nothing after the discard but their claim decisions), whoever may claim:
//! a pass within that time looks like nobody could. A longer thought still shows, as it does
//! at a real table.

use tongcheng_core::game::{Action, Event};
use tongcheng_core::protocol::{ClientMsg, ErrorCode, ServerMsg, decision_id, seat_events};
use tongcheng_core::table::{Mover, Step};

use super::super::clock;
use super::{Phase, TableTask};
use crate::store::Think;

/// A pause after the discard at event `through - 1`: events from `through` on, and the
/// decisions they bring, wait until `until_ms`.
#[derive(Clone, Copy, Debug)]
pub(super) struct ClaimPause {
    until_ms: u64,
    through: usize,
}

impl TableTask {
    pub(super) fn message(&mut self, p: usize, msg: ClientMsg) {
        match msg {
            ClientMsg::Join { .. } => {
                self.slots[p].error(ErrorCode::AlreadyJoined, "already at this table");
            }
            ClientMsg::Ping { nonce } => self.slots[p].send(ServerMsg::Pong { nonce }.to_json()),
            ClientMsg::Contribute { hand, contribution } => {
                let s = &mut self.slots[p];
                // The hand in play was dealt without this seat (a contribution it had sent
                // would be kept): say so, rather than the general refusal.
                let dealt_without = hand == self.hand
                    && matches!(self.phase, Phase::Staking | Phase::Playing | Phase::Saving)
                    && s.contribution.is_none();
                if dealt_without {
                    s.error(
                        ErrorCode::BadContribution,
                        format!(
                            "too late: hand {hand} was dealt without your contribution (it \
                             came after the {} ms the table waits)",
                            self.config.contribute_ms
                        ),
                    );
                } else if self.phase != Phase::Contributing
                    || hand != self.hand
                    || s.contribution.is_some()
                {
                    s.error(
                        ErrorCode::BadContribution,
                        format!("no contribution is expected for hand {hand} now"),
                    );
                } else {
                    s.contribution = Some(contribution);
                }
            }
            ClientMsg::Piao { hand, stake } => self.piao(p, hand, stake),
            ClientMsg::Ready => self.slots[p].ready = true,
            ClientMsg::AutoPlay { on } => self.auto_play(p, on),
            ClientMsg::Leave => {
                let s = &mut self.slots[p];
                s.conn = None;
            }
            ClientMsg::Act { decision, action } => self.act(p, decision, action),
            // The connection answers it: no table's business.
            ClientMsg::NextTable { .. } => {}
        }
    }

    /// The person's 托管 switch. A barred seat stays on 托管 whatever he asks.
    fn auto_play(&mut self, p: usize, on: bool) {
        if let Some((code, why)) = &self.slots[p].barred {
            let (code, why) = (*code, why.clone());
            return self.slots[p].error(code, why);
        }
        let Some(table) = self.table.as_mut() else {
            return self.slots[p].error(ErrorCode::StaleDecision, "no hand is being played");
        };
        if table.set_auto_play(p, on) {
            self.slots[p].push(|seq| ServerMsg::AutoPlay { seq, on });
        }
    }

    fn act(&mut self, p: usize, id: u64, action: Action) {
        let Some(table) = self.table.as_mut() else {
            return self.slots[p].error(ErrorCode::StaleDecision, "no hand is being played");
        };
        if self.phase != Phase::Playing {
            return self.slots[p].error(ErrorCode::StaleDecision, "no hand is being played");
        }
        if let Some((code, why)) = &self.slots[p].barred {
            // A sanctioned player's seat stays on 托管: his answers change nothing.
            let (code, why) = (*code, why.clone());
            return self.slots[p].error(code, why);
        }
        // A person on 托管 who answers is back, even when the stand-in already played the
        // decision they answer (it plays at once, so it usually has).
        if table.set_auto_play(p, false) {
            self.slots[p].push(|seq| ServerMsg::AutoPlay { seq, on: false });
        }
        let pending = table.decision(p).is_some();
        let current = self.slots[p].decision_sent.filter(|_| pending);
        match current {
            Some(cur) if cur == id => {
                let now = clock::now_ms();
                if let Err(e) = table.act(p, action, now) {
                    return self.slots[p].error(ErrorCode::IllegalAction, e.to_string());
                }
                self.slots[p].decision_sent = None;
                // The think time, keyed as the record is replayed: the seat and the events
                // the hand had when the decision was made (the id's low half).
                let ms = now.saturating_sub(self.slots[p].decision_at);
                self.think.push(Think {
                    seat: table.seat_of(p).0,
                    at: (id & 0xFFFF_FFFF) as u32,
                    ms: u32::try_from(ms).unwrap_or(u32::MAX),
                });
                self.pause_after_discard(now);
            }
            _ => self.slots[p].error(
                ErrorCode::StaleDecision,
                format!("decision {id} is not pending (late, or already answered)"),
            ),
        }
    }

    /// Steps the table once at the time now (a bot's move, a stand-in's, a timeout) and
    /// sends people the new events and decisions. True when something changed (call again);
    /// false when the table waits for people, until the time it must be stepped again.
    pub(super) fn play_on(&mut self) -> bool {
        let now = clock::now_ms();
        if let Some(pause) = self.pause {
            if now < pause.until_ms {
                self.flush(now);
                self.wake_ms = Some(pause.until_ms);
                return false;
            }
            self.pause = None;
        }
        let Some(t) = self.table.as_mut() else {
            return false;
        };
        // Who is away: their seats are played by the stand-in at once.
        for (p, s) in self.slots.iter().enumerate() {
            if s.person() {
                t.set_away(p, !s.connected());
            }
        }
        match t.step(now) {
            Step::HandOver => {
                self.flush(now);
                self.end_hand();
                true
            }
            Step::Acted { seat, by, .. } => {
                if by == (Mover::Timeout { auto_play: true }) {
                    let p = t.player_at(seat);
                    self.slots[p].push(|seq| ServerMsg::AutoPlay { seq, on: true });
                }
                self.pause_after_discard(now);
                self.flush(now);
                true
            }
            Step::Waiting { deadline_ms } => {
                self.flush(now);
                // A stand-in due now moves at once (after its person was sent the decision).
                if deadline_ms.is_some_and(|at| at <= now) {
                    return true;
                }
                self.wake_ms = deadline_ms;
                false
            }
        }
    }

    /// Starts a pause when the hand has a discard not yet looked at and a person sits at
    /// the table (bots need no hiding from each other).
    fn pause_after_discard(&mut self, now: u64) {
        let Some(t) = self.table.as_ref() else {
            return;
        };
        let events = t.game().events();
        let from = self.pause_checked.min(events.len());
        self.pause_checked = events.len();
        let Some(d) = events[from..]
            .iter()
            .rposition(|e| matches!(e, Event::Discarded { .. }))
            .map(|i| from + i)
        else {
            return;
        };
        let (floor, spread) = (self.config.claim_pause_ms, self.config.claim_jitter_ms);
        if floor + spread == 0 || !self.slots.iter().any(|s| s.person()) {
            return;
        }
        // xorshift64: uniform enough for a delay, and seeded from the OS.
        self.jitter ^= self.jitter << 13;
        self.jitter ^= self.jitter >> 7;
        self.jitter ^= self.jitter << 17;
        let until_ms = now + floor + self.jitter % (spread + 1);
        self.pause = Some(ClaimPause {
            until_ms,
            through: d + 1,
        });
    }

    /// Sends each person the events they have not had and their new decision, with the time
    /// the table gives them for it (none when their seat's stand-in plays it). During a
    /// pause, nothing after the discard goes out but the claims on it.
    fn flush(&mut self, now: u64) {
        let Some(t) = self.table.as_ref() else {
            return;
        };
        let hand = self.hand;
        let game = t.game();
        let shown = self.pause.map_or(usize::MAX, |p| p.through);
        // People shown a hand's first events with no decision to carry their view: they are
        // sent a snapshot, and follow the events from there (`SeatView::follow`).
        let mut dealt_in = Vec::new();
        for (p, s) in self.slots.iter_mut().enumerate() {
            if !s.person() {
                continue;
            }
            let seat = t.seat_of(p);
            let first = s.sent_events == 0;
            for (index, event) in seat_events(game, seat, s.sent_events) {
                if index as usize >= shown {
                    break;
                }
                s.push(|seq| ServerMsg::Event {
                    seq,
                    hand,
                    index,
                    event,
                });
            }
            s.sent_events = game.events().len().min(shown);
            if game.events().len() > shown {
                // The hand went on past the discard (the claims were passed): that waits too.
                continue;
            }
            let Some(decision) = t.decision(p) else {
                s.decision_sent = None;
                if first && s.sent_events > 0 {
                    dealt_in.push(p);
                }
                continue;
            };
            let id = decision_id(hand, game.events().len());
            if s.decision_sent == Some(id) {
                continue;
            }
            s.decision_sent = Some(id);
            s.decision_at = now;
            let view = Box::new(t.view(p));
            let deadline_ms = t.remaining_ms(p, now);
            s.push(|seq| ServerMsg::Decision {
                seq,
                hand,
                id,
                decision,
                view,
                deadline_ms,
            });
        }
        for p in dealt_in {
            let snapshot = self.snapshot(p);
            self.slots[p].send(snapshot);
        }
    }
}
