//! Commit–reveal: each hand's wall comes from a secret seed the table commits to before the
//! deal and the people's contributions; the reveal after the hand lets every client check it
//! ([`tongcheng_core::fair`]).

use tongcheng_core::Seat;
use tongcheng_core::fair::{Commitment, Contribution, FairWall, commit};
use tongcheng_core::protocol::ServerMsg;
use tongcheng_core::wall::Seed;

use super::super::clock;
use super::{Phase, TableTask, random32};

impl TableTask {
    /// Commits to this hand's secret seed and asks for contributions.
    pub(super) fn start_hand(&mut self) {
        self.grace_ms = None;
        self.pause = None;
        self.pause_checked = 0;
        self.phase = Phase::Contributing;
        self.server_seed = Seed(random32());
        let commitment = self.hand_commitment();
        let hand = self.hand;
        // A round's table deals from the round's seed at once: nothing to contribute.
        let ms = if self.round.is_some() {
            0
        } else {
            self.config.contribute_ms
        };
        for s in &mut self.slots {
            s.contribution = None;
            s.ready = false;
            s.sent_events = 0;
            s.decision_sent = None;
            s.push(|seq| ServerMsg::Commit {
                seq,
                hand,
                commitment,
                deadline_ms: ms,
            });
        }
        self.wake_ms = Some(clock::now_ms() + ms);
        if self.round.is_some() {
            self.wake_ms = None;
            self.ask_piao();
        }
    }

    /// The commitment the hand's wall is bound by: the hand's own, or a tournament round's.
    pub(super) fn hand_commitment(&self) -> Commitment {
        match &self.round {
            Some(r) => r.seat.commitment,
            None => commit(&self.server_seed),
        }
    }

    /// Deals the hand from the fair seed.
    pub(super) fn deal(&mut self) {
        let proof = self.proof();
        if let Some(t) = self.table.as_mut() {
            t.redeal(proof.wall_seed());
        }
        self.wake_ms = None;
        self.ask_piao();
    }

    /// The hand's proof: the committed seed and each seat's contribution.
    fn proof(&self) -> FairWall {
        let by_seat = self.table_seats();
        let contributions: [Option<Contribution>; 4] =
            std::array::from_fn(|seat| self.slots[by_seat[seat]].contribution);
        FairWall::new(self.server_seed, contributions)
    }

    /// The proof revealed with the finished hand's record.
    pub(super) fn reveal(&self) -> FairWall {
        let mut proof = self.proof();
        if self.config.dishonest_reveal {
            // Test hook: a server that lies about its seed after the hand.
            proof.reveal = Seed(random32());
        }
        proof
    }

    pub(super) fn table_seats(&self) -> [usize; 4] {
        std::array::from_fn(|seat| {
            self.table
                .as_ref()
                .map_or(seat, |t| t.player_at(Seat(seat as u8)))
        })
    }
}
