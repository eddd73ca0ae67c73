//! A sanctioned player at a table: his seat plays on 托管 (the normal bot's stand-in) until
//! the match ends or the sanction is lifted, and his answers are refused with the
//! sanction's frame. Other players' match goes on undisturbed.

use tongcheng_core::protocol::{ErrorCode, ServerMsg};

use super::TableTask;

impl TableTask {
    /// A sanction on `account` (or its `device`) came into force (`Some`) or was lifted
    /// (`None`).
    pub(super) fn bar(
        &mut self,
        account: i64,
        device: Option<i64>,
        refusal: Option<(ErrorCode, String)>,
    ) {
        for s in &mut self.slots {
            if s.account == Some(account) && device.is_none_or(|d| d == s.device) {
                if let Some((code, why)) = &refusal {
                    s.error(*code, why.clone());
                }
                s.barred = refusal.clone();
            }
        }
        self.apply_bars();
    }

    /// Puts every barred seat on 托管 (from the match's start, too).
    pub(super) fn apply_bars(&mut self) {
        let Some(t) = self.table.as_mut() else {
            return;
        };
        for (p, s) in self.slots.iter_mut().enumerate() {
            if s.barred.is_some() && t.set_auto_play(p, true) {
                s.push(|seq| ServerMsg::AutoPlay { seq, on: true });
            }
        }
    }
}
