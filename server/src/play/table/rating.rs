//! A ranked match's end: its people's ratings move ([`crate::rating`]), off the table's task.

use super::TableTask;
use crate::rating::SeatResult;
use crate::store::{MatchToRate, Store, StoredRating};

/// A ranked match's rating to write: its rule set, and each slot's account with its score.
pub(super) type Rating = (String, Vec<(Option<i64>, i32)>);

impl TableTask {
    /// Updates the people's ratings from the final scores, off the table's task. Bots' seats
    /// are not passed in as people, so no rating moves against a bot.
    pub(super) fn rate(&self, rules: String, accounts: Vec<(Option<i64>, i32)>) {
        let store = self.store.clone();
        let table = self.id.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = rate_accounts(store.as_ref(), &table, &rules, &accounts) {
                tracing::error!(%table, error = %e, "cannot rate the match");
            }
        });
    }
}

/// Rates a finished ranked match once (a table rated already is not rated again) and keeps
/// it with each person's rating before it, so ratings can be recomputed without it should it
/// be voided (see [`crate::sanctions::void`]). The people's new ratings.
pub fn rate_accounts(
    store: &dyn Store,
    table_id: &str,
    rules: &str,
    seats: &[(Option<i64>, i32)],
) -> crate::store::Result<Vec<StoredRating>> {
    let people: Vec<(i64, i32)> = seats.iter().filter_map(|&(a, s)| Some((a?, s))).collect();
    let m = MatchToRate {
        table_id: table_id.to_string(),
        rules: rules.to_string(),
        finished_at: crate::now(),
        seats: seats.to_vec(),
    };
    store.rate_ranked_match(&m, &mut |now| {
        let before: Vec<StoredRating> = now
            .into_iter()
            .zip(&people)
            .map(|(r, &(a, _))| r.unwrap_or_else(|| crate::rating::initial(a, rules)))
            .collect();
        let results: Vec<SeatResult> = before
            .iter()
            .zip(&people)
            .map(|(r, &(_, score))| SeatResult {
                rating: Some(r.clone()),
                score,
            })
            .collect();
        let after = crate::rating::rate_match(&results);
        (before, after)
    })
}
