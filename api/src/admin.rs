//! The admin endpoints' bodies (behind the server's admin token): the collusion report.

use serde::{Deserialize, Serialize};

/// Which rule set's ranked history, and which pairs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams))]
#[serde(deny_unknown_fields)]
pub struct CollusionQuery {
    /// The rule set whose ranked history is analysed.
    #[cfg_attr(feature = "openapi", param(min_length = 1, max_length = 64))]
    pub rules: String,
    /// Hands a pair must have shared to be reported (20 when absent; 0 reads as 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_hands: Option<u32>,
    /// Only hands played at or after this time (unix seconds): a recent window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
}

/// The longest rule-set name a report is asked for (in characters).
pub const MAX_RULES_NAME: usize = 64;

/// When a pair is flagged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Thresholds {
    /// Hands the two must have shared before the pair is reported at all.
    pub min_hands: u32,
    /// One-sided z-score a measure must reach: 3.5 is about one honest measure in 4,000
    /// under the normal approximation, which is generous on small binomials (six wins out
    /// of six on one player's discards is z ≈ 3.0), hence above the textbook 3.
    pub z: f64,
    /// Events a measure must have seen.
    pub min_observed: u32,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            min_hands: 20,
            z: 3.5,
            min_observed: 4,
        }
    }
}

/// One measure of a pair: what was seen against what honest play predicts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Measure {
    /// The occasions counted (decisions, claim windows, wins).
    pub trials: u32,
    pub observed: u32,
    pub expected: f64,
    /// One-sided: how far `observed` is above `expected`, in standard deviations.
    pub z: f64,
    pub flagged: bool,
}

/// The three measures, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum MeasureName {
    /// The account's discards the partner could win on, against the bot's choice.
    Feeds,
    /// Claims on the partner's discards the bot would have taken and the account passed.
    PassedClaims,
    /// The partner's discard wins that were the account's discards, against an even share.
    WinsOnDiscards,
}

/// The report on one ordered pair: `account` is the one who may be helping `partner`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PairReport {
    pub account: i64,
    pub partner: i64,
    /// Ranked hands the two played together.
    pub hands: u32,
    /// `account`'s discards that `partner` won on.
    pub deal_ins: u32,
    pub feeds: Measure,
    pub passed_claims: Measure,
    pub wins_on_discards: Measure,
    /// The measures that flagged the pair.
    pub flagged_by: Vec<MeasureName>,
}

impl PairReport {
    pub fn flagged(&self) -> bool {
        !self.flagged_by.is_empty()
    }
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Report {
    /// Hands analysed.
    pub hands: u32,
    /// Hands whose record did not replay (counted, left out).
    pub unreadable: u32,
    pub thresholds: Thresholds,
    /// The level of the bot whose play is the expectation.
    pub bot_level: String,
    /// Pairs that met at least `min_hands` times: flagged first, then by their highest
    /// z-score, then by account ids.
    pub pairs: Vec<PairReport>,
}

impl Report {
    pub fn flagged(&self) -> impl Iterator<Item = &PairReport> {
        self.pairs.iter().filter(|p| p.flagged())
    }
}
