//! A ranked match's end: its people's ratings move ([`crate::rating`]), off the table's task.

use super::TableTask;
use crate::store::Store;

/// A ranked match's rating to write: its rule set, and each slot's account with its score.
pub(super) type Rating = (String, Vec<(Option<i64>, i32)>);

impl TableTask {
    /// Updates the people's ratings from the final scores, off the table's task. Bots' seats
    /// are not passed in as people, so no rating moves against a bot.
    pub(super) fn rate(&self, rules: String, accounts: Vec<(Option<i64>, i32)>) {
        let store = self.store.clone();
        let table = self.id.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = rate_accounts(store.as_ref(), &rules, &accounts) {
                tracing::error!(%table, error = %e, "cannot rate the match");
            }
        });
    }
}

/// Reads the ratings of a finished match's people, rates it and writes the new ones.
pub fn rate_accounts(
    store: &dyn Store,
    rules: &str,
    seats: &[(Option<i64>, i32)],
) -> crate::store::Result<Vec<crate::store::StoredRating>> {
    let mut results = Vec::with_capacity(seats.len());
    for &(account, score) in seats {
        let rating = match account {
            Some(a) => Some(
                store
                    .rating(a, rules)?
                    .unwrap_or_else(|| crate::rating::initial(a, rules)),
            ),
            None => None,
        };
        results.push(crate::rating::SeatResult { rating, score });
    }
    let new = crate::rating::rate_match(&results);
    if !new.is_empty() {
        store.put_ratings(&new, crate::now())?;
    }
    Ok(new)
}
