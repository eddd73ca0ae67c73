//! 飘 chosen before every hand (Tongcheng rules with `Piao::Chosen`, presets named `…-piao`):
//! once the hand is dealt each person is asked for his stake with the seat's view, and the
//! first move waits until every person has answered, is on 托管 or away, or the time is up
//! (he stakes 0). The bots staked at the deal. Then every seat is told every stake.

use tongcheng_core::protocol::{ErrorCode, ServerMsg};

use super::super::clock;
use super::stream::Slot;
use super::{Phase, TableTask};

impl TableTask {
    /// After the deal: ask the people for their 飘, or play at once where the rules do not.
    pub(super) fn ask_piao(&mut self) {
        self.phase = Phase::Playing;
        let Some(t) = self.table.as_ref() else {
            return;
        };
        if !t.piao_open() || !self.slots.iter().any(Slot::person) {
            return;
        }
        self.phase = Phase::Staking;
        let (hand, ms) = (self.hand, self.config.piao_ms);
        for (p, s) in self.slots.iter_mut().enumerate() {
            s.piao = None;
            // Only people are asked: a bot's seat view would be built for nothing.
            if !s.person() {
                continue;
            }
            let view = Box::new(t.view(p));
            s.push(|seq| ServerMsg::PiaoAsk {
                seq,
                hand,
                view,
                deadline_ms: ms,
            });
        }
        self.wake_ms = Some(clock::now_ms() + ms);
    }

    /// A person's stake is still waited for (one who is away or on 托管 stakes nothing).
    pub(super) fn piao_waiting(&self) -> bool {
        let Some(t) = self.table.as_ref() else {
            return false;
        };
        self.slots.iter().enumerate().any(|(p, s)| {
            s.person() && s.connected() && s.barred.is_none() && !t.auto_play(p) && s.piao.is_none()
        })
    }

    /// The stakes are in (or the time is up): every seat is told them and the hand starts.
    pub(super) fn piao_done(&mut self) {
        self.phase = Phase::Playing;
        self.wake_ms = None;
        let Some(t) = self.table.as_ref() else {
            return;
        };
        let (hand, stakes) = (self.hand, t.piao_chosen());
        for s in &mut self.slots {
            s.push(|seq| ServerMsg::Piao { seq, hand, stakes });
        }
    }

    /// Person `p` stakes `stake` on hand `hand`.
    pub(super) fn piao(&mut self, p: usize, hand: u32, stake: u8) {
        if let Some((code, why)) = &self.slots[p].barred {
            let (code, why) = (*code, why.clone());
            return self.slots[p].error(code, why);
        }
        let asked = self.phase == Phase::Staking && hand == self.hand;
        let Some(t) = self
            .table
            .as_mut()
            .filter(|_| asked && self.slots[p].piao.is_none())
        else {
            return self.slots[p].error(
                ErrorCode::StaleDecision,
                format!("no 飘 is asked of you for hand {hand} now"),
            );
        };
        match t.choose_piao(p, stake) {
            Ok(()) => self.slots[p].piao = Some(stake),
            Err(e) => self.slots[p].error(ErrorCode::IllegalAction, e.to_string()),
        }
    }
}
