//! The engine-assist report over ranked history.
//!
//! A player with a strong bot whispering moves plays the bot's first choice far more often
//! than anyone at his level, and takes the same time whatever the decision: the relay, not
//! the position, sets his pace. Each ranked hand is replayed through the core's engine and,
//! at every non-forced decision a person answered himself (not his stand-in's timeouts and
//! 托管 moves: the table records who answered and after how long), the hard bot ranks the
//! choices from that seat's view (`tongcheng_core::hint`, deterministic: the same history
//! gives the same report). Per account:
//!
//! - **top_choice**: the share of its decisions that were the hard bot's first choice;
//! - **mean_rank**: how far down the hard bot's ranking its choices fall on average;
//! - **timing**: ln of its geometric-mean think time on hard decisions (several discards as
//!   fast as the best, or a claim the hard bot would take) over easy ones. People think
//!   longer over hard decisions; a relay does not.
//!
//! Each is measured against the account's peers — the other accounts within
//! [`AssistThresholds::peer_band`] of its rating (the nearest
//! [`AssistThresholds::min_peers`] when fewer) — as a z-score over the peers' median and
//! robust spread (a few cheats among the peers move neither) plus the account's own sampling
//! error. With fewer accounts than that in the rule set, the reference is [`TOP_PRIOR`] and
//! its siblings, the spread of an honest population measured by this module's simulation
//! (`cargo test -p tongcheng-server --lib assist_rates -- --nocapture` prints it). An
//! account is flagged when its top-choice z-score reaches [`AssistThresholds::z`], or
//! [`AssistThresholds::z_with_timing`] with its timing z-score at
//! [`AssistThresholds::timing_z`].
//!
//! By concern: `replay` (one hand's judged decisions), `tally` (sums by account and the
//! measures), here the thresholds, the reference population and the report over the store.

mod replay;
mod tally;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

pub use replay::{Judged, analyze_hand, rank_of, ranking};
pub use tally::{AccountCounts, Figures, Tally, figures};
pub use tongcheng_api::sanctions::{
    AssistAccount, AssistFlag, AssistReport, AssistThresholds, PeerMeasure,
};

use crate::collusion::{RankedRecord, each_ranked_hand};

/// Think times of each kind an account needs before its timing is measured.
pub const MIN_TIMED: usize = 20;

/// Record ids kept per account to replay.
pub const SAMPLE_HANDS: usize = 10;

/// No z-score divides by less than this.
pub const SPREAD_FLOOR: f64 = 0.02;

/// An honest population's centre and spread of one figure (the reference for a rule set
/// with too few accounts to measure peers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prior {
    pub center: f64,
    pub spread: f64,
}

impl Prior {
    pub const fn negated(self) -> Prior {
        Prior {
            center: -self.center,
            spread: self.spread,
        }
    }
}

/// Top-choice share of honest players, all levels together.
pub const TOP_PRIOR: Prior = Prior {
    center: 0.70,
    spread: 0.08,
};
/// Mean rank of honest players.
pub const RANK_PRIOR: Prior = Prior {
    center: 0.60,
    spread: 0.25,
};
/// Hard-over-easy log time ratio of honest players.
pub const TIMING_PRIOR: Prior = Prior {
    center: 0.45,
    spread: 0.15,
};

/// The report over the ranked hands of `rules` played at or after `since`, with the
/// accounts' ratings in that rule set. Replays every hand (the hard bot's ranking at each
/// decision): run it on a blocking thread.
pub fn from_store(
    store: &dyn crate::store::Store,
    rules: &str,
    since: i64,
    t: &AssistThresholds,
) -> crate::store::Result<AssistReport> {
    let mut tally = Tally::default();
    each_ranked_hand(store, rules, since, |h, record| match record {
        Some(record) => tally.add(
            &RankedRecord {
                accounts: h.accounts,
                record,
            },
            &h.think,
        ),
        None => tally.unreadable += 1,
    })?;
    let mut ratings = BTreeMap::new();
    for &a in tally.accounts.keys() {
        if let Some(r) = store.rating(a, rules)? {
            ratings.insert(a, r.mu);
        }
    }
    Ok(tally.report(&ratings, t))
}
