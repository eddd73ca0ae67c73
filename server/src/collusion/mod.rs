//! The collusion report over ranked history.
//!
//! Colluders at one table help each other in ways that leave traces in the records: one
//! feeds the other the tiles he wins on, passes claims that would have helped himself when
//! the tile is his partner's, and the partner wins on his discards far more often than on
//! the others'. Each ranked hand is replayed through the core's engine, and at every
//! decision of a person the bot of [`BOT_LEVEL`] is asked what it would have done from that
//! seat's view (it sees nothing more than the player did): that is the expectation an honest
//! player is measured against. The analysis is pure (records in, report out) and
//! deterministic (the bot's seed comes from the record's id), so the same history always
//! gives the same report.
//!
//! For each ordered pair (A, B) of accounts that shared at least `min_hands` ranked hands:
//!
//! - **feeds**: A's discards that B could have won on, against what the bot in A's seat
//!   predicts. Per discard, the chance that an honest player hands B a winning tile is
//!   `(1 − SLACK)·[the bot's discard lets B win] + SLACK·(share of A's discardable kinds that
//!   let B win)`: mostly the bot's choice, with some room for a person who plays differently
//!   but not towards B. Observed minus expected, over the Poisson-binomial spread, is a
//!   z-score.
//! - **passed_claims**: claims on B's discards that the bot in A's seat would have taken (a
//!   win, a pung, a kong or a chow) and A passed, against A's own rate of passing such claims
//!   on everyone else's discards (so a cautious player is compared with himself).
//! - **wins_on_discards**: B's wins on a discard that were A's discards, against an even
//!   share (one in three: three others discard).
//!
//! A measure flags the pair when its z-score reaches [`Thresholds::z`] and the observed count
//! reaches [`Thresholds::min_observed`] (a z-score on two events means little). `deal_ins`
//! (A's discards B actually won on) is reported alongside; seen from B it is the same count
//! as B's wins on A's discards.

//!
//! By concern: `replay` (one hand replayed and counted by ordered pair of seats), `tally`
//! (counts summed by pair of accounts, and the measures and report made from them), and
//! here the report over hands or over the store.

mod replay;
mod tally;
#[cfg(test)]
mod tests;

use tongcheng_core::bot::Level;
use tongcheng_core::record::HandRecord;

pub use replay::{HandCounts, PairCounts, analyze_hand};
pub use tally::{Tally, pair_report, z_score};
pub use tongcheng_api::admin::{Measure, MeasureName, PairReport, Report, Thresholds};

/// The bots whose play is the expectation: the level the server seats at ranked tables.
pub const BOT_LEVEL: Level = Level::Normal;

/// How far an honest person may stray from the bot's discard (see the module's notes).
pub const SLACK: f64 = 0.25;

/// The share of B's discard wins expected from any one of the three other seats.
pub const EVEN_SHARE: f64 = 1.0 / 3.0;

/// The lowest pass rate a player's own habit is taken to be: a player who never passed a
/// helpful claim on others is not flagged for passing one on B.
pub const PASS_RATE_FLOOR: f64 = 0.05;

/// A spread below this (few trials, near-certain expectations) is taken as this, so a
/// single surprise cannot make a huge z-score.
pub const MIN_VARIANCE: f64 = 1.0;

/// One ranked hand as the report reads it: the account in each of the record's seats
/// (`None` for a bot) and the record.
#[derive(Clone, Debug)]
pub struct RankedRecord {
    pub accounts: [Option<i64>; 4],
    pub record: HandRecord,
}

/// The report over `hands`.
pub fn report<'a>(hands: impl IntoIterator<Item = &'a RankedRecord>, t: &Thresholds) -> Report {
    let mut tally = Tally::default();
    for h in hands {
        tally.add(h);
    }
    tally.report(t)
}

/// Ranked hands read per store call.
const PAGE: u32 = 500;

/// Every ranked hand of `rules` played at or after `since` (unix seconds), read page by page
/// so a report keeps counts, not records: each with its record, `None` when the record does
/// not read. What the collusion and the assist reports both walk.
pub fn each_ranked_hand(
    store: &dyn crate::store::Store,
    rules: &str,
    since: i64,
    mut each: impl FnMut(crate::store::RankedHand, Option<HandRecord>),
) -> crate::store::Result<()> {
    let mut after = 0;
    loop {
        let page = store.ranked_hands(rules, after, PAGE)?;
        let Some(&(last, _)) = page.last() else {
            return Ok(());
        };
        after = last;
        for (_, h) in page.into_iter().filter(|(_, h)| h.played_at >= since) {
            let record = HandRecord::from_json(&h.json).ok();
            each(h, record);
        }
    }
}

/// The report over the ranked hands of `rules` in the store played at or after `since` (unix
/// seconds). Runs on a blocking thread: it replays every hand, a few milliseconds each.
pub fn from_store(
    store: &dyn crate::store::Store,
    rules: &str,
    since: i64,
    t: &Thresholds,
) -> crate::store::Result<Report> {
    let mut tally = Tally::default();
    each_ranked_hand(store, rules, since, |h, record| match record {
        Some(record) => tally.add(&RankedRecord {
            accounts: h.accounts,
            record,
        }),
        None => tally.unreadable += 1,
    })?;
    Ok(tally.report(t))
}
