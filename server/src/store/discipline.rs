//! The store's side of catching and punishing cheats (see `crate::sanctions`): sanctions,
//! rated ranked matches and their voiding, the review queue and the audit trail. A trait of
//! its own so the store's main trait stays readable; every [`super::Store`] is one.
//!
//! Every change an operator makes writes its audit row in the same transaction, so the trail
//! never misses a change nor names one that did not happen.

use super::{
    AuditRow, NewReview, RankedHand, RankedMatch, Result, StoredRating, StoredReview,
    StoredSanction,
};

/// A sanction to impose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewSanction {
    pub account_id: i64,
    pub device_id: Option<i64>,
    pub kind: String,
    pub until: Option<i64>,
    pub reason: String,
    pub void_from: Option<i64>,
    pub by: String,
}

/// How a rule set's ratings are computed from its rated matches (oldest first; the voided
/// ones included, marked): `crate::sanctions::void::recompute`.
pub type Recompute<'a> = &'a dyn Fn(&[RankedMatch]) -> Vec<StoredRating>;

/// How a finished match is rated: given each person's rating now (`None` before the first
/// rated match), in slot order, their ratings before (filled in) and after the match.
pub type RateMatch<'a> =
    &'a mut dyn FnMut(Vec<Option<StoredRating>>) -> (Vec<StoredRating>, Vec<StoredRating>);

/// A finished ranked match to rate: its table, rule set, time, and each slot's account
/// (`None`: a bot) and final score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchToRate {
    pub table_id: String,
    pub rules: String,
    pub finished_at: i64,
    pub seats: Vec<(Option<i64>, i32)>,
}

pub trait Discipline {
    /// The account a device belongs to.
    fn device_account(&self, device_id: i64) -> Result<Option<i64>>;
    /// Imposes a sanction (and its audit row); its id.
    fn add_sanction(&self, s: &NewSanction, now: i64) -> Result<i64>;
    fn sanction(&self, id: i64) -> Result<Option<StoredSanction>>;
    /// An account's sanctions, its devices' included, newest first.
    fn sanctions(&self, account_id: i64) -> Result<Vec<StoredSanction>>;
    /// The suspension or ban in force on the account (or on `device_id`) at `now`: a ban
    /// before a suspension, then the one that lasts longest.
    fn blocking_sanction(
        &self,
        account_id: i64,
        device_id: Option<i64>,
        now: i64,
    ) -> Result<Option<StoredSanction>>;
    /// Lifts a sanction (audited): `None` when there is none with this id, else the sanction
    /// and whether this call lifted it (false: it was lifted already, nothing changed).
    fn lift_sanction(
        &self,
        id: i64,
        by: &str,
        reason: &str,
        now: i64,
    ) -> Result<Option<(StoredSanction, bool)>>;

    /// Rates a finished ranked match once, in one transaction: the people's ratings are read,
    /// `rate` runs, the match is kept with everyone's rating before it and the new ratings
    /// are written. A table rated already (a node restored it) is not rated again: empty.
    fn rate_ranked_match(&self, m: &MatchToRate, rate: RateMatch<'_>) -> Result<Vec<StoredRating>>;
    /// A rule set's rated matches, oldest first.
    fn ranked_matches(&self, rules: &str) -> Result<Vec<RankedMatch>>;
    /// Voids the account's rated matches finished at or after `from` (not voided yet) under
    /// sanction `sanction_id`, then recomputes the ratings of every rule set they were in and
    /// writes them: one transaction, audited. The matches voided and the ratings written.
    fn void_matches(
        &self,
        sanction_id: i64,
        account_id: i64,
        from: i64,
        by: &str,
        recompute: Recompute<'_>,
        now: i64,
    ) -> Result<(u32, u32)>;

    /// Files a review; a second one with the same `dedupe` key brings the evidence of the
    /// open review up to date instead (a decided one stays as decided). Its id, and whether
    /// it is new.
    fn file_review(&self, r: &NewReview, actor: &str, now: i64) -> Result<(i64, bool)>;
    fn review(&self, id: i64) -> Result<Option<StoredReview>>;
    /// Reviews by status, kind and account (any, when `None`), oldest first.
    fn reviews(
        &self,
        status: Option<&str>,
        kind: Option<&str>,
        account_id: Option<i64>,
    ) -> Result<Vec<StoredReview>>;
    /// Decides an open review (audited): `None` when there is none with this id, else the
    /// review and whether this call decided it (false: it was decided already).
    fn decide_review(
        &self,
        id: i64,
        status: &str,
        note: &str,
        by: &str,
        now: i64,
    ) -> Result<Option<(StoredReview, bool)>>;
    /// The audit trail, oldest first (one account's rows, or all).
    fn audit(&self, account_id: Option<i64>) -> Result<Vec<AuditRow>>;

    /// Whether the account holds this online (not offline) hand in its records.
    fn holds_online_hand(&self, account_id: i64, record_id: &str) -> Result<bool>;
    /// A ranked hand by its record id.
    fn ranked_hand(&self, record_id: &str) -> Result<Option<RankedHand>>;
}
