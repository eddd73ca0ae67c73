//! Counts summed by ordered pair of accounts, and the measures and report made from them.

use std::collections::BTreeMap;

use super::replay::{PairCounts, analyze_hand};
use super::{
    BOT_LEVEL, EVEN_SHARE, MIN_VARIANCE, Measure, MeasureName, PASS_RATE_FLOOR, PairReport,
    RankedRecord, Report, Thresholds,
};

/// One measure: `observed` of `trials` against `expected` with its `variance`.
fn measure(trials: u32, observed: u32, expected: f64, variance: f64, t: &Thresholds) -> Measure {
    let z = z_score(f64::from(observed), expected, variance);
    Measure {
        trials,
        observed,
        expected: round3(expected),
        z: round3(z),
        flagged: z >= t.z && observed >= t.min_observed,
    }
}

/// The highest z-score of a pair's measures (the report's order).
fn top_z(p: &PairReport) -> f64 {
    p.feeds.z.max(p.passed_claims.z).max(p.wins_on_discards.z)
}

/// `(observed − 0.5 − expected) / √variance`: one-sided, with a continuity correction, the
/// variance floored at [`MIN_VARIANCE`].
pub fn z_score(observed: f64, expected: f64, variance: f64) -> f64 {
    (observed - 0.5 - expected) / variance.max(MIN_VARIANCE).sqrt()
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Sums per ordered pair of accounts (and per account, its claim windows on anyone).
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub hands: u32,
    pub unreadable: u32,
    pub pairs: BTreeMap<(i64, i64), PairCounts>,
    /// Per account: helpful claim windows on anyone's discards, and those passed.
    pub windows: BTreeMap<i64, (u32, u32)>,
}

impl Tally {
    /// Adds one hand; a record that does not replay is counted as unreadable.
    pub fn add(&mut self, hand: &RankedRecord) {
        let people = hand.accounts.map(|a| a.is_some());
        let counts = match analyze_hand(&hand.record, people) {
            Ok(c) => c,
            Err(_) => {
                self.unreadable += 1;
                return;
            }
        };
        self.hands += 1;
        for (a, row) in counts.iter().enumerate() {
            let Some(acc_a) = hand.accounts[a] else {
                continue;
            };
            for (b, c) in row.iter().enumerate() {
                let w = self.windows.entry(acc_a).or_default();
                w.0 += c.helpful_windows;
                w.1 += c.helpful_passed;
                let Some(acc_b) = hand.accounts[b] else {
                    continue;
                };
                // One account in two seats (never at a ranked table) is no pair.
                if a == b || acc_a == acc_b {
                    continue;
                }
                self.pairs.entry((acc_a, acc_b)).or_default().add(c);
            }
        }
    }

    /// The report from the counts so far.
    pub fn report(&self, t: &Thresholds) -> Report {
        let mut pairs: Vec<PairReport> = self
            .pairs
            .iter()
            .filter(|(_, c)| c.hands >= t.min_hands)
            .map(|(&(a, b), c)| {
                let (all_windows, all_passed) = self.windows.get(&a).copied().unwrap_or((0, 0));
                pair_report(a, b, c, all_windows, all_passed, t)
            })
            .collect();
        pairs.sort_by(|x, y| {
            y.flagged()
                .cmp(&x.flagged())
                .then(top_z(y).total_cmp(&top_z(x)))
                .then((x.account, x.partner).cmp(&(y.account, y.partner)))
        });
        Report {
            hands: self.hands,
            unreadable: self.unreadable,
            thresholds: *t,
            bot_level: BOT_LEVEL.name().to_string(),
            pairs,
        }
    }
}

/// The measures of one pair from its counts and the account's claim windows on anyone
/// (`all_windows`, of which `all_passed` were passed).
pub fn pair_report(
    account: i64,
    partner: i64,
    c: &PairCounts,
    all_windows: u32,
    all_passed: u32,
    t: &Thresholds,
) -> PairReport {
    let feeds = measure(c.discards, c.feeds, c.feeds_expected, c.feeds_variance, t);
    // The account's own habit on everyone but the partner, smoothed towards one half so a
    // handful of windows says little, and floored.
    let other_windows = all_windows.saturating_sub(c.helpful_windows);
    let other_passed = all_passed.saturating_sub(c.helpful_passed);
    let rate = ((f64::from(other_passed) + 1.0) / (f64::from(other_windows) + 2.0))
        .clamp(PASS_RATE_FLOOR, 1.0);
    let n = f64::from(c.helpful_windows);
    let passed_claims = measure(
        c.helpful_windows,
        c.helpful_passed,
        n * rate,
        n * rate * (1.0 - rate),
        t,
    );
    let m = f64::from(c.partner_discard_wins);
    let wins_on_discards = measure(
        c.partner_discard_wins,
        c.partner_wins_on_account,
        m * EVEN_SHARE,
        m * EVEN_SHARE * (1.0 - EVEN_SHARE),
        t,
    );
    let mut flagged_by = Vec::new();
    for (name, m) in [
        (MeasureName::Feeds, &feeds),
        (MeasureName::PassedClaims, &passed_claims),
        (MeasureName::WinsOnDiscards, &wins_on_discards),
    ] {
        if m.flagged {
            flagged_by.push(name);
        }
    }
    PairReport {
        account,
        partner,
        hands: c.hands,
        deal_ins: c.deal_ins,
        feeds,
        passed_claims,
        wins_on_discards,
        flagged_by,
    }
}
