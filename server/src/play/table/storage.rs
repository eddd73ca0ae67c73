//! A hand's end and the match's: the record (with the reveal) to every person, kept in each
//! person's synced records and the ranked history — after the checkpoint when there are
//! several nodes — and the final scores.

use std::sync::Arc;

use tongcheng_core::Seat;
use tongcheng_core::protocol::ServerMsg;
use tongcheng_core::record::HandRecord;

use super::super::checkpoint::{FinishedHand, TableProgress};
use super::super::clock;
use super::checkpoint::SaveJob;
use super::{Cmd, Phase, SaveOutcome, TableTask};
use crate::store::{NewRecord, RankedHand};

/// A finished hand, told to the players once its checkpoint is written.
pub(super) struct PendingEnd {
    hand: u32,
    record: Arc<HandRecord>,
    /// The record as JSON, written once for every seat's frame.
    json: Arc<str>,
    scores: [i32; 4],
    seats: [Seat; 4],
    more: bool,
}

impl TableTask {
    /// The hand is over: reveal, send the records, store them, and go on.
    pub(super) fn end_hand(&mut self) {
        let by_seat = self.table_seats();
        let proof = self.reveal();
        let Some(t) = self.table.as_mut() else {
            return;
        };
        let Some(mut record) = t.record() else {
            return;
        };
        if self.round.is_some() {
            // The round's record proves its walls; the hand is kept for it.
            self.round_hands.push(record.clone());
        } else {
            record.fairness = Some(proof);
        }
        let hand = self.hand;
        let more = t.next_hand();
        let scores = t.match_state().scores();
        let seats: [Seat; 4] =
            std::array::from_fn(|p| Seat(by_seat.iter().position(|&q| q == p).unwrap_or(p) as u8));
        let json = record.to_json();
        let shared = Arc::new(record);
        let record = &*shared;
        let mut stored = Vec::new();
        for (p, s) in self.slots.iter_mut().enumerate() {
            if let Some(account) = s.account {
                stored.push((
                    account,
                    s.device,
                    NewRecord {
                        record_id: record.id.to_string(),
                        seat: seats[p].0,
                        played_at: crate::now(),
                        rules: record.setup.rules.name.clone(),
                        offline: false,
                        json: json.clone(),
                    },
                ));
            }
            s.decision_sent = None;
        }
        // Ranked history for the collusion report: the account in each of the record's seats.
        let ranked = self.ranked.then(|| RankedHand {
            table_id: self.id.clone(),
            record_id: record.id.to_string(),
            rules: record.setup.rules.name.clone(),
            accounts: std::array::from_fn(|seat| self.slots[by_seat[seat]].account),
            played_at: crate::now(),
            json: json.clone(),
            think: std::mem::take(&mut self.think),
        });
        self.think.clear();
        let round = match (&self.round, self.table.as_ref()) {
            (Some(r), Some(t)) => Some(Box::new(TableProgress {
                tournament: r.seat.tournament.clone(),
                round: r.seat.round,
                table: r.seat.table,
                saved: t.saved(),
                hands: self.round_hands.clone(),
                scores,
                over: !more,
            })),
            _ => None,
        };
        let finished = FinishedHand {
            stored,
            ranked,
            round,
        };
        let end = PendingEnd {
            hand,
            record: shared,
            json: Arc::from(json.as_str()),
            scores,
            seats,
            more,
        };
        if more {
            self.hand += 1;
        }
        if let Some(value) = self.checkpoint(Some(finished.clone()))
            && let Some(saver) = self.saver()
        {
            // Several nodes: nobody hears of the hand's end before its checkpoint (with its
            // records) is written, so a hand anyone saw finish survives this node.
            let _ = saver.send(SaveJob::Checkpoint {
                value,
                hand: Some(Box::new(finished)),
                reply: true,
            });
            self.pending_end = Some(end);
            self.phase = Phase::Saving;
            self.wake_ms = None;
            return;
        }
        // One node: the records are written off the table's task (a slow disk must not hold
        // up other work), and the hand is announced only once they are, so a hand anyone was
        // told had ended is never lost to a crash between the two.
        let Some(me) = self.me.clone() else {
            // A task outside any lobby (no channel of its own): keep, then announce.
            finished.keep(self.store.as_ref(), &self.id);
            self.announce_end(end);
            return;
        };
        let store = self.store.clone();
        let table = self.id.clone();
        tokio::spawn(async move {
            let _ =
                tokio::task::spawn_blocking(move || finished.keep(store.as_ref(), &table)).await;
            if let Some(tx) = me.upgrade() {
                let _ = tx.send(Cmd::Saved(SaveOutcome::Written)).await;
            }
        });
        self.pending_end = Some(end);
        self.phase = Phase::Saving;
        self.wake_ms = None;
    }

    /// Tells everyone the hand's end and goes on to the next hand or the match's end.
    pub(super) fn announce_end(&mut self, end: PendingEnd) {
        for (p, s) in self.slots.iter_mut().enumerate() {
            s.push_hand_end(end.hand, &end.record, &end.json, end.scores, end.seats[p]);
        }
        if end.more {
            self.phase = Phase::BetweenHands;
            self.wake_ms = Some(clock::now_ms() + self.config.ready_ms);
        } else {
            self.finish();
        }
    }

    pub(super) fn finish(&mut self) {
        let scores = self
            .table
            .as_ref()
            .map_or([0; 4], |t| t.match_state().scores());
        for s in &mut self.slots {
            s.push(|seq| ServerMsg::MatchEnd { seq, scores });
        }
        self.phase = Phase::Over;
        if let Some(r) = &self.round
            && let Some(done) = &r.done
        {
            let _ = done.send(super::TableDone {
                table: r.seat.table,
                scores,
                hands: std::mem::take(&mut self.round_hands),
            });
        }
        let rate = self.ranked.then(|| {
            let accounts: Vec<(Option<i64>, i32)> = self
                .slots
                .iter()
                .zip(scores)
                .map(|(s, score)| (s.account, score))
                .collect();
            (self.rules.name.clone(), accounts)
        });
        if let Some(saver) = self.saver() {
            let _ = saver.send(SaveJob::Over { rate });
        } else if let Some((rules, accounts)) = rate {
            self.rate(rules, accounts);
        }
        // Connections have a little while to read the end, then the table goes.
        self.wake_ms = Some(clock::now_ms() + self.config.linger_ms);
    }
}
