//! Figures summed by account, and each account measured against its peers at its rating.

use std::collections::BTreeMap;

use super::replay::{Judged, analyze_hand};
use super::{
    AssistAccount, AssistFlag, AssistReport, AssistThresholds, MIN_TIMED, PeerMeasure, Prior,
    RANK_PRIOR, SAMPLE_HANDS, SPREAD_FLOOR, TIMING_PRIOR, TOP_PRIOR,
};
use crate::collusion::RankedRecord;
use crate::store::Think;

/// One account's decisions, summed over its hands.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AccountCounts {
    pub hands: u32,
    pub decisions: u32,
    /// Decisions that were the hard bot's first choice.
    pub top: u32,
    pub rank_sum: f64,
    pub rank_sq: f64,
    /// Think times (ms) on easy and hard decisions.
    pub easy_ms: Vec<u32>,
    pub hard_ms: Vec<u32>,
    /// Its latest hands' record ids.
    pub sample: Vec<String>,
}

impl AccountCounts {
    pub fn add(&mut self, j: &Judged) {
        self.decisions += 1;
        self.top += u32::from(j.rank == 0);
        let r = f64::from(j.rank);
        self.rank_sum += r;
        self.rank_sq += r * r;
        if let Some(ms) = j.think_ms {
            if j.hard {
                self.hard_ms.push(ms);
            } else {
                self.easy_ms.push(ms);
            }
        }
    }
}

/// Sums per account.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub hands: u32,
    pub unreadable: u32,
    pub accounts: BTreeMap<i64, AccountCounts>,
}

impl Tally {
    /// Adds one hand with its think times; a record that does not replay is counted as
    /// unreadable.
    pub fn add(&mut self, hand: &RankedRecord, think: &[Think]) {
        let people = hand.accounts.map(|a| a.is_some());
        let Ok(judged) = analyze_hand(&hand.record, people, think) else {
            self.unreadable += 1;
            return;
        };
        self.hands += 1;
        for (seat, list) in judged.iter().enumerate() {
            let Some(account) = hand.accounts[seat] else {
                continue;
            };
            let c = self.accounts.entry(account).or_default();
            c.hands += 1;
            for j in list {
                c.add(j);
            }
            if c.sample.len() == SAMPLE_HANDS {
                c.sample.remove(0);
            }
            c.sample.push(hand.record.id.to_string());
        }
    }

    /// The report; `ratings` gives each account's rating (mu) in the rule set.
    pub fn report(&self, ratings: &BTreeMap<i64, f64>, t: &AssistThresholds) -> AssistReport {
        let default_mu = crate::rating::initial(0, "").mu;
        let judged: Vec<(i64, f64, Figures)> = self
            .accounts
            .iter()
            .filter(|(_, c)| c.decisions >= t.min_decisions.max(1))
            .map(|(&a, c)| {
                let mu = ratings.get(&a).copied().unwrap_or(default_mu);
                (a, mu, figures(c))
            })
            .collect();
        let mut accounts: Vec<AssistAccount> = (0..judged.len())
            .map(|i| {
                let (account, rating, f) = &judged[i];
                let peers = peers_of(&judged, i, t);
                let pick = |get: fn(&Figures) -> Option<f64>| -> Vec<f64> {
                    peers.iter().filter_map(|&j| get(&judged[j].2)).collect()
                };
                let enough = peers.len() >= t.min_peers as usize;
                let top = measure(f.top, &pick(|f| Some(f.top)), enough, TOP_PRIOR, |c| {
                    (c * (1.0 - c) / f.n).sqrt()
                });
                let rank = measure(
                    -f.rank,
                    &pick(|f| Some(-f.rank)),
                    enough,
                    RANK_PRIOR.negated(),
                    |_| f.rank_se,
                );
                let timing = f.timing.map(|(ratio, se)| {
                    measure(
                        -ratio,
                        &pick(|f| f.timing.map(|t| -t.0)),
                        enough,
                        TIMING_PRIOR.negated(),
                        |_| se,
                    )
                });
                let mut flagged_by = Vec::new();
                if top.z >= t.z {
                    flagged_by.push(AssistFlag::TopChoice);
                } else if top.z >= t.z_with_timing
                    && timing.as_ref().is_some_and(|m| m.z >= t.timing_z)
                {
                    flagged_by.push(AssistFlag::TopChoiceFlatTiming);
                }
                let c = &self.accounts[account];
                AssistAccount {
                    account: *account,
                    rating: round3(*rating),
                    hands: c.hands,
                    decisions: c.decisions,
                    top_choices: c.top,
                    top_choice: top,
                    mean_rank: PeerMeasure {
                        value: round3(-rank.value),
                        peers: round3(-rank.peers),
                        ..rank
                    },
                    timed: (c.easy_ms.len() + c.hard_ms.len()) as u32,
                    easy_ms: median_ms(&c.easy_ms),
                    hard_ms: median_ms(&c.hard_ms),
                    timing: timing.map(|m| PeerMeasure {
                        value: round3(-m.value),
                        peers: round3(-m.peers),
                        ..m
                    }),
                    peers: if enough { peers.len() as u32 } else { 0 },
                    flagged_by,
                    hands_sample: c.sample.iter().rev().cloned().collect(),
                }
            })
            .collect();
        accounts.sort_by(|x, y| {
            (!y.flagged_by.is_empty())
                .cmp(&!x.flagged_by.is_empty())
                .then(y.top_choice.z.total_cmp(&x.top_choice.z))
                .then(x.account.cmp(&y.account))
        });
        AssistReport {
            hands: self.hands,
            unreadable: self.unreadable,
            thresholds: *t,
            bot_level: "hard".into(),
            accounts,
        }
    }
}

/// An account's raw figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figures {
    pub n: f64,
    /// Share of first choices.
    pub top: f64,
    /// Mean rank and its standard error.
    pub rank: f64,
    pub rank_se: f64,
    /// ln(geometric mean hard time / easy time) and its standard error.
    pub timing: Option<(f64, f64)>,
}

pub fn figures(c: &AccountCounts) -> Figures {
    let n = f64::from(c.decisions.max(1));
    let rank = c.rank_sum / n;
    let var = (c.rank_sq / n - rank * rank).max(0.0);
    let timing = (c.easy_ms.len() >= MIN_TIMED && c.hard_ms.len() >= MIN_TIMED).then(|| {
        let (me, ve, ne) = log_stats(&c.easy_ms);
        let (mh, vh, nh) = log_stats(&c.hard_ms);
        (mh - me, (vh / nh + ve / ne).sqrt())
    });
    Figures {
        n,
        top: f64::from(c.top) / n,
        rank,
        rank_se: (var / n).sqrt(),
        timing,
    }
}

/// Mean and variance of ln(ms) (a think time under 50 ms counts as 50: nobody is faster,
/// and a zero must not make a log of it), and the count.
fn log_stats(ms: &[u32]) -> (f64, f64, f64) {
    let n = ms.len() as f64;
    let logs = ms.iter().map(|&m| f64::from(m.max(50)).ln());
    let mean = logs.clone().sum::<f64>() / n;
    let var = logs.map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var, n)
}

fn median_ms(ms: &[u32]) -> Option<u32> {
    let mut v = ms.to_vec();
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}

/// The accounts account `i` is measured against: every other within `peer_band` of its
/// rating, or, when those are fewer than `min_peers`, the `min_peers` nearest in rating.
fn peers_of(all: &[(i64, f64, Figures)], i: usize, t: &AssistThresholds) -> Vec<usize> {
    let mu = all[i].1;
    let mut others: Vec<(f64, i64, usize)> = all
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != i)
        .map(|(j, (a, m, _))| ((m - mu).abs(), *a, j))
        .collect();
    others.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    let within = others.iter().filter(|o| o.0 <= t.peer_band).count();
    others
        .into_iter()
        .take(within.max(t.min_peers as usize))
        .map(|o| o.2)
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// `value` against the peers' median, over their robust spread (1.4826 × the median
/// absolute deviation) and the account's own sampling error `se(center)`; with too few
/// peers (`enough` false), against the honest population's `prior`. Higher `value` is
/// more engine-like.
fn measure(
    value: f64,
    peers: &[f64],
    enough: bool,
    prior: Prior,
    se: impl Fn(f64) -> f64,
) -> PeerMeasure {
    let (center, between) = if enough && !peers.is_empty() {
        let mut v = peers.to_vec();
        let c = median(&mut v);
        let mut dev: Vec<f64> = peers.iter().map(|p| (p - c).abs()).collect();
        (c, 1.4826 * median(&mut dev))
    } else {
        (prior.center, prior.spread)
    };
    let spread = (between.powi(2) + se(center).powi(2))
        .sqrt()
        .max(SPREAD_FLOOR);
    PeerMeasure {
        value: round3(value),
        peers: round3(center),
        spread: round3(spread),
        z: round3((value - center) / spread),
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
